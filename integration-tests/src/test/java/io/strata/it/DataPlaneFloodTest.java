package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.transport.ReadRequest;
import io.strata.testkit.ForkedCluster;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A flood on a worker's data port: a thousand idle connections from one address (the oldest pushed
 * out past the per-address cap of unproven ones), and a client that pipelines READs without end and
 * never reads an answer. The worker holds that client back (it stops reading the connection, and
 * pauses answers the client does not take), so its memory stays bounded; another client is served
 * meanwhile, byte for byte.
 */
class DataPlaneFloodTest {
  private static final int IDLE = 1000;

  /** Small answers from SSD pages are copied: each one the worker held would cost memory. */
  private static final int ANSWER = 60 << 10;

  @Test
  void idleConnectionsAndAClientThatNeverReads_leaveTheWorkersMemoryBounded_andOthersServed()
      throws Exception {
    try (ForkedCluster cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .ssd("64MiB")
            .property(WorkerKeys.MEM_SIZE, "0")
            .property(WorkerKeys.SEGMENT_SIZE, "4MiB")
            .start()) {
      byte[] data = new byte[4 << 20];
      new Random(7).nextBytes(data);
      Files.write(cluster.ufsRoot().resolve("f.bin"), data);
      var conf = cluster.clientConf();
      conf.set(UserKeys.SHORT_CIRCUIT, "false");
      conf.set(UserKeys.DOMAIN_SOCKET, "false");
      try (FileSystem fs = FileSystem.create(conf)) {
        FileInfo f = fs.getStatus("/f.bin");
        assertThat(readAll(fs)).isEqualTo(data);
        long pid = cluster.worker(0).pid();
        long before = rssBytes(pid);
        InetSocketAddress port =
            new InetSocketAddress(InetAddress.getLoopbackAddress(), cluster.workerDataPort(0));

        List<Socket> idle = new ArrayList<>();
        try (SocketChannel flood = SocketChannel.open(port)) {
          // Its first answer proves the flooding client is a client: from then on it is no
          // longer among the unproven connections the newer idle ones push out.
          proveWithOneRead(flood, f);
          for (int i = 0; i < IDLE; i++) {
            idle.add(new Socket(port.getAddress(), port.getPort()));
          }
          idle.get(0).setSoTimeout(15_000);
          assertThat(idle.get(0).getInputStream().read())
              .as("the oldest idle connection, pushed out by the newer ones from its address")
              .isEqualTo(-1);
          flood.configureBlocking(false);
          long sent = pipelineUntilHeldBack(flood, f);
          assertThat(sent).as("READs sent before the client was held back").isPositive();

          // Served meanwhile, whole.
          assertThat(readAll(fs)).isEqualTo(data);
          long grown = rssBytes(pid) - before;
          System.out.printf(
              "flood: %d READs sent, the worker's resident memory grew %d MiB%n",
              sent, grown >> 20);
          // Unbounded, every READ read would hold a copy of its answer (60 KiB): 1.2 GB.
          assertThat(grown)
              .as(
                  "the worker's resident memory grew by %d MiB for %d READs sent",
                  grown >> 20, sent)
              .isLessThan(160L << 20);
          assertThat(cluster.worker(0).isAlive()).isTrue();
        } finally {
          for (Socket s : idle) {
            s.close();
          }
        }
        assertThat(readAll(fs)).isEqualTo(data);
      }
    }
  }

  /** Sends one READ and waits for the first byte of its answer, which stays unread after it. */
  private static void proveWithOneRead(SocketChannel ch, FileInfo f) throws Exception {
    ByteBuf frame =
        new ReadRequest(1, "/f.bin", f.fingerprint(), f.length(), 0, ANSWER)
            .encode(ByteBufAllocator.DEFAULT);
    try {
      ByteBuffer bytes = frame.nioBuffer();
      while (bytes.hasRemaining()) {
        ch.write(bytes);
      }
    } finally {
      frame.release();
    }
    ch.socket().setSoTimeout(15_000);
    assertThat(ch.socket().getInputStream().read())
        .as("the first answer's first byte")
        .isNotEqualTo(-1);
  }

  /**
   * Writes READs of 60 KiB until the worker stops taking them (the socket stays full for a second),
   * at most 20,000; returns how many went out.
   */
  private static long pipelineUntilHeldBack(SocketChannel ch, FileInfo f) throws Exception {
    long sent = 0;
    long stuckSince = 0;
    for (long id = 2; id <= 20_001; id++) {
      ByteBuf frame =
          new ReadRequest(id, "/f.bin", f.fingerprint(), f.length(), 0, ANSWER)
              .encode(ByteBufAllocator.DEFAULT);
      ByteBuffer bytes = frame.nioBuffer();
      try {
        while (bytes.hasRemaining()) {
          if (ch.write(bytes) == 0) {
            if (stuckSince == 0) {
              stuckSince = System.nanoTime();
            } else if (System.nanoTime() - stuckSince > 1_000_000_000L) {
              return sent;
            }
            Thread.sleep(5);
          } else {
            stuckSince = 0;
          }
        }
      } finally {
        frame.release();
      }
      sent++;
    }
    return sent;
  }

  private static byte[] readAll(FileSystem fs) throws Exception {
    try (FileInStream in = fs.open("/f.bin")) {
      return in.readAllBytes();
    }
  }

  private static long rssBytes(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
      }
    }
    throw new IllegalStateException("no VmRSS for " + pid);
  }
}
