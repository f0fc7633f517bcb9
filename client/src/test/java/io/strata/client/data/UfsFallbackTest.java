package io.strata.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.proto.ClusterView;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.MountPoint;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's direct read of the under-storage, on the client's own class path: the local driver
 * only, as in the shell, the FUSE process and the shaded Hadoop jar.
 */
class UfsFallbackTest {
  @TempDir Path root;

  @Test
  void aLocalMount_isReadDirectly() throws Exception {
    Files.writeString(root.resolve("a.txt"), "hello", StandardCharsets.UTF_8);
    try (UfsFallback fallback = new UfsFallback(() -> view("/data", "s3://bucket/data"))) {
      FileStatus status = fallback.status("/a.txt");
      assertThat(status.getLength()).isEqualTo(5);
    }
  }

  @Test
  void aMountWhoseDriverIsMissing_isUnavailableNamingTheDriver() {
    try (UfsFallback fallback = new UfsFallback(() -> view("/data", "s3://bucket/data"))) {
      assertThatThrownBy(() -> fallback.status("/data/x"))
          .isInstanceOfSatisfying(
              StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.UNAVAILABLE))
          .hasMessage(
              "no worker could serve s3://bucket/data/x, and this process cannot read it directly:"
                  + " no under-storage driver for s3:// on this class path: the s3 driver"
                  + " (lib/ufs/s3/) is missing; drivers here: local (a local folder or"
                  + " file:///folder)");
    }
  }

  private ClusterView view(String path, String uri) {
    return ClusterView.newBuilder()
        .addMounts(MountPoint.newBuilder().setPath("/").setUfsUri(root.toUri().toString()))
        .addMounts(MountPoint.newBuilder().setPath(path).setUfsUri(uri))
        .setMountTableVersion(1)
        .build();
  }
}
