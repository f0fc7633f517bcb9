package io.strata.worker.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;
import io.strata.core.transport.LeaseRequest;
import io.strata.core.transport.OpenRequest;
import io.strata.core.transport.ReadRequest;
import io.strata.core.transport.Response;
import io.strata.core.transport.ResponseDecoder;
import io.strata.core.transport.WholeRequest;
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
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data pipeline on an EmbeddedChannel: frames in, frames out. */
class ReadHandlerTest {
  private static final int PAGE = 4096;

  @TempDir Path root;
  private byte[] data;
  private PageStore store;
  private UfsManager ufs;
  private EmbeddedChannel channel;
  private String fingerprint;

  /** What came back for one request: the STATUS of an OPEN (else null), DATA bytes, END. */
  @SuppressWarnings(
      "ArrayRecordComponent") // compared through its accessor, never by the record's equals
  record Reply(FileStatus status, byte[] bytes, StatusCode code, String message) {}

  private SimpleMeterRegistry registry;

  @BeforeEach
  void setUp() throws Exception {
    data = new byte[PAGE * 3 + 77];
    new Random(3).nextBytes(data);
    Files.write(root.resolve("f"), data);
    registry = new SimpleMeterRegistry();
    store = TestFiles.pageStore(1 << 20, registry);
    ufs = TestFiles.ufsAt(root);
    PageFetcher fetcher =
        new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    DataServerMetrics metrics = new DataServerMetrics(registry);
    LeaseDesk leases = new LeaseDesk(fetcher, System::nanoTime, () -> Long.MAX_VALUE);
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
    channel =
        new EmbeddedChannel(
            new DataServerInitializer(
                () ->
                    new ReadHandler(
                        ReadHandler.Responders.of(
                            ufs,
                            fetcher,
                            metadata,
                            Runnable::run,
                            leases,
                            metrics,
                            System::nanoTime)),
                metrics));
    UfsManager.Resolved file = ufs.resolve(StrataPath.of("/f"));
    fingerprint = file.ufs().getStatus(file.ufsPath()).fingerprint();
  }

  @AfterEach
  void tearDown() {
    channel.finishAndReleaseAll();
    store.close();
  }

  private Reply read(String path, long offset, long length) {
    return send(new ReadRequest(5, path, fingerprint, data.length, offset, length));
  }

  private Reply send(ReadRequest request) {
    return send(request.encode(ByteBufAllocator.DEFAULT), request.offset());
  }

  private Reply open(String path, long firstBytes) {
    return send(new OpenRequest(5, path, -1, firstBytes).encode(ByteBufAllocator.DEFAULT), 0);
  }

  private Reply send(ByteBuf request, long offset) {
    channel.writeInbound(request);
    channel.runPendingTasks();
    ByteBuf all = Unpooled.buffer();
    ByteBuf part;
    while ((part = channel.readOutbound()) != null) {
      all.writeBytes(part);
      part.release();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    FileStatus status = null;
    long expectedOffset = offset;
    ResponseDecoder decoder = new ResponseDecoder();
    try {
      while (true) {
        if (decoder.payloadLeft() > 0) {
          int n = decoder.payloadLeft();
          bytes.writeBytes(ByteBufUtil.getBytes(all.readSlice(n)));
          decoder.payloadTaken(n);
          continue;
        }
        Response r = decoder.next(all);
        assertThat(r).as("a whole answer").isNotNull();
        assertThat(r.requestId()).isEqualTo(5);
        if (r instanceof Response.Status st) {
          assertThat(status).as("one STATUS, before any DATA").isNull();
          assertThat(bytes.size()).isZero();
          status = st.status();
        } else if (r instanceof Response.Data d) {
          assertThat(d.offset()).isEqualTo(expectedOffset);
          expectedOffset += d.length();
        } else {
          Response.End end = (Response.End) r;
          assertThat(all.isReadable()).isFalse();
          return new Reply(status, bytes.toByteArray(), end.code(), end.message());
        }
      }
    } finally {
      all.release();
    }
  }

  @Test
  void open_answersTheStatusAndTheFirstBytes_inOneReply() {
    Reply whole = open("/f", 1 << 20);
    assertThat(whole.code()).isEqualTo(StatusCode.OK);
    assertThat(whole.status().getLength()).isEqualTo(data.length);
    assertThat(whole.status().getFingerprint()).isEqualTo(fingerprint);
    assertThat(whole.bytes()).isEqualTo(data);

    Reply head = open("/f", 100);
    assertThat(head.bytes()).isEqualTo(Arrays.copyOf(data, 100));
    Reply statusOnly = open("/f", 0);
    assertThat(statusOnly.status().getPath()).isEqualTo("/f");
    assertThat(statusOnly.bytes()).isEmpty();
    assertThat(
            registry.get("strata.worker.metadata.requests").tag("result", "miss").counter().count())
        .as("only the first open asked the UFS")
        .isEqualTo(1);
    assertThat(registry.get("strata.worker.data.requests").tag("kind", "open").counter().count())
        .isEqualTo(3);
  }

  @Test
  void open_ofAFolderOrAMissingFile() throws Exception {
    Files.createDirectory(root.resolve("d"));
    Reply folder = open("/d", 1 << 20);
    assertThat(folder.code()).isEqualTo(StatusCode.OK);
    assertThat(folder.status().getDirectory()).isTrue();
    assertThat(folder.bytes()).isEmpty();
    Reply missing = open("/nope", 10);
    assertThat(missing.code()).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(missing.status()).isNull();
    assertThat(channel.isActive()).isTrue();
  }

  @Test
  void open_withBoundsOutOfRange_closesTheConnection() {
    channel.writeInbound(new OpenRequest(5, "/f", -1, -3).encode(ByteBufAllocator.DEFAULT));
    channel.runPendingTasks();
    assertThat(channel.isActive()).isFalse();
  }

  @Test
  void read_acrossPageBoundaries_returnsExactlyTheUfsBytes() {
    Reply r = read("/f", 100, PAGE * 2L);
    assertThat(r.code()).isEqualTo(StatusCode.OK);
    assertThat(r.bytes()).isEqualTo(Arrays.copyOfRange(data, 100, 100 + PAGE * 2));
    Reply tail = read("/f", PAGE * 3L - 10, 1000);
    assertThat(tail.bytes()).isEqualTo(Arrays.copyOfRange(data, PAGE * 3 - 10, data.length));
    assertThat(read("/f", data.length, 10).bytes()).isEmpty();
    assertThat(read("/f", 7, 0).bytes()).isEmpty();
  }

  @Test
  void aReadClaimingAnotherLength_isRefused_andCachesNoShortPage() {
    // The real fingerprint with a length of 1: the length must be the version's own.
    Reply lie = send(new ReadRequest(5, "/f", fingerprint, 1, 0, PAGE));
    assertThat(lie.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(lie.message()).contains("the read names 1 bytes of /f");
    Reply honest = read("/f", 0, data.length);
    assertThat(honest.code()).isEqualTo(StatusCode.OK);
    assertThat(honest.bytes()).isEqualTo(data);
  }

  @Test
  void missingFile_endsThatRequestOnly() {
    Reply r = read("/missing", 0, 10);
    assertThat(r.code()).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(r.message()).contains("/missing");
    assertThat(channel.isActive()).isTrue();
    assertThat(read("/f", 0, 10).bytes()).isEqualTo(Arrays.copyOf(data, 10));
  }

  @Test
  void malformedFrame_closesTheConnection() {
    ByteBuf bad = Unpooled.buffer().writeInt(9).writeByte(42).writeLong(1);
    channel.writeInbound(bad);
    assertThat(channel.isActive()).isFalse();
  }

  @Test
  void lease_overTcp_isRefusedAndTheConnectionStays() {
    Reply r =
        send(
            new LeaseRequest(5, "/f", fingerprint, data.length, 0, PAGE)
                .encode(ByteBufAllocator.DEFAULT),
            0);
    assertThat(r.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(r.message()).contains("domain socket");
    assertThat(read("/f", 0, 10).bytes()).isEqualTo(Arrays.copyOf(data, 10));
  }

  /** A WHOLE asks the worker to keep a file for this host's readers: over TCP it is refused. */
  @Test
  void whole_overTcp_isRefusedAndTheConnectionStays() {
    Reply r =
        send(
            new WholeRequest(5, "/f", fingerprint, data.length).encode(ByteBufAllocator.DEFAULT),
            0);
    assertThat(r.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(r.message()).contains("domain socket");
    assertThat(read("/f", 0, 10).bytes()).isEqualTo(Arrays.copyOf(data, 10));
  }

  @Test
  void pathEscapingTheRoot_isRefused() {
    assertThat(read("/../etc/passwd", 0, 10).code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
  }
}
