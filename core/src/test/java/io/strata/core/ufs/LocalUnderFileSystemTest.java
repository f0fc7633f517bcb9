package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

class LocalUnderFileSystemTest {
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

  private void write(String path, String text, boolean overwrite) throws IOException {
    try (UfsOutputStream out = ufs.create(p(path), new CreateOptions(overwrite, true, 0))) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static StatusCode codeOf(Runnable r) {
    try {
      r.run();
      return StatusCode.OK;
    } catch (StrataException e) {
      return e.code();
    }
  }

  /** A reader's hint puts the bytes it names in the page cache, ahead of the reads. */
  @Test
  void readersHint_startsReadingTheBytesAhead() throws Exception {
    byte[] bytes = randomBytes(4 << 20);
    Path file = Files.write(root.resolve("ahead.bin"), bytes);
    MappedByteBuffer view = outOfThePageCache(file);
    try (UfsReader reader = ufs.openReader(p("/ahead.bin"))) {
      reader.willNeed(0, bytes.length);
      await().atMost(Duration.ofSeconds(10)).until(view::isLoaded);
      ByteBuffer got = ByteBuffer.allocate(bytes.length);
      assertThat(reader.readFully(0, got)).isEqualTo(bytes.length);
      assertThat(got.array()).isEqualTo(bytes);
    }
  }

  /** A hint by path does the same, and neither waits on a FIFO nor fails on a missing file. */
  @Test
  void hintByPath_startsReadingTheFile_andNeverWaitsNorFails() throws Exception {
    Path file = Files.write(root.resolve("small.bin"), randomBytes(100 << 10));
    MappedByteBuffer view = outOfThePageCache(file);
    ufs.willNeed(p("/small.bin"), Files.size(file));
    await().atMost(Duration.ofSeconds(10)).until(view::isLoaded);

    PosixCalls.mknod(root.resolve("fifo"), PosixCalls.S_IFIFO | 0644, 0);
    ufs.willNeed(p("/fifo"), 4096);
    ufs.willNeed(p("/missing"), 4096);
  }

  private static byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    new Random(5).nextBytes(bytes);
    return bytes;
  }

  /** A view of {@code file} whose pages were just dropped from the page cache (skips if kept). */
  private static MappedByteBuffer outOfThePageCache(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file)) {
      ch.force(true);
      MappedByteBuffer view = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
      int fd = PosixCalls.openForAdvice(file);
      assertThat(fd).isNotNegative();
      try {
        // POSIX_FADV_DONTNEED, which a file system kept in memory (tmpfs) ignores.
        LibraryLoader.create(PosixCalls.LibC.class).load("c").posix_fadvise(fd, 0, ch.size(), 4);
      } finally {
        PosixCalls.close(fd);
      }
      assumeThat(view.isLoaded()).as("this file system drops clean pages when told").isFalse();
      return view;
    }
  }

  @Test
  void setAttributes_changesModeAndOwner_butNotTheFingerprint() throws IOException {
    write("/f", "bytes", false);
    UfsStatus before = ufs.getStatus(p("/f"));
    ufs.setAttributes(p("/f"), 0640, "", "");
    UfsStatus after = ufs.getStatus(p("/f"));
    org.assertj.core.api.Assertions.assertThat(after.mode()).isEqualTo(0640);
    org.assertj.core.api.Assertions.assertThat(after.fingerprint())
        .as("pages stay valid")
        .isEqualTo(before.fingerprint());
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ufs.setAttributes(p("/f"), -1, "no-such-user-x", ""))
        .hasMessageContaining("no user no-such-user-x");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ufs.setAttributes(p("/missing"), 0600, "", ""))
        .hasMessageContaining("does not exist");
    if ("root".equals(System.getProperty("user.name"))) {
      ufs.setAttributes(p("/f"), -1, "nobody", "nogroup");
      org.assertj.core.api.Assertions.assertThat(ufs.getStatus(p("/f")).owner())
          .isEqualTo("nobody");
      org.assertj.core.api.Assertions.assertThat(ufs.getStatus(p("/f")).group())
          .isEqualTo("nogroup");
    }
  }

  @Test
  void create_thenStatusListAndRead() throws IOException {
    write("/a/b.txt", "hello", false);
    UfsStatus s = ufs.getStatus(p("/a/b.txt"));
    assertThat(s.name()).isEqualTo("b.txt");
    assertThat(s.directory()).isFalse();
    assertThat(s.length()).isEqualTo(5);
    assertThat(s.mtimeMs()).isPositive();
    assertThat(s.owner()).isNotEmpty();
    assertThat(s.group()).isNotEmpty();
    assertThat(s.mode() & 0400).isNotZero();
    try (Stream<UfsStatus> children = ufs.list(p("/a"))) {
      assertThat(children.map(UfsStatus::name)).containsExactly("b.txt");
    }
    try (UfsReader r = ufs.openReader(p("/a/b.txt"))) {
      ByteBuffer buf = ByteBuffer.allocate(10);
      assertThat(r.readFully(1, buf)).isEqualTo(4);
      assertThat(new String(buf.array(), 0, 4, StandardCharsets.UTF_8)).isEqualTo("ello");
      assertThat(r.currentFingerprint()).isEqualTo(s.fingerprint());
    }
  }

  @Test
  void create_isInvisibleUntilClose_andAbortLeavesNothing() throws IOException {
    UfsOutputStream out = ufs.create(p("/f"), CreateOptions.DEFAULT);
    out.write(new byte[100]);
    assertThat(Files.exists(root.resolve("f"))).isFalse();
    try (Stream<UfsStatus> children = ufs.list(StrataPath.ROOT)) {
      assertThat(children).isEmpty();
    }
    out.abort();
    try (Stream<Path> files = Files.list(root)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void create_leavesNothingBeforeItsFirstByte_soItsTokenCanBeNotedFirst() throws IOException {
    UfsOutputStream empty = ufs.create(p("/d/empty"), CreateOptions.DEFAULT);
    UfsOutputStream dropped = ufs.create(p("/d/dropped"), CreateOptions.DEFAULT);
    try (Stream<Path> files = Files.list(root.resolve("d"))) {
      assertThat(files).as("a write that has had no byte yet").isEmpty();
    }
    dropped.abort();
    empty.close();
    assertThat(empty.published().length()).isZero();
    try (Stream<Path> files = Files.list(root.resolve("d"))) {
      assertThat(files).containsExactly(root.resolve("d/empty"));
    }
  }

  @Test
  void create_existingWithoutOverwrite_isRefused_withOverwriteReplaces() throws IOException {
    write("/f", "one", false);
    assertThatThrownBy(() -> write("/f", "two", false))
        .isInstanceOfSatisfying(
            StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.ALREADY_EXISTS));
    String before = ufs.getStatus(p("/f")).fingerprint();
    write("/f", "three", true);
    assertThat(Files.readString(root.resolve("f"))).isEqualTo("three");
    assertThat(ufs.getStatus(p("/f")).fingerprint()).isNotEqualTo(before);
  }

  @Test
  void missingPaths_areNotFound() {
    assertThat(codeOf(() -> ufs.getStatus(p("/nope")))).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(codeOf(() -> ufs.openReader(p("/nope")))).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(codeOf(() -> ufs.list(p("/nope")))).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(codeOf(() -> ufs.delete(p("/nope"), false))).isEqualTo(StatusCode.NOT_FOUND);
  }

  @Test
  void delete_nonEmptyDirectory_needsRecursive() throws IOException {
    write("/d/e/f", "x", false);
    assertThat(codeOf(() -> ufs.delete(p("/d"), false))).isEqualTo(StatusCode.DIRECTORY_NOT_EMPTY);
    ufs.delete(p("/d"), true);
    assertThat(Files.exists(root.resolve("d"))).isFalse();
    assertThat(codeOf(() -> ufs.delete(StrataPath.ROOT, true)))
        .isEqualTo(StatusCode.PERMISSION_DENIED);
  }

  @Test
  void rename_refusesExistingTargetAndMovesIntoItself() throws IOException {
    write("/a", "1", false);
    write("/b", "2", false);
    assertThat(codeOf(() -> ufs.rename(p("/a"), p("/b")))).isEqualTo(StatusCode.ALREADY_EXISTS);
    ufs.mkdirs(p("/dir"), false);
    assertThat(codeOf(() -> ufs.rename(p("/dir"), p("/dir/sub"))))
        .isEqualTo(StatusCode.INVALID_ARGUMENT);
    ufs.rename(p("/a"), p("/dir/a"));
    assertThat(Files.readString(root.resolve("dir/a"))).isEqualTo("1");
  }

  @Test
  void mkdirs_withoutParents_needsParent() {
    assertThat(codeOf(() -> ufs.mkdirs(p("/x/y"), false))).isEqualTo(StatusCode.NOT_FOUND);
    ufs.mkdirs(p("/x/y"), true);
    assertThat(ufs.getStatus(p("/x/y")).directory()).isTrue();
    assertThat(codeOf(() -> ufs.mkdirs(p("/x/y"), true))).isEqualTo(StatusCode.ALREADY_EXISTS);
    assertThat(codeOf(() -> ufs.list(p("/x/y/../y")))).isEqualTo(StatusCode.OK);
  }

  /** Issue 54: the temporary file was 0644 until close; an overwrite with mode 0 reset 0600. */
  @Test
  void aFileBeingWritten_isOwnerOnly_andAnOverwriteKeepsTheOldMode() throws IOException {
    try (UfsOutputStream out = ufs.create(p("/new"), new CreateOptions(false, true, 0))) {
      out.write("secret".getBytes(StandardCharsets.UTF_8));
      try (Stream<Path> files = Files.list(root)) {
        Path temp = files.filter(f -> !f.getFileName().toString().equals("new")).findFirst().get();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(temp)))
            .isEqualTo("rw-------");
      }
    }
    assertThat((int) Files.getAttribute(root.resolve("new"), "unix:mode") & 0777)
        .as("a new file's mode comes from the umask")
        .isEqualTo(0666 & ~Umask.current());
    Files.setPosixFilePermissions(
        root.resolve("new"), PosixFilePermissions.fromString("rw-------"));
    write("/new", "rewritten", true);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(root.resolve("new"))))
        .isEqualTo("rw-------");
  }

  /** The root's descriptor is held: a root folder recreated under its name is found again. */
  @Test
  void aRootRecreatedUnderItsName_isUsedAgain() throws IOException {
    Files.createDirectories(root.resolve("d"));
    write("/d/f", "old", false);
    assertThat(ufs.getStatus(p("/d/f")).length()).isEqualTo(3);
    DeadWriters.deleteTree(root);
    Files.createDirectories(root.resolve("d"));
    Files.writeString(root.resolve("d/f"), "new!");
    assertThat(ufs.getStatus(p("/d/f")).length()).isEqualTo(4);
    write("/d/g", "x", false);
    assertThat(root.resolve("d/g")).exists();
  }

  @Test
  void symlinkOutOfTheRoot_isRefused() throws IOException {
    Files.writeString(outside.resolve("secret"), "secret");
    Files.createSymbolicLink(root.resolve("escape"), outside);
    assertThat(codeOf(() -> ufs.openReader(p("/escape/secret"))))
        .isEqualTo(StatusCode.PERMISSION_DENIED);
    assertThat(codeOf(() -> ufs.create(p("/escape/new"), CreateOptions.DEFAULT)))
        .isEqualTo(StatusCode.PERMISSION_DENIED);
    assertThat(Files.exists(outside.resolve("new"))).isFalse();
  }

  @Test
  void factory_acceptsFoldersAndFileUris_refusesOtherSchemes() {
    assertThat(UfsFactory.normalize(root.toString()))
        .isEqualTo(root.toUri().toString().replaceAll("/$", ""));
    assertThat(UfsFactory.normalize("file://" + root))
        .isEqualTo(UfsFactory.normalize(root.toString()));
    assertThat(codeOf(() -> UfsFactory.open("gopher://x/y")))
        .isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(List.of(UfsFactory.open(root.toString()).uri())).containsExactly(ufs.uri());
  }

  @Test
  void aFileWrittenAnew_keepsItsUserAttributes_asATruncateAndWriteWould() throws IOException {
    write("/kept", "first", false);
    ufs.setXattr(p("/kept"), "user.origin", "camera-7".getBytes(StandardCharsets.UTF_8));
    write("/kept", "second", true);
    assertThat(Files.readString(root.resolve("kept"))).isEqualTo("second");
    assertThat(ufs.xattrs(p("/kept")).get("user.origin"))
        .isEqualTo("camera-7".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aSymbolicLink_hasNoUserAttributes_andRefusesThem() throws IOException {
    Files.createSymbolicLink(root.resolve("link"), Path.of("target"));
    assertThat(ufs.xattrs(p("/link"))).isEmpty();
    assertThat(codeOf(() -> ufs.setXattr(p("/link"), "user.a", new byte[1])))
        .isEqualTo(StatusCode.NOT_PERMITTED);
  }

  /**
   * Issue 78, high 4: a FIFO's attributes answer at once. The attribute view opened it for reading,
   * which waits for a writer: each call held a worker thread until restart.
   */
  @Test
  @Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aFifo_hasNoUserAttributes_andNoCallWaitsForAWriter() throws Exception {
    Process mkfifo = new ProcessBuilder("mkfifo", root.resolve("pipe").toString()).start();
    assertThat(mkfifo.waitFor()).isZero();
    assertThat(ufs.xattrs(p("/pipe"))).isEmpty();
    assertThat(codeOf(() -> ufs.setXattr(p("/pipe"), "user.a", new byte[1])))
        .isEqualTo(StatusCode.NOT_PERMITTED);
  }

  @Test
  void aName255BytesLong_isWritten_itsTemporaryNameFitting() throws IOException {
    String name = "n".repeat(255);
    write("/d/" + name, "long", false);
    assertThat(Files.readString(root.resolve("d").resolve(name))).isEqualTo("long");
  }

  @Test
  void aPublishedFile_namesItsOwnVersion_evenOnceAnotherWriterReplacedIt() throws IOException {
    UfsOutputStream out = ufs.create(p("/v"), new CreateOptions(true, true, 0));
    out.write("mine".getBytes(StandardCharsets.UTF_8));
    out.close();
    UfsStatus mine = out.published();
    assertThat(mine.fingerprint()).isEqualTo(ufs.getStatus(p("/v")).fingerprint());
    assertThat(mine.length()).isEqualTo(4);
    write("/v", "theirs!", true);
    assertThat(out.published().fingerprint()).isNotEqualTo(ufs.getStatus(p("/v")).fingerprint());
  }

  @Test
  void deadWritersTemporaries_goWhenTheirFolderIsListedOrDeleted_liveOnesStay() throws IOException {
    Path dir = Files.createDirectories(root.resolve("t"));
    Path dead = dir.resolve(".strata-x.1.tmp");
    Path live = dir.resolve(".strata-y.2.tmp");
    Files.writeString(dead, "half");
    Files.writeString(live, "half");
    Files.setLastModifiedTime(dead, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
    try (Stream<UfsStatus> children = ufs.list(p("/t"))) {
      assertThat(children).isEmpty();
    }
    assertThat(dead).doesNotExist();
    assertThat(live).exists();
    assertThatThrownBy(() -> ufs.delete(p("/t"), false))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> {
              assertThat(e.code()).isEqualTo(StatusCode.DIRECTORY_NOT_EMPTY);
              assertThat(e.getMessage()).contains("being written");
            });
    Files.setLastModifiedTime(live, FileTime.from(Instant.now().minus(Duration.ofHours(2))));
    ufs.delete(p("/t"), false);
    assertThat(dir).doesNotExist();
  }

  /**
   * Issue 54: an in-place write closed after another writer renamed a new file over its file took
   * that file's status, so its bytes were cached under the other version's fingerprint.
   */
  @Test
  void anInPlaceWrite_whoseFileWasReplacedMeanwhile_publishesNothing() throws IOException {
    write("/db", "first", false);
    UfsOutputStream out =
        ufs.create(p("/db"), new CreateOptions(true, false, 0, true, -1, -1, true, -1));
    out.write("mine".getBytes(StandardCharsets.UTF_8));
    Files.writeString(root.resolve("other"), "theirs");
    Files.move(
        root.resolve("other"), root.resolve("db"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    assertThat(
            codeOf(
                () -> {
                  try {
                    out.close();
                  } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                }))
        .isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(Files.readString(root.resolve("db"))).isEqualTo("theirs");
  }

  @Test
  void anInPlaceRewrite_keepsTheFileItself_itsInodeLinksAndMode() throws IOException {
    write("/db", "the first, longer version", false);
    Files.createLink(root.resolve("db.link"), root.resolve("db"));
    ufs.setAttributes(p("/db"), 0600, "", "");
    Object inode = Files.getAttribute(root.resolve("db"), "unix:ino");
    String before = ufs.getStatus(p("/db")).fingerprint();

    UfsOutputStream out =
        ufs.create(p("/db"), new CreateOptions(true, false, 0, true, -1, -1, true, -1));
    ufs.discard(out.token());
    out.write("second".getBytes(StandardCharsets.UTF_8));
    out.close();

    assertThat(Files.readString(root.resolve("db"))).isEqualTo("second");
    assertThat(Files.readString(root.resolve("db.link"))).isEqualTo("second");
    assertThat(Files.getAttribute(root.resolve("db"), "unix:ino")).isEqualTo(inode);
    assertThat(Files.getAttribute(root.resolve("db"), "unix:mode")).isEqualTo(0100600);
    assertThat(out.published().fingerprint())
        .isNotEqualTo(before)
        .isEqualTo(ufs.getStatus(p("/db")).fingerprint());
    // A file that is not there is made whole, as any write.
    try (UfsOutputStream fresh =
        ufs.create(p("/new"), new CreateOptions(true, false, 0, true, -1, -1, true, -1))) {
      fresh.write(1);
    }
    assertThat(root.resolve("new")).hasSize(1);
  }
}
