package io.strata.worker.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.timeout.IdleStateEvent;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.transport.ReadRequest;
import io.strata.core.transport.Response;
import io.strata.core.transport.ResponseDecoder;
import io.strata.worker.TestFiles;
import io.strata.worker.kv.MemoryKvStore;
import io.strata.worker.meta.MetadataCache;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.page.PageStore;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flow of one data connection: the pages of READs waiting behind the one being answered are
 * asked for at once (a cold stream keeps the UFS busy), within a bound, and answered in order; a
 * client that pipelines without end, or stops reading its answers, is held back rather than let the
 * worker hold its answers; an idle connection is closed, and connections past the cap too.
 */
class ConnectionFlowTest {
  private static final int PAGE = 4096;

  @TempDir Path root;
  private final List<Runnable> ufsReads = new ArrayList<>();
  private byte[] data;
  private PageStore store;
  private UfsManager ufs;
  private PageFetcher fetcher;
  private ReadHandler.Responders responders;
  private EmbeddedChannel channel;
  private String f;
  private String g;

  @BeforeEach
  void setUp() throws Exception {
    data = new byte[PAGE * 5];
    new Random(5).nextBytes(data);
    Files.write(root.resolve("f"), data);
    Files.write(root.resolve("g"), data);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    store = TestFiles.pageStore(1 << 20, registry);
    ufs = TestFiles.ufsAt(root);
    // UFS reads wait here until the test runs them.
    fetcher = new PageFetcher(store, PAGE, ufsReads::add, PooledByteBufAllocator.DEFAULT, registry);
    DataServerMetrics metrics = new DataServerMetrics(registry);
    MetadataService metadata =
        new MetadataService(
            ufs,
            new MetadataCache(
                1000,
                Duration.ofMinutes(1),
                Duration.ofSeconds(5),
                System::currentTimeMillis,
                new MemoryKvStore()),
            registry);
    responders =
        ReadHandler.Responders.of(
            ufs,
            fetcher,
            metadata,
            Runnable::run,
            new LeaseDesk(fetcher, System::nanoTime, () -> Long.MAX_VALUE),
            metrics,
            System::nanoTime);
    channel =
        new EmbeddedChannel(new DataServerInitializer(() -> new ReadHandler(responders), metrics));
    f = fingerprint(ufs, "/f");
    g = fingerprint(ufs, "/g");
  }

  private static String fingerprint(UfsManager ufs, String path) throws Exception {
    UfsManager.Resolved file = ufs.resolve(StrataPath.of(path));
    return file.ufs().getStatus(file.ufsPath()).fingerprint();
  }

  @AfterEach
  void tearDown() {
    channel.finishAndReleaseAll();
    store.close();
  }

  private void send(long id, String path, String fingerprint, long offset, long length) {
    channel.writeInbound(
        new ReadRequest(id, path, fingerprint, data.length, offset, length)
            .encode(ByteBufAllocator.DEFAULT));
    channel.runPendingTasks();
  }

  @Test
  void theMissesOfWaitingReads_goToTheUfsAtOnce_andAreAnsweredInOrder() {
    send(1, "/f", f, 0, PAGE);
    send(2, "/f", f, PAGE, 2 * PAGE);
    send(3, "/f", f, 3 * PAGE, 2 * PAGE);
    assertThat(ufsReads).as("every page asked for before the first answer").hasSize(5);

    // The UFS answers the last first; the replies still go in request order.
    for (int i = ufsReads.size() - 1; i >= 0; i--) {
      ufsReads.get(i).run();
      channel.runPendingTasks();
    }
    assertThat(replies()).containsExactly("1 OK 0+4096", "2 OK 4096+8192", "3 OK 12288+8192");
  }

  @Test
  void waitingReadsPastTheBound_areAskedForInTheirTurn() {
    send(1, "/f", f, 0, PAGE);
    send(2, "/f", f, PAGE, ReadHandler.PREPARED_MAX_BYTES);
    send(3, "/g", g, 0, PAGE);
    assertThat(ufsReads).as("/g's page not asked for yet").hasSize(5);
    while (!ufsReads.isEmpty()) {
      ufsReads.remove(0).run();
      channel.runPendingTasks();
    }
    assertThat(replies()).containsExactly("1 OK 0+4096", "2 OK 4096+16384", "3 OK 0+4096");
  }

  @Test
  void aClientThatPipelinesWithoutEnd_isNotReadPastTheBound_untilItsRequestsDrain() {
    send(1, "/f", f, 0, PAGE);
    for (int i = 2; i <= ReadHandler.MAX_WAITING + 1; i++) {
      send(i, "/f", f, 0, PAGE);
    }
    assertThat(channel.config().isAutoRead()).as("reading paused").isFalse();
    while (!ufsReads.isEmpty()) {
      ufsReads.remove(0).run();
      channel.runPendingTasks();
    }
    assertThat(replies()).hasSize(ReadHandler.MAX_WAITING + 1);
    assertThat(channel.config().isAutoRead()).as("reading again").isTrue();
  }

  @Test
  void anAnswerWaitsWhileTheReaderTakesNoBytes_andGoesOnWhenItDoes() {
    send(1, "/f", f, 0, PAGE);
    ufsReads.remove(0).run();
    channel.runPendingTasks();
    assertThat(replies()).containsExactly("1 OK 0+4096");
    // Page 0 is cached now: its answer would go out at once, but the connection has no room.
    channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
    assertThat(channel.isWritable()).isFalse();
    send(2, "/f", f, 0, PAGE);
    assertThat(replies()).as("nothing written while the reader takes nothing").isEmpty();
    assertThat(channel.config().isAutoRead()).isFalse();
    channel.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
    channel.runPendingTasks();
    assertThat(replies()).containsExactly("2 OK 0+4096");
  }

  @Test
  void anIdleConnection_isClosed() {
    channel.pipeline().fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);
    assertThat(channel.isActive()).isFalse();
  }

  @Test
  void silentConnectionsGiveWay_andPastTheCapOfProvenOnes_newOnesAreClosed() {
    DataServerInitializer capped =
        new DataServerInitializer(
            () -> new ReadHandler(responders),
            new DataServerMetrics(new SimpleMeterRegistry()),
            new DataServerInitializer.Limits(
                new io.strata.core.net.ConnectionGate.Limits(1, 1, 1, 1, 0),
                Duration.ofMinutes(1),
                io.strata.core.security.Security.none()));
    EmbeddedChannel first = new EmbeddedChannel(capped);
    EmbeddedChannel silent = new EmbeddedChannel(capped);
    EmbeddedChannel second = null;
    try {
      assertThat(first.isActive()).as("the older silent one, for a newer").isFalse();
      assertThat(silent.isActive()).isTrue();
      // A first request proves a NONE-mode connection: it keeps its place.
      silent.writeInbound(hello());
      second = new EmbeddedChannel(capped);
      assertThat(second.isActive()).as("no room: the one there is proven").isFalse();
      assertThat(silent.close().isSuccess()).isTrue();
      assertThat(first.close().isSuccess()).isTrue();
      EmbeddedChannel third = new EmbeddedChannel(capped);
      assertThat(third.isActive()).as("room again once one closed").isTrue();
      third.finishAndReleaseAll();
    } finally {
      first.finishAndReleaseAll();
      silent.finishAndReleaseAll();
      if (second != null) {
        second.finishAndReleaseAll();
      }
    }
  }

  /** A client's first frame, HELLO (length, type, request id 0). */
  private static ByteBuf hello() {
    return ByteBufAllocator.DEFAULT
        .buffer()
        .writeInt(io.strata.core.transport.Frames.HEADER)
        .writeByte(io.strata.core.transport.Frames.HELLO)
        .writeLong(0);
  }

  @Test
  void pagesAskedForAheadOfAClosedConnection_areLetGo() {
    send(1, "/f", f, 0, PAGE);
    send(2, "/f", f, PAGE, 4 * PAGE);
    assertThat(channel.close().isSuccess()).isTrue();
    ufsReads.forEach(Runnable::run);
    channel.runPendingTasks();
    PageFetcher.Target target = fetcher.target(ufs.resolve(StrataPath.of("/f")), f, data.length);
    for (long i = 1; i < 5; i++) {
      ByteBuf page = store.getFromMemory(target.key().page(i));
      assertThat(page).as("page %d cached", i).isNotNull();
      // Each reference handed out for the page holds one on the buffer read from the UFS; the
      // store's copy holds one.
      assertThat(root(page).refCnt()).as("held by the store only").isEqualTo(1);
      page.release();
    }
  }

  /** The buffer under a page's wrappers (leak detection) and duplicates. */
  private static ByteBuf root(ByteBuf b) {
    ByteBuf under = b;
    while (under.unwrap() != null) {
      under = under.unwrap();
    }
    return under;
  }

  /** Each answer as "id CODE offset+bytes", its bytes checked against the file. */
  private List<String> replies() {
    ByteBuf all = Unpooled.buffer();
    ByteBuf part;
    while ((part = channel.readOutbound()) != null) {
      all.writeBytes(part);
      part.release();
    }
    List<String> out = new ArrayList<>();
    ResponseDecoder decoder = new ResponseDecoder();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long first = -1;
    try {
      while (all.isReadable() || decoder.payloadLeft() > 0) {
        if (decoder.payloadLeft() > 0) {
          int n = decoder.payloadLeft();
          bytes.writeBytes(ByteBufUtil.getBytes(all.readSlice(n)));
          decoder.payloadTaken(n);
          continue;
        }
        Response r = decoder.next(all);
        if (r instanceof Response.Data d) {
          first = first < 0 ? d.offset() : first;
        } else if (r instanceof Response.End e) {
          byte[] got = bytes.toByteArray();
          if (got.length > 0) {
            assertThat(got)
                .isEqualTo(Arrays.copyOfRange(data, (int) first, (int) first + got.length));
          }
          out.add(r.requestId() + " " + e.code() + " " + Math.max(first, 0) + "+" + got.length);
          assertThat(e.code()).isEqualTo(StatusCode.OK);
          bytes.reset();
          first = -1;
        }
      }
    } finally {
      all.release();
    }
    return out;
  }
}
