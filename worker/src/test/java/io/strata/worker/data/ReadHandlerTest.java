package io.strata.worker.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.transport.Frames;
import io.strata.core.transport.ReadRequest;
import io.strata.worker.TestFiles;
import io.strata.worker.page.PageStore;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The data pipeline on an EmbeddedChannel: frames in, frames out. */
class ReadHandlerTest {
  private static final int PAGE = 4096;

  @TempDir
  Path root;
  private byte[] data;
  private PageStore store;
  private UfsManager ufs;
  private EmbeddedChannel channel;
  private String fingerprint;

  /** What came back for one request. */
  record Reply(byte[] bytes, StatusCode code, String message) {}

  @BeforeEach
  void setUp() throws Exception {
    data = new byte[PAGE * 3 + 77];
    new Random(3).nextBytes(data);
    Files.write(root.resolve("f"), data);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    store = TestFiles.pageStore(1 << 20, registry);
    ufs = TestFiles.ufsAt(root);
    PageFetcher fetcher = new PageFetcher(store, PAGE, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    DataServerMetrics metrics = new DataServerMetrics(registry);
    LeaseDesk leases = new LeaseDesk(fetcher, System::nanoTime);
    channel = new EmbeddedChannel(new DataServerInitializer(() -> new ReadHandler(ufs, fetcher, metrics, leases),
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
    long offset = request.offset();
    channel.writeInbound(request.encode(ByteBufAllocator.DEFAULT));
    channel.runPendingTasks();
    ByteBuf all = Unpooled.buffer();
    ByteBuf part;
    while ((part = channel.readOutbound()) != null) {
      all.writeBytes(part);
      part.release();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    long expectedOffset = offset;
    try {
      while (true) {
        int length0 = all.readInt();
        ByteBuf frame = all.readSlice(length0);
        byte type = frame.readByte();
        assertThat(frame.readLong()).isEqualTo(5);
        if (type == Frames.DATA) {
          assertThat(frame.readLong()).isEqualTo(expectedOffset);
          expectedOffset += frame.readableBytes();
          byte[] chunk = new byte[frame.readableBytes()];
          frame.readBytes(chunk);
          bytes.writeBytes(chunk);
        } else {
          assertThat(type).isEqualTo(Frames.END);
          StatusCode code = StatusCode.fromNumber(frame.readUnsignedByte());
          String message = frame.readCharSequence(frame.readUnsignedShort(), java.nio.charset.StandardCharsets.UTF_8)
              .toString();
          assertThat(all.isReadable()).isFalse();
          return new Reply(bytes.toByteArray(), code, message);
        }
      }
    } finally {
      all.release();
    }
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
    Reply r = send(new ReadRequest(5, "/f", fingerprint, data.length, 0, PAGE, true));
    assertThat(r.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(r.message()).contains("domain socket");
    assertThat(read("/f", 0, 10).bytes()).isEqualTo(Arrays.copyOf(data, 10));
  }

  @Test
  void pathEscapingTheRoot_isRefused() {
    assertThat(read("/../etc/passwd", 0, 10).code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
  }
}
