package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileType;
import io.strata.core.proto.PosixAttributes;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The POSIX surface of a local folder: types, links, special files, numeric owners, times. */
class LocalPosixTest {
  @TempDir Path root;
  @TempDir Path outside;
  private LocalUnderFileSystem ufs;

  @BeforeEach
  void open() {
    ufs = new LocalUnderFileSystem(root);
  }

  private static StrataPath p(String s) {
    return StrataPath.of(s);
  }

  private PosixAttributes posix(String path) {
    return ufs.getStatus(p(path)).posix();
  }

  private static StatusCode codeOf(Runnable r) {
    try {
      r.run();
      return StatusCode.OK;
    } catch (StrataException e) {
      return e.code();
    }
  }

  @Test
  void aSymlink_keepsItsTargetByteForByte_andIsDescribedNotFollowed() throws IOException {
    Files.writeString(outside.resolve("secret"), "no");
    ufs.createSymlink(p("/l"), "a//b/../" + outside.resolve("secret"));

    PosixAttributes l = posix("/l");
    assertThat(l.getType()).isEqualTo(FileType.SYMLINK);
    assertThat(l.getSymlinkTarget()).isEqualTo("a//b/../" + outside.resolve("secret"));
    assertThat(ufs.getStatus(p("/l")).length()).isEqualTo(l.getSymlinkTarget().length());
    // Not followed even to look whether it leads anywhere: where it leads may be outside the root.
    assertThat(codeOf(() -> ufs.openReader(p("/l")))).isEqualTo(StatusCode.INVALID_ARGUMENT);
    ufs.createSymlink(p("/out"), outside.resolve("secret").toString());
    assertThatThrownBy(() -> ufs.openReader(p("/out")))
        .hasMessage(
            "/out is a symbolic link to " + outside.resolve("secret") + ": read its target");
    // Reading through a link is refused: its status is the link's, not its target's.
    Files.writeString(root.resolve("f"), "x");
    ufs.createSymlink(p("/l2"), "f");
    assertThat(codeOf(() -> ufs.openReader(p("/l2")))).isEqualTo(StatusCode.INVALID_ARGUMENT);
    ufs.delete(p("/l"), false);
    assertThat(outside.resolve("secret")).exists();
  }

  @Test
  void aLinkOutOfTheRoot_canBeLookedAtAndRemoved_butNotListedThrough() throws IOException {
    Files.createSymbolicLink(root.resolve("out"), outside);

    assertThat(posix("/out").getType()).isEqualTo(FileType.SYMLINK);
    assertThat(codeOf(() -> ufs.list(p("/out")).close())).isEqualTo(StatusCode.PERMISSION_DENIED);
    assertThat(codeOf(() -> ufs.getStatus(p("/out/x")))).isEqualTo(StatusCode.PERMISSION_DENIED);
    ufs.rename(p("/out"), p("/out2"));
    ufs.delete(p("/out2"), false);
    assertThat(outside).exists();
  }

  @Test
  void aHardLink_isTheSameInode_andItsCountShows() throws IOException {
    Files.writeString(root.resolve("a"), "x");
    ufs.createHardLink(p("/a"), p("/b"));

    assertThat(posix("/b").getInode()).isEqualTo(posix("/a").getInode());
    assertThat(posix("/a").getNlink()).isEqualTo(2);
    Files.createDirectory(root.resolve("d"));
    assertThat(codeOf(() -> ufs.createHardLink(p("/d"), p("/e"))))
        .isEqualTo(StatusCode.NOT_PERMITTED);
    assertThat(codeOf(() -> ufs.createHardLink(p("/none"), p("/f"))))
        .isEqualTo(StatusCode.NOT_FOUND);
  }

  @Test
  void fifos_andSockets_areMade_andNeverOpenedForReading() {
    ufs.createSpecial(p("/fifo"), FileType.FIFO, 0640, 0);
    ufs.createSpecial(p("/sock"), FileType.SOCKET, 0600, 0);

    assertThat(posix("/fifo").getType()).isEqualTo(FileType.FIFO);
    assertThat(posix("/fifo").getMode()).isEqualTo(0640);
    assertThat(posix("/sock").getType()).isEqualTo(FileType.SOCKET);
    // Opening a FIFO would block until a writer came.
    assertThat(codeOf(() -> ufs.openReader(p("/fifo")))).isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(codeOf(() -> ufs.createSpecial(p("/fifo"), FileType.FIFO, 0640, 0)))
        .isEqualTo(StatusCode.ALREADY_EXISTS);
  }

  @Test
  void modes_keepTheSetgidAndStickyBits() throws IOException {
    Files.createDirectory(root.resolve("d"));
    ufs.setAttributes(p("/d"), 03775, "", "");
    assertThat(posix("/d").getMode()).isEqualTo(03775);
    assertThat(ufs.getStatus(p("/d")).mode()).isEqualTo(0775);
  }

  @Test
  void times_takeNanoseconds_andOmitLeavesOneAsItWas() throws IOException {
    Files.writeString(root.resolve("t"), "x");
    String before = ufs.getStatus(p("/t")).fingerprint();
    long atime = 981_173_106_123_456_789L;
    long mtime = 1_000_000_000_987_654_321L;

    ufs.setTimes(p("/t"), atime, mtime);
    assertThat(posix("/t").getAtimeNs()).isEqualTo(atime);
    assertThat(posix("/t").getMtimeNs()).isEqualTo(mtime);
    assertThat(ufs.getStatus(p("/t")).fingerprint()).as("a new version").isNotEqualTo(before);

    ufs.setTimes(p("/t"), UnderFileSystem.TIME_OMIT, UnderFileSystem.TIME_NOW);
    assertThat(posix("/t").getAtimeNs()).isEqualTo(atime);
    assertThat(posix("/t").getMtimeNs()).isGreaterThan(mtime);
  }

  @Test
  void numericOwners_areSetOnTheEntryItself() throws IOException {
    assumeTrue(
        "root".equals(System.getProperty("user.name")), "changing owners needs root: skipped");
    Files.writeString(root.resolve("o"), "x");
    ufs.createSymlink(p("/l"), "o");

    ufs.setOwnerIds(p("/l"), 65534, 65533);
    assertThat(posix("/l").getUid()).isEqualTo(65534);
    assertThat(posix("/l").getGid()).isEqualTo(65533);
    assertThat(posix("/o").getUid()).as("the target is not followed").isZero();
    ufs.setOwnerIds(p("/o"), -1, 65533);
    assertThat(posix("/o").getUid()).isZero();
    assertThat(posix("/o").getGid()).isEqualTo(65533);
  }

  @Test
  void renameReplacing_replacesAFileOrAnEmptyFolder_inOneStep() throws IOException {
    Files.writeString(root.resolve("new"), "new");
    Files.writeString(root.resolve("old"), "old");
    ufs.renameReplacing(p("/new"), p("/old"));
    assertThat(Files.readString(root.resolve("old"))).isEqualTo("new");

    Files.createDirectories(root.resolve("d1/x"));
    Files.createDirectory(root.resolve("d2"));
    ufs.renameReplacing(p("/d1"), p("/d2"));
    assertThat(root.resolve("d2/x")).isDirectory();

    Files.createDirectories(root.resolve("d3/y"));
    assertThat(codeOf(() -> ufs.renameReplacing(p("/d3"), p("/d2"))))
        .isEqualTo(StatusCode.DIRECTORY_NOT_EMPTY);
    assertThat(codeOf(() -> ufs.renameReplacing(p("/old"), p("/d2"))))
        .isEqualTo(StatusCode.IS_A_DIRECTORY);
    assertThat(codeOf(() -> ufs.rename(p("/d3"), p("/old")))).isEqualTo(StatusCode.ALREADY_EXISTS);
  }

  @Test
  void theFingerprint_isTheOneReadersCompare() throws IOException {
    Files.writeString(root.resolve("f"), "bytes");
    BasicFileAttributes a =
        Files.readAttributes(
            root.resolve("f"), BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    assertThat(ufs.getStatus(p("/f")).fingerprint())
        .isEqualTo(
            a.size() + ":" + a.lastModifiedTime().to(TimeUnit.NANOSECONDS) + ":" + a.fileKey());
  }
}
