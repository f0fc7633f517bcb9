package io.strata.worker.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.WriteHeader;
import io.strata.core.proto.WriteRequest;
import io.strata.core.proto.WriteResponse;
import io.strata.core.proto.WriteType;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.ufs.CreateOptions;
import io.strata.core.ufs.LocalUnderFileSystem;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.core.ufs.UfsOutputStream;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UfsStatus;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.worker.TestFiles;
import io.strata.worker.kv.MemoryKvStore;
import io.strata.worker.meta.MetadataCache;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.page.PageStore;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CACHE_THROUGH writes against a second writer that publishes right after this one. */
class WriteSessionsTest {
  private static final int PAGE = 4096;

  @TempDir Path root;
  @TempDir Path state;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PageStore store = TestFiles.pageStore(1 << 20, registry);

  @AfterEach
  void tearDown() {
    store.close();
  }

  @Test
  void aWriterCachesItsBytes_underItsOwnVersion_notTheNextWritersOne() throws Exception {
    byte[] mine = filled('A');
    byte[] theirs = filled('B');
    UfsManager ufs = new UfsManager(m -> new RacedUfs(new LocalUnderFileSystem(root), theirs));
    ufs.update(
        new MountTable(List.of(new Mount(StrataPath.ROOT, root.toUri().toString(), false)), 1));
    MetadataService metadata = metadata(ufs);
    WriteSessions sessions =
        new WriteSessions(
            ufs, metadata, store, PAGE, PooledByteBufAllocator.DEFAULT, () -> true, state);

    CompletableFuture<WriteResponse> done = new CompletableFuture<>();
    StreamObserver<WriteRequest> in = sessions.open(observer(done));
    in.onNext(
        WriteRequest.newBuilder()
            .setHeader(
                WriteHeader.newBuilder()
                    .setPath("/f")
                    .setOverwrite(true)
                    .setWriteType(WriteType.CACHE_THROUGH))
            .build());
    in.onNext(WriteRequest.newBuilder().setChunk(ByteString.copyFrom(mine)).build());
    in.onCompleted();
    WriteResponse answer = done.join();

    UfsManager.Resolved file = ufs.resolve(StrataPath.of("/f"));
    assertThat(Files.readAllBytes(root.resolve("f"))).isEqualTo(theirs);
    String now = file.ufs().getStatus(file.ufsPath()).fingerprint();
    assertThat(answer.getStatus().getFingerprint())
        .as("the version this writer made")
        .isNotEqualTo(now);
    PageFetcher fetcher =
        new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    PageFetcher.Fetched page = fetcher.fetch(fetcher.target(file, now, PAGE), 0).join();
    try {
      assertThat(ByteBufUtil.getBytes(page.page())).isEqualTo(theirs);
    } finally {
      page.release();
    }
  }

  @Test
  void aWriteCutShortByAKilledWorker_leavesNothing_afterItsNextStart() throws Exception {
    UfsManager ufs = rootMounted();
    WriteSessions killed = sessions(ufs);
    StreamObserver<WriteRequest> in = killed.open(observer(new CompletableFuture<>()));
    in.onNext(
        WriteRequest.newBuilder().setHeader(WriteHeader.newBuilder().setPath("/d/half")).build());
    in.onNext(WriteRequest.newBuilder().setChunk(ByteString.copyFrom(filled('H'))).build());
    // The worker dies here: neither onCompleted nor onError ever comes.
    try (Stream<Path> left = Files.list(root.resolve("d"))) {
      assertThat(left).hasSize(1);
    }
    WriteSessions restarted = sessions(ufs);
    assertThat(restarted.discardUnfinished()).isEqualTo(1);
    try (Stream<Path> left = Files.list(root.resolve("d"))) {
      assertThat(left).isEmpty();
    }
    assertThat(restarted.discardUnfinished()).isZero();
  }

  /**
   * Issue 78: header-only writes had no per-user bound; each holds a marker file (and a descriptor
   * once bytes come), and one connection carries a thousand calls. A user's writes under way are
   * bounded; every way a write ends frees its place; the cluster's processes are not counted.
   */
  @Test
  void aUsersWritesUnderWay_areBounded_andEveryEndFreesItsPlace() throws Exception {
    UfsManager ufs = rootMounted();
    WriteSessions sessions =
        new WriteSessions(
            ufs, metadata(ufs), store, PAGE, PooledByteBufAllocator.DEFAULT, () -> true, state);
    Principal mallory = new Principal("mallory", Role.USER);
    List<StreamObserver<WriteRequest>> open = new ArrayList<>();
    for (int i = 0; i < WriteSessions.MAX_PER_USER; i++) {
      StreamObserver<WriteRequest> in = sessions.open(observer(new CompletableFuture<>()), mallory);
      in.onNext(header("/w" + i));
      open.add(in);
    }
    CompletableFuture<WriteResponse> refused = new CompletableFuture<>();
    sessions.open(observer(refused), mallory).onNext(header("/one-more"));
    assertThat(refused)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableThat()
        .withMessageContaining(
            "mallory already holds 256 writes under way on this worker; end one first");
    assertThat(root.resolve("one-more")).doesNotExist();

    open.get(0).onError(new RuntimeException("the writer went away"));
    CompletableFuture<WriteResponse> failed = new CompletableFuture<>();
    StreamObserver<WriteRequest> bad = sessions.open(observer(failed), mallory);
    bad.onNext(WriteRequest.newBuilder().setChunk(ByteString.copyFromUtf8("x")).build());
    assertThat(failed).failsWithin(Duration.ofSeconds(5));
    bad.onCompleted();
    CompletableFuture<WriteResponse> done = new CompletableFuture<>();
    StreamObserver<WriteRequest> last = sessions.open(observer(done), mallory);
    last.onNext(header("/last"));
    last.onNext(chunk(filled('L')));
    last.onCompleted();
    assertThat(done.join().getStatus().getLength()).isEqualTo(PAGE);
    assertThat(sessions.underWayBy("mallory")).isEqualTo(WriteSessions.MAX_PER_USER - 1);
    open.forEach(in -> in.onError(new RuntimeException("gone")));
    assertThat(sessions.underWayBy("mallory")).isZero();

    Principal mount = new Principal("fuse", Role.SERVICE);
    for (int i = 0; i <= WriteSessions.MAX_PER_USER; i++) {
      sessions.open(observer(new CompletableFuture<>()), mount).onNext(header("/s" + i));
    }
    assertThat(sessions.underWayBy("fuse")).isZero();
  }

  private static WriteRequest header(String path) {
    return WriteRequest.newBuilder()
        .setHeader(WriteHeader.newBuilder().setPath(path).setOverwrite(true))
        .build();
  }

  @Test
  void aNegativeCreationTime_isRefused_andNothingIsWritten() throws Exception {
    CompletableFuture<WriteResponse> done = new CompletableFuture<>();
    StreamObserver<WriteRequest> in = sessions(rootMounted()).open(observer(done));
    in.onNext(
        WriteRequest.newBuilder()
            .setHeader(WriteHeader.newBuilder().setPath("/when").setCreatedAtMs(-5))
            .build());

    assertThat(done)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableThat()
        .withMessageContaining("creation time");
    try (Stream<Path> left = Files.list(root)) {
      assertThat(left).isEmpty();
    }
  }

  /** The test's folder mounted at the root. */
  /** Issue 54: one CACHE_THROUGH write could hold half the SSD's capacity in direct memory. */
  @Test
  void cacheThroughWrites_holdNoMoreDirectMemoryThanTheirBudget() throws Exception {
    UfsManager ufs = rootMounted();
    MetadataService metadata = metadata(ufs);
    WriteSessions sessions =
        new WriteSessions(
            ufs,
            metadata,
            store,
            PAGE,
            PooledByteBufAllocator.DEFAULT,
            () -> true,
            state,
            2L * PAGE);
    CompletableFuture<WriteResponse> first = new CompletableFuture<>();
    CompletableFuture<WriteResponse> second = new CompletableFuture<>();
    StreamObserver<WriteRequest> a = cacheThrough(sessions, "/a", first);
    StreamObserver<WriteRequest> b = cacheThrough(sessions, "/b", second);
    a.onNext(chunk(filled('A')));
    a.onNext(chunk(filled('A')));
    b.onNext(chunk(filled('B')));
    assertThat(sessions.bufferedBytes()).isEqualTo(2L * PAGE);
    a.onCompleted();
    b.onCompleted();
    first.join();
    second.join();
    assertThat(sessions.bufferedBytes()).isZero();
    assertThat(Files.size(root.resolve("b"))).as("the write itself goes on").isEqualTo(PAGE);
  }

  private StreamObserver<WriteRequest> cacheThrough(
      WriteSessions sessions, String path, CompletableFuture<WriteResponse> done) {
    StreamObserver<WriteRequest> in = sessions.open(observer(done));
    in.onNext(
        WriteRequest.newBuilder()
            .setHeader(
                WriteHeader.newBuilder()
                    .setPath(path)
                    .setOverwrite(true)
                    .setWriteType(WriteType.CACHE_THROUGH))
            .build());
    return in;
  }

  private static WriteRequest chunk(byte[] bytes) {
    return WriteRequest.newBuilder().setChunk(ByteString.copyFrom(bytes)).build();
  }

  private MetadataService metadata(UfsManager ufs) {
    return new MetadataService(
        ufs,
        new MetadataCache(
            100,
            Duration.ofMinutes(1),
            Duration.ofSeconds(5),
            System::currentTimeMillis,
            new MemoryKvStore()),
        registry);
  }

  private UfsManager rootMounted() {
    UfsManager ufs = new UfsManager();
    ufs.update(
        new MountTable(List.of(new Mount(StrataPath.ROOT, root.toUri().toString(), false)), 1));
    return ufs;
  }

  /** Write sessions of a worker without a metadata service, keeping its state in {@link #state}. */
  private WriteSessions sessions(UfsManager ufs) {
    return new WriteSessions(
        ufs, null, store, PAGE, PooledByteBufAllocator.DEFAULT, () -> true, state);
  }

  private static byte[] filled(char c) {
    byte[] b = new byte[PAGE];
    Arrays.fill(b, (byte) c);
    return b;
  }

  private static StreamObserver<WriteResponse> observer(CompletableFuture<WriteResponse> done) {
    return new StreamObserver<>() {
      @Override
      public void onNext(WriteResponse value) {
        done.complete(value);
      }

      @Override
      public void onError(Throwable t) {
        done.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {}
    };
  }

  /** A local folder where, the moment a write is published, another writer replaces the file. */
  private static final class RacedUfs implements UnderFileSystem {
    private final LocalUnderFileSystem local;
    private final byte[] theirs;

    RacedUfs(LocalUnderFileSystem local, byte[] theirs) {
      this.local = local;
      this.theirs = theirs;
    }

    @Override
    public UfsOutputStream create(StrataPath path, CreateOptions options) {
      UfsOutputStream out = local.create(path, options);
      return new UfsOutputStream() {
        @Override
        public void write(int b) throws IOException {
          out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
          out.write(b, off, len);
        }

        @Override
        public void abort() {
          out.abort();
        }

        @Override
        public long bytesWritten() {
          return out.bytesWritten();
        }

        @Override
        public void close() throws IOException {
          out.close();
          try (UfsOutputStream second = local.create(path, new CreateOptions(true, true, 0))) {
            second.write(theirs);
          }
        }

        @Override
        public UfsStatus published() {
          return out.published();
        }

        @Override
        public String token() {
          return out.token();
        }
      };
    }

    @Override
    public String uri() {
      return local.uri();
    }

    @Override
    public UfsStatus getStatus(StrataPath path) {
      return local.getStatus(path);
    }

    @Override
    public Stream<UfsStatus> list(StrataPath path) {
      return local.list(path);
    }

    @Override
    public UfsReader openReader(StrataPath path) {
      return local.openReader(path);
    }

    @Override
    public void mkdirs(StrataPath path, boolean parents) {
      local.mkdirs(path, parents);
    }

    @Override
    public void delete(StrataPath path, boolean recursive) {
      local.delete(path, recursive);
    }

    @Override
    public void setModificationTime(StrataPath path, long epochMs) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void setAttributes(StrataPath path, int mode, String owner, String group) {
      local.setAttributes(path, mode, owner, group);
    }

    @Override
    public void rename(StrataPath src, StrataPath dst) {
      local.rename(src, dst);
    }

    @Override
    public void discard(String token) {
      local.discard(token);
    }

    @Override
    public void close() {
      local.close();
    }
  }
}
