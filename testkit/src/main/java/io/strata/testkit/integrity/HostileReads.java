package io.strata.testkit.integrity;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.strata.client.FileInfo;
import io.strata.core.transport.LeaseRequest;
import io.strata.core.transport.ReadRequest;
import io.strata.core.transport.Request;
import io.strata.core.transport.Response;
import io.strata.core.transport.ResponseDecoder;
import io.strata.testkit.ForkedCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Random;

/**
 * READs a client could send but an honest one never does, straight to a worker's data port: a
 * file's real fingerprint with a shorter, longer or absurd length, another file's fingerprint,
 * offsets past the end, leases over TCP. The worker may refuse them; what it must not do is cache
 * anything that later reads take for the file's bytes (the checker's readers would see it).
 */
final class HostileReads {
  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;

  private final ForkedCluster cluster;

  HostileReads(ForkedCluster cluster) {
    this.cluster = cluster;
  }

  void send(Random r, FileInfo file, int worker) throws IOException {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), cluster.workerDataPort(worker))) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      for (int k = 0; k < 4; k++) {
        Request req = hostile(r, file, k + 1);
        ByteBuf frame = req.encode(ALLOC);
        try {
          byte[] bytes = new byte[frame.readableBytes()];
          frame.readBytes(bytes);
          out.write(bytes);
        } finally {
          frame.release();
        }
        drain(in, req.requestId());
      }
    }
  }

  private static Request hostile(Random r, FileInfo f, long id) {
    long length = f.length();
    long claimed =
        switch (r.nextInt(4)) {
          case 0 -> 1;
          case 1 -> Math.max(0, length - 1 - r.nextInt(1 << 16));
          case 2 -> length + 1 + r.nextInt(1 << 20);
          default -> Long.MAX_VALUE / 2;
        };
    String fingerprint = r.nextInt(4) == 0 ? f.fingerprint() + "x" : f.fingerprint();
    long offset = r.nextBoolean() ? 0 : (long) (r.nextDouble() * (length + (1 << 20)));
    long n = 1L + r.nextInt(r.nextBoolean() ? 4096 : 4 << 20);
    return r.nextInt(5) == 0
        ? new LeaseRequest(id, f.path(), fingerprint, claimed, offset, n)
        : new ReadRequest(id, f.path(), fingerprint, claimed, offset, n);
  }

  /** Reads the answer to {@code id} to its END, whatever it holds. */
  private static void drain(InputStream in, long id) throws IOException {
    ResponseDecoder decoder = new ResponseDecoder();
    byte[] buf = new byte[64 << 10];
    while (true) {
      int skip = decoder.payloadLeft();
      if (skip > 0) {
        int n = in.read(buf, 0, Math.min(skip, buf.length));
        if (n < 0) {
          return;
        }
        decoder.payloadTaken(n);
        continue;
      }
      byte[] need = in.readNBytes(decoder.needed());
      Response r = decoder.next(Unpooled.wrappedBuffer(need));
      if (r instanceof Response.End && r.requestId() == id) {
        return;
      }
      if (need.length == 0) {
        return;
      }
    }
  }
}
