package io.strata.client.data;

import static io.strata.client.data.ScriptedDataServer.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.strata.core.net.HostPort;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.ReadRequest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The stream reader against a scripted data server on loopback that speaks the worker's frames. */
class SocketStreamReaderTest {
  private static final int PAGE = 64 * 1024;

  /** How the server answers. */
  enum Mode {
    GOOD,
    SILENT,
    WRONG_ID,
    HANG_UP_AFTER_ONE,
    HANG_UP_MID_ANSWER
  }

  private final byte[] data = new byte[3 * (1 << 20) + 4321];
  private final List<ReadRequest> requests = new CopyOnWriteArrayList<>();
  private volatile Mode mode = Mode.GOOD;
  private final ScriptedDataServer server = new ScriptedDataServer(this::answer);
  private final BlockingChannels channels =
      new BlockingChannels(
          ConnectionLimits.of(
              () -> Duration.ofMillis(500), io.strata.core.security.Credentials.NONE));
  private final DataClient.Target file = new DataClient.Target("/f", "fp", data.length);
  private final Endpoint endpoint;

  SocketStreamReaderTest() throws IOException {
    new Random(3).nextBytes(data);
    endpoint = server.endpoint();
  }

  @AfterEach
  void stop() throws IOException {
    channels.close();
    server.close();
  }

  /** Answers a READ with DATA frames of at most a page, then END, as a worker does. */
  private boolean answer(SocketChannel ch, ByteBuf frame) throws IOException {
    ReadRequest req = ReadRequest.decode(frame);
    requests.add(req);
    if (mode == Mode.SILENT) {
      return true;
    }
    long id = mode == Mode.WRONG_ID ? req.requestId() + 100 : req.requestId();
    long end = Math.min(data.length, req.offset() + req.length());
    for (long at = req.offset(); at < end; at += PAGE) {
      int n = (int) Math.min(PAGE, end - at);
      write(ch, Frames.dataHeader(UnpooledByteBufAllocator.DEFAULT, id, at, n));
      write(ch, Unpooled.wrappedBuffer(data, (int) at, n));
      if (mode == Mode.HANG_UP_MID_ANSWER) {
        return false;
      }
    }
    write(ch, Frames.end(UnpooledByteBufAllocator.DEFAULT, id, StatusCode.OK, ""));
    return mode != Mode.HANG_UP_AFTER_ONE;
  }

  private SocketStreamReader reader(long offset, long readAhead) {
    return new SocketStreamReader(channels, endpoint, file, offset, readAhead);
  }

  private byte[] readToEnd(SocketStreamReader r, int bufferSize) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[bufferSize];
    int n;
    while ((n = r.read(java.nio.ByteBuffer.wrap(buf))) > 0) {
      out.write(buf, 0, n);
    }
    return out.toByteArray();
  }

  @Test
  void readsEveryByte_askingFurtherAheadAsTheStreamGoesOn() {
    try (SocketStreamReader r = reader(0, 4 << 20)) {
      assertThat(readToEnd(r, 10_000)).isEqualTo(data);
      assertThat(r.position()).isEqualTo(data.length);
    }
    assertThat(requests.get(0).length())
        .as("the first request asks for what the reader asked")
        .isEqualTo(10_000);
    assertThat(requests)
        .extracting(ReadRequest::length)
        .as("further ahead as requests are answered, within limits")
        .anyMatch(n -> n >= 1 << 20)
        .allMatch(n -> n <= SocketStreamReader.MAX_REQUEST);
    for (int i = 1; i < requests.size(); i++) {
      ReadRequest prev = requests.get(i - 1);
      assertThat(requests.get(i).offset())
          .as("contiguous")
          .isEqualTo(prev.offset() + prev.length());
    }
  }

  @Test
  void startsAnywhere_andSkipsAShortWayAheadWithoutAskingAgain() {
    int start = 1_000_003;
    try (SocketStreamReader r = reader(start, 1 << 20)) {
      byte[] b = new byte[5000];
      assertThat(r.read(ByteBuffer.wrap(b, 0, 1))).isEqualTo(1);
      assertThat(b[0]).isEqualTo(data[start]);
      assertThat(requests).hasSize(1);
      assertThat(requests.get(0).length())
          .as("at least a small page's worth")
          .isEqualTo(SocketStreamReader.MIN_REQUEST);
      long ahead = r.position() + 2000;
      assertThat(r.skipTo(ahead)).isTrue();
      assertThat(r.position()).isEqualTo(ahead);
      assertThat(requests).as("skipping asked for nothing more").hasSize(1);
      int n = r.read(ByteBuffer.wrap(b, 0, 100));
      assertThat(java.util.Arrays.copyOf(b, n))
          .isEqualTo(java.util.Arrays.copyOfRange(data, (int) ahead, (int) ahead + n));
      // The read may have asked for more; the server records it on its own thread. Wait until
      // two looks 100 ms apart agree.
      java.util.concurrent.atomic.AtomicInteger seen =
          new java.util.concurrent.atomic.AtomicInteger(-1);
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> seen.getAndSet(requests.size()) == requests.size());
      int asked = requests.size();
      assertThat(r.skipTo(start)).as("behind: cannot").isFalse();
      assertThat(r.skipTo(start + (2L << 20))).as("past what was asked: cannot").isFalse();
      assertThat(requests).as("a skip that cannot be made asks for nothing").hasSize(asked);
    }
  }

  @Test
  void aWorkerDyingDuringASkip_makesTheSkipImpossible_notAnError() {
    mode = Mode.HANG_UP_MID_ANSWER;
    try (SocketStreamReader r = reader(0, 1 << 20)) {
      ByteBuffer first = ByteBuffer.allocate(200_000);
      int n = r.read(first);
      assertThat(n).isPositive().isLessThanOrEqualTo(PAGE);
      assertThat(r.skipTo(r.position() + 100_000))
          .as("the worker hung up before those bytes")
          .isFalse();
    }
  }

  @Test
  void aStreamClosedWithLittleInFlight_leavesItsConnectionForTheNext() {
    for (int i = 0; i < 5; i++) {
      try (SocketStreamReader r = reader(i * 100_000L, 1 << 20)) {
        byte[] b = new byte[1000];
        assertThat(r.read(ByteBuffer.wrap(b))).isPositive();
      }
    }
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void aBoundedRead_asksForExactlyItsRange_andKeepsItsConnection() {
    for (int i = 0; i < 3; i++) {
      try (SocketStreamReader r =
          new SocketStreamReader(channels, endpoint, file, 5000, 5100, 100)) {
        byte[] b = new byte[100];
        int done = 0;
        while (done < b.length) {
          done += r.read(ByteBuffer.wrap(b, done, b.length - done));
        }
        assertThat(b).isEqualTo(java.util.Arrays.copyOfRange(data, 5000, 5100));
        assertThat(r.read(ByteBuffer.wrap(b, 0, 100))).as("nothing past its end").isZero();
      }
    }
    assertThat(requests).extracting(ReadRequest::length).containsOnly(100L);
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void aPooledConnectionTheWorkerClosed_isReplacedUnseen() throws Exception {
    mode = Mode.HANG_UP_AFTER_ONE;
    for (int i = 0; i < 3; i++) {
      try (SocketStreamReader r =
          new SocketStreamReader(channels, endpoint, file, 7000, 7100, 100)) {
        byte[] b = new byte[100];
        int done = 0;
        while (done < b.length) {
          done += r.read(ByteBuffer.wrap(b, done, b.length - done));
        }
        assertThat(b).isEqualTo(java.util.Arrays.copyOfRange(data, 7000, 7100));
      }
      int closed = i + 1;
      // The worker's side of the pooled connection closes after its answer.
      await().atMost(Duration.ofSeconds(10)).until(() -> server.hangUps() == closed);
    }
    assertThat(server.connections())
        .as("each pooled connection found closed is replaced")
        .isEqualTo(3);
  }

  @Test
  void aSilentWorker_failsTheReadWithDeadlineExceeded() {
    mode = Mode.SILENT;
    try (SocketStreamReader r = reader(0, 1 << 20)) {
      assertThatThrownBy(() -> r.read(ByteBuffer.allocate(100)))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.DEADLINE_EXCEEDED));
      assertThatThrownBy(() -> r.read(ByteBuffer.allocate(100)))
          .as("spent")
          .isInstanceOf(StrataException.class);
    }
  }

  @Test
  void anAnswerToAnotherRequest_failsTheStreamAndDropsTheConnection() {
    mode = Mode.WRONG_ID;
    try (SocketStreamReader r = reader(0, 1 << 20)) {
      assertThatThrownBy(() -> r.read(ByteBuffer.allocate(100)))
          .isInstanceOfSatisfying(
              StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.INTERNAL));
    }
    mode = Mode.GOOD;
    try (SocketStreamReader r = reader(0, 1 << 20)) {
      assertThat(r.read(ByteBuffer.allocate(100))).isPositive();
    }
    assertThat(server.connections()).as("the broken connection was not reused").isEqualTo(2);
  }

  @Test
  void anUnreachableWorker_isUnavailable() throws IOException {
    int port;
    try (ServerSocketChannel gone =
        ServerSocketChannel.open()
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      port = ((InetSocketAddress) gone.getLocalAddress()).getPort();
    }
    Endpoint nobody = Endpoint.tcp(new HostPort("127.0.0.1", port));
    try (SocketStreamReader r = new SocketStreamReader(channels, nobody, file, 0, 1 << 20)) {
      assertThatThrownBy(() -> r.read(ByteBuffer.allocate(100)))
          .isInstanceOfSatisfying(
              StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.UNAVAILABLE));
    }
  }
}
