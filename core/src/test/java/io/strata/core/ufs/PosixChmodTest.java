package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 78: where fchmodat2 is missing (kernels before 6.6) chmod followed a final link, so a name
 * swapped for a link after the caller's look changed the mode of what the link names. Both ways
 * (fchmodat2 where this kernel has it, and the O_PATH way older kernels take) change an entry
 * itself and refuse a link, its target untouched.
 */
class PosixChmodTest {
  @TempDir Path dir;

  @Test
  void chmod_changesTheEntry_andRefusesALink() throws Exception {
    Path target = Files.writeString(dir.resolve("alices"), "x");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-------"));
    Path link = Files.createSymbolicLink(dir.resolve("swapped"), target);
    Path folder = Files.createDirectory(dir.resolve("folder"));

    PosixCalls.chmodPinned(folder, 0750);
    assertThat(mode(folder)).isEqualTo("rwxr-x---");
    PosixCalls.chmod(folder, 0700);
    assertThat(mode(folder)).isEqualTo("rwx------");

    assertThatThrownBy(() -> PosixCalls.chmodPinned(link, 0777))
        .isInstanceOf(FileSystemException.class)
        .hasMessageContaining("swapped");
    assertThatThrownBy(() -> PosixCalls.chmod(link, 0777)).isInstanceOf(FileSystemException.class);
    assertThat(mode(target)).isEqualTo("rw-------");
  }

  private static String mode(Path p) throws Exception {
    return PosixFilePermissions.toString(
        Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
  }
}
