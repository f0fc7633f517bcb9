package io.strata.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.UserKeys;
import io.strata.testkit.MiniCluster;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Garbage on the worker's data port and domain socket: each bad connection is closed, nothing else
 * is disturbed — a reader with a connection open keeps reading through it all.
 */
class MalformedFramesTest {
  private static MiniCluster cluster;
  private static FileSystem fs;
  private static byte[] data;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().workers(1).domainSockets().start();
    data = new byte[300_000];
    new Random(5).nextBytes(data);
    Files.write(cluster.ufsRoot().resolve("f.bin"), data);
    var conf = cluster.clientConf();
    conf.set(UserKeys.SHORT_CIRCUIT, "false");
    fs = FileSystem.create(conf);
  }

  @AfterAll
  static void stop() {
    fs.close();
    cluster.close();
  }

  /** What a broken client might send; each must close its connection and nothing more. */
  private static final byte[][] GARBAGE = {
    frame(9, (byte) 42, 1L), // unknown frame type
    ByteBuffer.allocate(4).putInt(512 << 20).array(), // oversized length field
    ByteBuffer.allocate(4).putInt(-5).array(), // negative length field
    frame(
        9 + 4,
        (byte) 1,
        1L,
        new byte[] {(byte) 0xFF, (byte) 0xFF, 0, 0}), // READ whose path runs past the frame
    frame(9, (byte) 2, 7L), // a response type sent to the server
    "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(UTF_8), // another protocol
  };

  private static byte[] frame(int length, byte type, long requestId, byte[]... body) {
    ByteBuffer b = ByteBuffer.allocate(4 + 9 + Arrays.stream(body).mapToInt(x -> x.length).sum());
    b.putInt(length).put(type).putLong(requestId);
    for (byte[] x : body) {
      b.put(x);
    }
    return b.array();
  }

  private SocketAddress address(String transport) {
    return transport.equals("tcp")
        ? new InetSocketAddress(InetAddress.getLoopbackAddress(), cluster.worker(0).dataPort())
        : UnixDomainSocketAddress.of(cluster.domainSocket(0));
  }

  private SocketChannel connect(String transport) throws IOException {
    SocketAddress a = address(transport);
    SocketChannel ch =
        SocketChannel.open(
            a instanceof UnixDomainSocketAddress
                ? StandardProtocolFamily.UNIX
                : StandardProtocolFamily.INET);
    ch.connect(a);
    return ch;
  }

  /** True when the server closes the connection within the time limit. */
  private static boolean closedByServer(SocketChannel ch) throws IOException {
    ch.configureBlocking(false);
    ByteBuffer sink = ByteBuffer.allocate(4096);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      try {
        if (ch.read(sink) < 0) {
          return true;
        }
      } catch (IOException reset) {
        return true;
      }
      sink.clear();
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  private static void assertReadsStillWork(FileInStream open) throws IOException {
    byte[] got = new byte[50_000];
    open.readFully(123_456, got, 0, got.length);
    assertThat(got).isEqualTo(Arrays.copyOfRange(data, 123_456, 123_456 + got.length));
    try (FileInStream in = fs.open("/f.bin")) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "domain_socket"})
  void everyKindOfGarbage_closesOnlyItsConnection(String transport) throws Exception {
    try (FileInStream open = fs.open("/f.bin")) {
      assertReadsStillWork(open);
      for (byte[] garbage : GARBAGE) {
        try (SocketChannel ch = connect(transport)) {
          ch.write(ByteBuffer.wrap(garbage));
          assertThat(closedByServer(ch))
              .as(
                  "connection closed after %s",
                  Arrays.toString(Arrays.copyOf(garbage, Math.min(16, garbage.length))))
              .isTrue();
        }
        assertReadsStillWork(open);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"tcp", "domain_socket"})
  void truncatedFrame_thenHangUp_leavesTheServerServing(String transport) throws Exception {
    try (SocketChannel ch = connect(transport)) {
      ch.write(ByteBuffer.wrap(frame(1000, (byte) 1, 3L)));
      ch.shutdownOutput();
      assertThat(closedByServer(ch)).isTrue();
    }
    try (FileInStream open = fs.open("/f.bin")) {
      assertReadsStillWork(open);
    }
  }
}
