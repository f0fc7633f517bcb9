package io.strata.master.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.MountPoint;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 78: an admin token mounted any local folder (/root, /etc) for the workers to serve. */
class MountChecksTest {
  @TempDir Path dir;

  private MountTable table() {
    return new MountTable(
        List.of(new Mount(StrataPath.ROOT, dir.resolve("root").toUri().toString(), false)), 1);
  }

  private Mount mount(List<String> roots, String path, Path folder) {
    return new MountChecks(roots)
        .check(
            MountPoint.newBuilder().setPath(path).setUfsUri(folder.toUri().toString()).build(),
            table());
  }

  @Test
  void localFolders_outsideTheAllowedRoots_areRefusedInOneLine() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data/sets"));
    Path beside = Files.createDirectories(dir.resolve("database"));
    Files.createDirectories(dir.resolve("root"));
    List<String> roots = List.of(dir.resolve("data").toString());

    assertThat(mount(roots, "/sets", data).ufsUri()).endsWith("/data/sets");
    for (Path refused : List.of(beside, dir.resolve("data/../database"), Path.of("/etc"))) {
      assertThatThrownBy(() -> mount(roots, "/x", refused))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> {
                assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED);
                assertThat(e.getMessage())
                    .contains("local mounts are limited to " + dir.resolve("data"))
                    .contains("strata.master.mount.local.roots")
                    .doesNotContain("\n");
              });
    }
  }

  @Test
  void withoutRoots_anyLocalFolderMounts() throws Exception {
    Path elsewhere = Files.createDirectories(dir.resolve("elsewhere"));
    Files.createDirectories(dir.resolve("root"));
    assertThat(mount(List.of(), "/e", elsewhere).ufsUri()).endsWith("/elsewhere");
  }
}
