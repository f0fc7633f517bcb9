package io.strata.fuse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 54: the spill folder's name was /tmp/strata-fuse-spill-PID, accepted whoever made it. */
class SpillFolderTest {
  @TempDir Path tmp;

  @Test
  void itsNameCannotBeGuessed_andItIsMadeOwnerOnly() throws IOException {
    Path a = SpillFolder.under(tmp);
    assertThat(a).isNotEqualTo(SpillFolder.under(tmp));
    SpillFolder.ensure(a);
    SpillFolder.ensure(a);
    assertThat(Files.getPosixFilePermissions(a))
        .isEqualTo(PosixFilePermissions.fromString("rwx------"));
  }

  @Test
  void oneMadeByAnotherAccount_orALink_isRefused() throws IOException {
    Path planted = Files.createDirectory(tmp.resolve("planted"));
    Files.setPosixFilePermissions(planted, PosixFilePermissions.fromString("rwx------"));
    Files.setAttribute(planted, "unix:uid", 65534, LinkOption.NOFOLLOW_LINKS);
    assertThatThrownBy(() -> SpillFolder.ensure(planted))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("not this account's own");
    Path open = Files.createDirectory(tmp.resolve("open"));
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThatThrownBy(() -> SpillFolder.ensure(open)).isInstanceOf(IOException.class);
    Path link =
        Files.createSymbolicLink(tmp.resolve("link"), Files.createDirectory(tmp.resolve("t")));
    assertThatThrownBy(() -> SpillFolder.ensure(link)).isInstanceOf(IOException.class);
  }
}
