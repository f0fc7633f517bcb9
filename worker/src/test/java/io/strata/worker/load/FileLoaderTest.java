package io.strata.worker.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadFileResult;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.worker.TestFiles;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileLoaderTest {
  private static final int PAGE = 4096;

  @TempDir Path root;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private PageStore store;
  private UfsManager ufs;
  private FileLoader loader;
  private byte[] data;

  @BeforeEach
  void setUp() throws Exception {
    data = new byte[PAGE * 2 + 10];
    new Random(5).nextBytes(data);
    Files.write(root.resolve("f"), data);
    store = TestFiles.pageStore(1 << 20, registry);
    ufs = TestFiles.ufsAt(root);
    loader = loader();
  }

  /** A loader over this test's store, reading runs of up to 3 pages. */
  private FileLoader loader() {
    return new FileLoader(
        ufs,
        store,
        PAGE,
        PooledByteBufAllocator.DEFAULT,
        Runnable::run,
        Runnable::run,
        registry,
        () -> 3 * PAGE);
  }

  /**
   * Issue 78: a job's own bandwidth limit waited on a loader thread, and any user may ask for 1
   * byte/s: such jobs run on threads of their own and leave them while they wait, so a job without
   * a limit, and another job with one, still load.
   */
  @Test
  void aJobSlowedByItsOwnLimit_holdsUpNoJobWithout() throws Exception {
    var open =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            io.strata.core.util.DaemonThreads.factory("test-loader"));
    var limited =
        java.util.concurrent.Executors.newSingleThreadExecutor(
            io.strata.core.util.DaemonThreads.factory("test-loader-limited"));
    FileLoader two =
        new FileLoader(
            ufs, store, PAGE, PooledByteBufAllocator.DEFAULT, open, limited, registry, () -> PAGE);
    UfsManager.Resolved file = ufs.resolve(StrataPath.of("/f"));
    FileStatus f =
        FileStatus.newBuilder()
            .setPath("/f")
            .setLength(data.length)
            .setFingerprint(file.ufs().getStatus(file.ufsPath()).fingerprint())
            .build();
    // 1 byte/s: its second page waits for days, on its thread.
    var slow =
        two.load(
            LoadFilesRequest.newBuilder()
                .setJobId(7)
                .setForce(true)
                .setBandwidthBytes(1)
                .addFiles(f)
                .build());
    var other =
        two.load(LoadFilesRequest.newBuilder().setJobId(8).setForce(true).addFiles(f).build());
    LoadFileResult r = other.get(20, java.util.concurrent.TimeUnit.SECONDS).getResults(0);
    assertThat(r.getOk()).as(r.getError()).isTrue();
    // Nor another job with a limit of its own: the slow one waits off the only limited thread.
    var otherLimited =
        two.load(
            LoadFilesRequest.newBuilder()
                .setJobId(9)
                .setForce(true)
                .setBandwidthBytes(1L << 30)
                .addFiles(f)
                .build());
    LoadFileResult limitedToo =
        otherLimited.get(20, java.util.concurrent.TimeUnit.SECONDS).getResults(0);
    assertThat(limitedToo.getOk()).as(limitedToo.getError()).isTrue();
    assertThat(slow).isNotDone();
    open.shutdownNow();
    limited.shutdownNow();
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  @Test
  void aListingThatSaysLess_stillCachesWholePages_cutByTheFileItself() {
    UfsManager.Resolved file = ufs.resolve(StrataPath.of("/f"));
    String fp = file.ufs().getStatus(file.ufsPath()).fingerprint();
    FileStatus shortened =
        FileStatus.newBuilder().setPath("/f").setLength(1).setFingerprint(fp).build();
    LoadFileResult r =
        loader
            .load(LoadFilesRequest.newBuilder().setJobId(1).addFiles(shortened).build())
            .join()
            .getResults(0);
    assertThat(r.getOk()).as(r.getError()).isTrue();
    assertThat(r.getBytesLoaded()).isEqualTo(data.length);
    PageId.FileKey key = PageId.FileKey.of(file.ufsUri(), fp, PAGE);
    for (int i = 0; i < 3; i++) {
      ByteBuf page = store.getFromMemory(key.page(i));
      try {
        int from = i * PAGE;
        assertThat(ByteBufUtil.getBytes(page))
            .isEqualTo(Arrays.copyOfRange(data, from, Math.min(data.length, from + PAGE)));
      } finally {
        page.release();
      }
    }
  }

  @Test
  void pagesAlreadyCached_splitTheRuns_andTheOthersAreLoadedWhole() throws Exception {
    byte[] content = new byte[10 * PAGE + 77];
    FileStatus status = file("runs/g", content);
    UfsManager.Resolved file = ufs.resolve(StrataPath.of("/runs/g"));
    PageId.FileKey key = PageId.FileKey.of(file.ufsUri(), status.getFingerprint(), PAGE);
    ByteBuf cached = PooledByteBufAllocator.DEFAULT.directBuffer(PAGE);
    cached.writeBytes(content, 4 * PAGE, PAGE);
    store.admit(key.page(4), cached, true);
    cached.release();

    LoadFileResult r =
        loader
            .load(LoadFilesRequest.newBuilder().setJobId(2).addFiles(status).build())
            .join()
            .getResults(0);
    assertThat(r.getOk()).as(r.getError()).isTrue();
    assertThat(r.getBytesLoaded()).isEqualTo(content.length - PAGE);
    for (int i = 0; i < 11; i++) {
      ByteBuf page = store.getFromMemory(key.page(i));
      try {
        int from = i * PAGE;
        assertThat(ByteBufUtil.getBytes(page))
            .as("page %d", i)
            .isEqualTo(Arrays.copyOfRange(content, from, Math.min(content.length, from + PAGE)));
      } finally {
        page.release();
      }
    }
  }

  /**
   * A data set larger than the cache: the load does not evict what it loaded itself, so the files
   * that do not fit fail with the reason, and every file reported loaded is cached whole. A later
   * job may evict the earlier one's pages.
   */
  @Test
  void aLoadLargerThanTheCache_failsTheFilesThatDoNotFit_andKeepsTheOthersWhole() throws Exception {
    store.close();
    store = TestFiles.pageStore(64 << 10, registry, root.resolve("ssd") + ":4MiB");
    loader = loader();
    byte[] content = new byte[256 << 10];
    long loadedOk = 0;
    int failed = 0;
    List<String> okFiles = new ArrayList<>();
    for (int batch = 0; batch < 4; batch++) {
      LoadFilesRequest.Builder req = LoadFilesRequest.newBuilder().setJobId(7);
      for (int i = 0; i < 8; i++) {
        req.addFiles(file("big/f" + batch + "-" + i, content));
      }
      for (LoadFileResult r : loader.load(req.build()).join().getResultsList()) {
        if (r.getOk()) {
          loadedOk += r.getBytesLoaded();
          okFiles.add(r.getPath());
        } else {
          failed++;
          assertThat(r.getError()).contains("no room for " + r.getPath());
        }
      }
    }
    assertThat(failed).isPositive();
    assertThat(loadedOk).isBetween(2L << 20, 4L << 20);
    // Every file the job reported loaded is still cached whole at its end.
    for (String ok : okFiles) {
      assertThat(cachedPages(ok)).as(ok).isEqualTo(64);
    }

    LoadFileResult next =
        loader
            .load(
                LoadFilesRequest.newBuilder().setJobId(8).addFiles(file("next/g", content)).build())
            .join()
            .getResults(0);
    assertThat(next.getOk()).as(next.getError()).isTrue();
  }

  /**
   * Issue 79 (c): a version at least the whole-file size that a load caches is written once, as one
   * plain file at its own offsets (what FUSE passthrough needs), not into segments; its pages are
   * read from that file; a free drops it. A smaller one goes to segments as before.
   */
  @Test
  void aLoadedFileOfTheWholeFileSize_isOneFileOnSsd_readPageByPage() throws Exception {
    store.close();
    store = TestFiles.pageStore(0, registry, root.resolve("ssd") + ":8MiB");
    loader = loader();
    byte[] big = new byte[25 * PAGE + 123];
    FileStatus bigFile = file("w/big", big);
    FileStatus small = file("w/small", new byte[3 * PAGE]);

    LoadFilesRequest req =
        LoadFilesRequest.newBuilder().setJobId(11).addFiles(bigFile).addFiles(small).build();
    for (LoadFileResult r : loader.load(req).join().getResultsList()) {
      assertThat(r.getOk()).as(r.getError()).isTrue();
    }

    PageId.FileKey key = keyOf("/w/big");
    var whole = store.wholeFiles().find(key).orElseThrow();
    assertThat(Files.readAllBytes(whole.path())).isEqualTo(big);
    // Only the small file's 3 pages went to segments.
    assertThat(store.tiers().get(0).getPages()).isEqualTo(3);
    assertThat(store.wholeFiles().find(keyOf("/w/small"))).isEmpty();
    ByteBuf page = store.readFromDisk(key.page(25));
    try {
      assertThat(ByteBufUtil.getBytes(page))
          .isEqualTo(Arrays.copyOfRange(big, 25 * PAGE, big.length));
    } finally {
      page.release();
    }
    assertThat(cachedPages("/w/big")).isEqualTo(26);
    // Loaded again: every page is found cached, nothing is read.
    LoadFileResult again =
        loader
            .load(LoadFilesRequest.newBuilder().setJobId(12).addFiles(bigFile).build())
            .join()
            .getResults(0);
    assertThat(again.getBytesLoaded()).isZero();

    new io.strata.worker.page.FilePages(store, PAGE).free(key, big.length);
    assertThat(cachedPages("/w/big")).isZero();
    assertThat(whole.path()).doesNotExist();
  }

  /**
   * Issue 79 (d), fetch then pass through: a co-located reader's open has the worker read a version
   * whole; once sealed it answers true and the file holds the bytes. Asked again, it is found whole
   * without a read; a version below the least whole size is not kept whole (false, nothing
   * written), and one that changed since its fingerprint fails with the reason.
   */
  @Test
  void keepWhole_readsAVersionWholeOnce_andRefusesWhatItWouldNotKeep() throws Exception {
    store.close();
    store = TestFiles.pageStore(0, registry, root.resolve("ssd") + ":8MiB");
    loader = loader();
    byte[] big = new byte[30 * PAGE + 7];
    FileStatus bigFile = file("k/big", big);
    FileStatus small = file("k/small", new byte[3 * PAGE]);
    PageId.FileKey key = keyOf("/k/big");
    UfsManager.Resolved at = ufs.resolve(StrataPath.of("/k/big"));

    assertThat(loader.keepWhole(at, key, bigFile.getFingerprint(), big.length).join()).isTrue();
    assertThat(Files.readAllBytes(store.wholeFiles().find(key).orElseThrow().path()))
        .isEqualTo(big);
    assertThat(loader.keepWhole(at, key, bigFile.getFingerprint(), big.length).join()).isTrue();
    assertThat(registry.counter(io.strata.worker.WorkerMetrics.WHOLE_FETCHES).count())
        .as("read whole once")
        .isEqualTo(1);
    assertThat(cachedPages("/k/big")).isEqualTo(31);

    PageId.FileKey smallKey = keyOf("/k/small");
    assertThat(
            loader
                .keepWhole(
                    ufs.resolve(StrataPath.of("/k/small")),
                    smallKey,
                    small.getFingerprint(),
                    small.getLength())
                .join())
        .isFalse();
    assertThat(cachedPages("/k/small")).isZero();

    FileStatus changed = file("k/changed", new byte[20 * PAGE]);
    Files.write(root.resolve("k/changed"), new byte[21 * PAGE]);
    var failed =
        loader.keepWhole(
            ufs.resolve(StrataPath.of("/k/changed")),
            PageId.FileKey.of(
                ufs.resolve(StrataPath.of("/k/changed")).ufsUri(), changed.getFingerprint(), PAGE),
            changed.getFingerprint(),
            changed.getLength());
    assertThat(failed).isCompletedExceptionally();
    assertThat(store.wholeFiles().files()).isEqualTo(1);
  }

  private PageId.FileKey keyOf(String path) {
    UfsManager.Resolved r = ufs.resolve(StrataPath.of(path));
    return PageId.FileKey.of(r.ufsUri(), r.ufs().getStatus(r.ufsPath()).fingerprint(), PAGE);
  }

  private FileStatus file(String name, byte[] content) throws java.io.IOException {
    new Random(name.hashCode()).nextBytes(content);
    Path p = root.resolve(name);
    Files.createDirectories(p.getParent());
    Files.write(p, content);
    UfsManager.Resolved r = ufs.resolve(StrataPath.of("/" + name));
    var status = r.ufs().getStatus(r.ufsPath());
    return FileStatus.newBuilder()
        .setPath("/" + name)
        .setLength(status.length())
        .setFingerprint(status.fingerprint())
        .build();
  }

  private int cachedPages(String path) {
    UfsManager.Resolved r = ufs.resolve(StrataPath.of(path));
    String fp = r.ufs().getStatus(r.ufsPath()).fingerprint();
    PageId.FileKey key = PageId.FileKey.of(r.ufsUri(), fp, PAGE);
    int n = 0;
    for (int i = 0; i < 64; i++) {
      if (store.contains(key.page(i))) {
        n++;
      }
    }
    return n;
  }
}
