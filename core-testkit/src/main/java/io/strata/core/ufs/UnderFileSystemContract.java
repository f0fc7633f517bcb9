package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every under-storage does alike, run against each (a local folder, S3 and HDFS): statuses,
 * listings (large ones across pages), nested folders, ranged reads, writes that appear whole on
 * close, renames, deletes and the errors they answer with.
 */
public abstract class UnderFileSystemContract {
  protected UnderFileSystem ufs;

  /** A fresh, empty under-storage. */
  protected abstract UnderFileSystem open() throws Exception;

  /** Puts bytes at {@code path} straight into the store, as another program would. */
  protected abstract void putBehindStrata(String path, byte[] bytes) throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    ufs = open();
  }

  @AfterEach
  void closeStore() {
    ufs.close();
  }

  protected static StrataPath p(String s) {
    return StrataPath.of(s);
  }

  protected void write(String path, byte[] bytes) throws IOException {
    try (UfsOutputStream out = ufs.create(p(path), new CreateOptions(true, true, 0))) {
      out.write(bytes);
    }
  }

  protected static byte[] text(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  protected static StatusCode codeOf(Runnable r) {
    try {
      r.run();
      return StatusCode.OK;
    } catch (StrataException e) {
      return e.code();
    }
  }

  private List<String> names(String folder) {
    try (Stream<UfsStatus> children = ufs.list(p(folder))) {
      return children.map(s -> s.name() + (s.directory() ? "/" : "")).sorted().toList();
    }
  }

  private byte[] read(String path, long at, int n) throws IOException {
    try (UfsReader r = ufs.openReader(p(path))) {
      ByteBuffer b = ByteBuffer.allocate(n);
      int got = r.readFully(at, b);
      return Arrays.copyOf(b.array(), got);
    }
  }

  @Test
  void xattrs_ofTheUserNamespace_areSetReadAndRemoved() throws IOException {
    write("/x/f", text("bytes"));
    assertThat(ufs.xattrs(p("/x/f"))).isEmpty();
    ufs.setXattr(p("/x/f"), "user.a", text("hello"));
    ufs.setXattr(p("/x/f"), "user.b", new byte[0]);
    ufs.setXattr(p("/x"), "user.folder", text("yes"));
    assertThat(ufs.xattrs(p("/x/f"))).containsOnlyKeys("user.a", "user.b");
    assertThat(ufs.xattrs(p("/x/f")).get("user.a")).isEqualTo(text("hello"));
    assertThat(ufs.xattrs(p("/x/f")).get("user.b")).isEmpty();
    assertThat(ufs.xattrs(p("/x")).get("user.folder")).isEqualTo(text("yes"));
    ufs.setXattr(p("/x/f"), "user.a", null);
    assertThat(ufs.xattrs(p("/x/f"))).containsOnlyKeys("user.b");
    assertThat(read("/x/f", 0, 5)).as("the bytes stay").isEqualTo(text("bytes"));
    assertThat(codeOf(() -> ufs.xattrs(p("/x/nope")))).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(codeOf(() -> ufs.setXattr(p("/x/nope"), "user.a", text("v"))))
        .isEqualTo(StatusCode.NOT_FOUND);
  }

  @Test
  void xattrs_stayWhenAFileIsWrittenAnew() throws IOException {
    write("/x/f", text("first"));
    ufs.setXattr(p("/x/f"), "user.a", text("kept"));
    write("/x/f", text("second version"));
    assertThat(read("/x/f", 0, 14)).isEqualTo(text("second version"));
    assertThat(ufs.xattrs(p("/x/f"))).containsOnlyKeys("user.a");
    assertThat(ufs.xattrs(p("/x/f")).get("user.a")).isEqualTo(text("kept"));
    write("/x/g", text("new"));
    assertThat(ufs.xattrs(p("/x/g"))).as("a new file starts without").isEmpty();
  }

  @Test
  void status_ofFilesFoldersAndTheRoot() throws IOException {
    write("/a/b/file.txt", text("hello"));
    UfsStatus file = ufs.getStatus(p("/a/b/file.txt"));
    assertThat(file.directory()).isFalse();
    assertThat(file.length()).isEqualTo(5);
    assertThat(file.name()).isEqualTo("file.txt");
    assertThat(file.fingerprint()).isNotEmpty();
    assertThat(ufs.getStatus(p("/a")).directory()).isTrue();
    assertThat(ufs.getStatus(p("/a/b")).directory()).isTrue();
    assertThat(ufs.getStatus(StrataPath.ROOT).directory()).isTrue();
    assertThat(codeOf(() -> ufs.getStatus(p("/a/missing")))).isEqualTo(StatusCode.NOT_FOUND);
  }

  /**
   * A listing fills the statuses clients cache (ls -l, a FUSE look-up after readdir): a file must
   * not show one mode or time in its folder's listing and another when looked up alone. A store
   * whose listings leave attributes out says so, and its listing still names the same bytes.
   */
  @Test
  void aFileInItsFoldersListing_readsAsItsOwnStatus() throws IOException {
    write("/attrs/plain.txt", text("as written"));
    write("/attrs/f.txt", text("attributes"));
    ufs.setAttributes(p("/attrs/f.txt"), 0600, "", "");
    ufs.setModificationTime(p("/attrs/f.txt"), 946_684_800_123L);
    Map<String, UfsStatus> listed;
    try (Stream<UfsStatus> children = ufs.list(p("/attrs"))) {
      listed = children.collect(Collectors.toMap(UfsStatus::name, c -> c));
    }
    assertThat(listed.get("plain.txt")).isEqualTo(ufs.getStatus(p("/attrs/plain.txt")));
    UfsStatus alone = ufs.getStatus(p("/attrs/f.txt"));
    assertThat(alone.mode() & 0777).isEqualTo(0600);
    if (ufs.listsAttributes()) {
      assertThat(listed.get("f.txt")).isEqualTo(alone);
    } else {
      assertThat(listed.get("f.txt"))
          .extracting(UfsStatus::directory, UfsStatus::length, UfsStatus::fingerprint)
          .containsExactly(alone.directory(), alone.length(), alone.fingerprint());
    }
  }

  @Test
  void list_showsChildrenOnce_filesAndFolders_atEveryDepth() throws IOException {
    write("/d/x.bin", new byte[3]);
    write("/d/sub/y.bin", new byte[4]);
    write("/d/sub/deeper/z.bin", new byte[5]);
    ufs.mkdirs(p("/d/empty"), false);
    assertThat(names("/d")).containsExactly("empty/", "sub/", "x.bin");
    assertThat(names("/d/sub")).containsExactly("deeper/", "y.bin");
    assertThat(names("/d/empty")).isEmpty();
    assertThat(names("/")).containsExactly("d/");
    assertThat(codeOf(() -> names("/d/x.bin"))).isEqualTo(StatusCode.NOT_A_DIRECTORY);
    assertThat(codeOf(() -> names("/nowhere"))).isEqualTo(StatusCode.NOT_FOUND);
  }

  @Test
  void list_ofTenThousandEntries_isWhole() throws Exception {
    int n = 10_000;
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> puts = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String path = String.format("/many/f%05d", i);
        puts.add(
            pool.submit(
                () -> {
                  // Empty: the listing is what is checked, and a file with bytes costs an HDFS
                  // block write each (52 s for the 10,000 on MiniDFSCluster, 20 s empty).
                  putBehindStrata(path, new byte[0]);
                  return null;
                }));
      }
      for (Future<?> f : puts) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    try (Stream<UfsStatus> children = ufs.list(p("/many"))) {
      List<String> listed = children.map(UfsStatus::name).sorted().toList();
      assertThat(listed).hasSize(n).doesNotHaveDuplicates();
      assertThat(listed.get(0)).isEqualTo("f00000");
      assertThat(listed.get(n - 1)).isEqualTo("f09999");
    }
    if (UfsFactory.listsFlat(ufs.uri())) {
      assertThat(filesPageByPage("/many", 1000)).hasSize(n).doesNotHaveDuplicates().isSorted();
    }
  }

  /** Every file of the tree under {@code dir}, asked {@code page} at a time. */
  private List<String> filesPageByPage(String dir, int page) {
    List<String> all = new ArrayList<>();
    for (int calls = 0; calls < 100_000; calls++) {
      String after = all.isEmpty() ? "" : all.get(all.size() - 1);
      List<UfsStatus> files = ufs.listFiles(p(dir), after, page);
      assertThat(files).hasSizeLessThanOrEqualTo(page);
      files.forEach(f -> all.add(f.name()));
      if (files.size() < page) {
        return all;
      }
    }
    throw new AssertionError("the listing of " + dir + " never ended");
  }

  @Test
  void listFiles_ofATree_isEveryFileOnce_inKeyOrder_pageByPage() throws IOException {
    if (!UfsFactory.listsFlat(ufs.uri())) {
      assertThat(codeOf(() -> ufs.listFiles(p("/"), "", 10)))
          .isEqualTo(StatusCode.FAILED_PRECONDITION);
      return;
    }
    write("/t/a/x", text("1"));
    write("/t/a/b/y", text("22"));
    write("/t/a.txt", text("333"));
    write("/t/c/d/e/z", text("4444"));
    write("/elsewhere", text("5"));
    ufs.mkdirs(p("/t/empty"), false);
    // Key order: "a.txt" before "a/..." ('.' sorts before '/'); folders and their markers left out.
    List<String> order = List.of("a.txt", "a/b/y", "a/x", "c/d/e/z");
    for (int page : new int[] {1, 2, 3, 1000}) {
      assertThat(filesPageByPage("/t", page)).as("pages of " + page).isEqualTo(order);
    }
    List<UfsStatus> files = ufs.listFiles(p("/t"), "a/b/y", 1000);
    assertThat(files).extracting(UfsStatus::name).containsExactly("a/x", "c/d/e/z");
    UfsStatus z = files.get(1);
    assertThat(z.length()).isEqualTo(4);
    assertThat(z.fingerprint()).isEqualTo(ufs.getStatus(p("/t/c/d/e/z")).fingerprint());
    assertThat(filesPageByPage("/t/a", 10)).containsExactly("b/y", "x");
    assertThat(filesPageByPage("/", 10))
        .containsExactly("elsewhere", "t/a.txt", "t/a/b/y", "t/a/x", "t/c/d/e/z");
    assertThat(filesPageByPage("/nowhere", 10)).isEmpty();
  }

  @Test
  void readFully_ofRanges_shortOnlyAtTheEnd() throws IOException {
    byte[] data = new byte[3 << 20];
    new Random(7).nextBytes(data);
    write("/r/data.bin", data);
    assertThat(read("/r/data.bin", 0, 100)).isEqualTo(Arrays.copyOf(data, 100));
    assertThat(read("/r/data.bin", 1_000_001, 1 << 20))
        .isEqualTo(Arrays.copyOfRange(data, 1_000_001, 1_000_001 + (1 << 20)));
    assertThat(read("/r/data.bin", data.length - 10, 4096))
        .isEqualTo(Arrays.copyOfRange(data, data.length - 10, data.length));
    assertThat(read("/r/data.bin", data.length, 10)).isEmpty();
    try (UfsReader r = ufs.openReader(p("/r/data.bin"))) {
      assertThat(r.length()).isEqualTo(data.length);
      assertThat(r.currentFingerprint()).isEqualTo(ufs.getStatus(p("/r/data.bin")).fingerprint());
    }
    assertThat(codeOf(() -> ufs.openReader(p("/r")))).isEqualTo(StatusCode.IS_A_DIRECTORY);
    assertThat(codeOf(() -> ufs.openReader(p("/r/none")))).isEqualTo(StatusCode.NOT_FOUND);
  }

  @Test
  void readFully_intoSeveralBuffers_fillsEachInTurn_andStopsAtTheEnd() throws IOException {
    byte[] data = new byte[(3 << 20) + 5];
    new Random(11).nextBytes(data);
    write("/r/run.bin", data);
    String version = ufs.getStatus(p("/r/run.bin")).fingerprint();
    try (UfsReader r = ufs.openVersion(p("/r/run.bin"), version)) {
      ByteBuffer[] pages = {
        ByteBuffer.allocateDirect(1 << 20),
        ByteBuffer.allocate(1 << 20),
        ByteBuffer.allocateDirect(7)
      };
      assertThat(r.readFully(1000, pages)).isEqualTo((2 << 20) + 7);
      assertThat(bytesOf(pages[0])).isEqualTo(Arrays.copyOfRange(data, 1000, 1000 + (1 << 20)));
      assertThat(bytesOf(pages[1]))
          .isEqualTo(Arrays.copyOfRange(data, 1000 + (1 << 20), 1000 + (2 << 20)));
      assertThat(bytesOf(pages[2]))
          .isEqualTo(Arrays.copyOfRange(data, 1000 + (2 << 20), 1007 + (2 << 20)));

      ByteBuffer[] pastTheEnd = {ByteBuffer.allocate(1 << 20), ByteBuffer.allocate(1 << 20)};
      int from = data.length - 10;
      assertThat(r.readFully(from, pastTheEnd)).isEqualTo(10);
      assertThat(bytesOf(pastTheEnd[0])).isEqualTo(Arrays.copyOfRange(data, from, data.length));
      assertThat(pastTheEnd[1].position()).isZero();
      assertThat(r.currentFingerprint()).isEqualTo(version);
    }
  }

  private static byte[] bytesOf(ByteBuffer filled) {
    ByteBuffer b = filled.duplicate().flip();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Test
  void aLargeFile_isWrittenWhole() throws IOException {
    byte[] data = new byte[11 << 20];
    new Random(11).nextBytes(data);
    try (UfsOutputStream out = ufs.create(p("/big.bin"), new CreateOptions(false, true, 0))) {
      for (int at = 0; at < data.length; at += 777_777) {
        out.write(data, at, Math.min(777_777, data.length - at));
      }
    }
    assertThat(ufs.getStatus(p("/big.bin")).length()).isEqualTo(data.length);
    assertThat(read("/big.bin", 0, data.length)).isEqualTo(data);
  }

  @Test
  void create_isInvisibleUntilClose_andAbortLeavesNothing() throws IOException {
    UfsOutputStream out = ufs.create(p("/w/new.txt"), new CreateOptions(false, true, 0));
    out.write(text("not yet"));
    assertThat(codeOf(() -> ufs.getStatus(p("/w/new.txt")))).isEqualTo(StatusCode.NOT_FOUND);
    out.abort();
    assertThat(codeOf(() -> ufs.getStatus(p("/w/new.txt")))).isEqualTo(StatusCode.NOT_FOUND);
    try (UfsOutputStream done = ufs.create(p("/w/new.txt"), new CreateOptions(false, true, 0))) {
      done.write(text("now"));
    }
    assertThat(read("/w/new.txt", 0, 10)).isEqualTo(text("now"));
    assertThat(names("/w")).containsExactly("new.txt");
  }

  @Test
  void create_ofAnExistingFile_needsOverwrite_andReplacingChangesTheFingerprint()
      throws IOException {
    write("/o.txt", text("one"));
    String first = ufs.getStatus(p("/o.txt")).fingerprint();
    assertThat(codeOf(() -> ufs.create(p("/o.txt"), new CreateOptions(false, true, 0))))
        .isEqualTo(StatusCode.ALREADY_EXISTS);
    UfsOutputStream out = ufs.create(p("/o.txt"), new CreateOptions(true, true, 0));
    out.write(text("two!"));
    out.close();
    UfsStatus now = ufs.getStatus(p("/o.txt"));
    assertThat(now.fingerprint()).isNotEqualTo(first).isEqualTo(out.published().fingerprint());
    assertThat(read("/o.txt", 0, 10)).isEqualTo(text("two!"));
  }

  @Test
  void aReaderOfAReplacedFile_getsItsOwnVersionOrAnError_neverTheNewBytes() throws Exception {
    write("/v.txt", text("version one"));
    try (UfsReader r = ufs.openReader(p("/v.txt"))) {
      putBehindStrata("/v.txt", text("VERSION TWO"));
      ByteBuffer b = ByteBuffer.allocate(11);
      try {
        r.readFully(0, b);
        assertThat(b.array()).isEqualTo(text("version one"));
      } catch (StrataException e) {
        assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
      }
    }
  }

  @Test
  void openVersion_readsThatVersion_andAnotherVersionsBytesAreNeverTakenForIt() throws Exception {
    write("/ver.txt", text("first version"));
    String first = ufs.getStatus(p("/ver.txt")).fingerprint();
    try (UfsReader r = ufs.openVersion(p("/ver.txt"), first)) {
      assertThat(r.length()).isEqualTo(13);
      ByteBuffer b = ByteBuffer.allocate(13);
      r.readFully(0, b);
      assertThat(b.array()).isEqualTo(text("first version"));
    }
    putBehindStrata("/ver.txt", text("SECOND VERSION"));
    try (UfsReader r = ufs.openVersion(p("/ver.txt"), first)) {
      ByteBuffer b = ByteBuffer.allocate(13);
      r.readFully(0, b);
      boolean oldBytes = Arrays.equals(b.array(), text("first version"));
      assertThat(oldBytes || !r.currentFingerprint().equals(first))
          .as("bytes of another version are told apart by the fingerprint")
          .isTrue();
    } catch (StrataException e) {
      assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
    }
    try (UfsReader r = ufs.openVersion(p("/ver.txt"), first)) {
      ByteBuffer[] run = {ByteBuffer.allocate(5), ByteBuffer.allocate(8)};
      r.readFully(0, run);
      boolean oldBytes =
          Arrays.equals(run[0].array(), text("first"))
              && Arrays.equals(run[1].array(), text(" version"));
      assertThat(oldBytes || !r.currentFingerprint().equals(first))
          .as("a run of buffers too: bytes of another version are told apart")
          .isTrue();
    } catch (StrataException e) {
      assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
    }
  }

  @Test
  void rename_ofFilesAndFolders_refusesAnExistingTargetAndItsOwnSubtree() throws IOException {
    write("/m/a.txt", text("a"));
    write("/m/dir/inner.txt", text("inner"));
    ufs.mkdirs(p("/n"), true);
    ufs.rename(p("/m/a.txt"), p("/n/b.txt"));
    assertThat(read("/n/b.txt", 0, 10)).isEqualTo(text("a"));
    assertThat(codeOf(() -> ufs.getStatus(p("/m/a.txt")))).isEqualTo(StatusCode.NOT_FOUND);
    ufs.rename(p("/m/dir"), p("/n/dir2"));
    assertThat(read("/n/dir2/inner.txt", 0, 10)).isEqualTo(text("inner"));
    assertThat(codeOf(() -> ufs.getStatus(p("/m/dir")))).isEqualTo(StatusCode.NOT_FOUND);
    write("/n/c.txt", text("c"));
    assertThat(codeOf(() -> ufs.rename(p("/n/c.txt"), p("/n/b.txt"))))
        .isEqualTo(StatusCode.ALREADY_EXISTS);
    assertThat(codeOf(() -> ufs.rename(p("/n"), p("/n/dir2/x"))))
        .isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(codeOf(() -> ufs.rename(p("/n/none"), p("/n/z")))).isEqualTo(StatusCode.NOT_FOUND);
  }

  @Test
  void delete_ofAFolderWithChildren_needsRecursive() throws IOException {
    write("/del/x/y.txt", text("y"));
    write("/del/z.txt", text("z"));
    assertThat(codeOf(() -> ufs.delete(p("/del"), false)))
        .isEqualTo(StatusCode.DIRECTORY_NOT_EMPTY);
    ufs.delete(p("/del/z.txt"), false);
    assertThat(codeOf(() -> ufs.getStatus(p("/del/z.txt")))).isEqualTo(StatusCode.NOT_FOUND);
    ufs.delete(p("/del"), true);
    assertThat(codeOf(() -> ufs.getStatus(p("/del")))).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(codeOf(() -> ufs.delete(p("/del"), true))).isEqualTo(StatusCode.NOT_FOUND);
    ufs.mkdirs(p("/empty"), false);
    ufs.delete(p("/empty"), false);
    assertThat(codeOf(() -> ufs.getStatus(p("/empty")))).isEqualTo(StatusCode.NOT_FOUND);
  }

  @Test
  void mkdirs_withoutParents_needsTheParent_andRefusesWhatExists() throws IOException {
    assertThat(codeOf(() -> ufs.mkdirs(p("/p/q"), false))).isEqualTo(StatusCode.NOT_FOUND);
    ufs.mkdirs(p("/p/q"), true);
    assertThat(ufs.getStatus(p("/p/q")).directory()).isTrue();
    assertThat(codeOf(() -> ufs.mkdirs(p("/p/q"), true))).isEqualTo(StatusCode.ALREADY_EXISTS);
    write("/p/file", text("f"));
    assertThat(codeOf(() -> ufs.mkdirs(p("/p/file"), true))).isEqualTo(StatusCode.ALREADY_EXISTS);
    assertThatThrownBy(() -> ufs.create(p("/p/q"), new CreateOptions(true, true, 0)))
        .isInstanceOf(StrataException.class);
  }
}
