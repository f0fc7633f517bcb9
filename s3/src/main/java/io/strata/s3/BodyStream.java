package io.strata.s3;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * A request's body as the blocking side reads it, fed by the connection's event loop. The channel
 * reads only when asked ({@code autoRead} off): the body asks for more ({@code wantMore}) each time
 * it has handed out all it holds, so a client sends no faster than the cluster takes its bytes.
 */
final class BodyStream extends BlockInput {
  private final ArrayDeque<ByteBuf> parts = new ArrayDeque<>();
  private final Runnable wantMore;
  private final long waitNanos;
  private boolean ended;
  private boolean discarding;
  private IOException failed;
  private long received;

  BodyStream(Runnable wantMore, Duration wait) {
    this.wantMore = wantMore;
    this.waitNanos = wait.toNanos();
  }

  /** Bytes that arrived (on the event loop); the stream keeps its own reference. */
  synchronized void offer(ByteBuf part) {
    if (ended || failed != null) {
      return;
    }
    received += part.readableBytes();
    if (part.isReadable() && !discarding) {
      parts.add(part.retain());
    }
    notifyAll();
  }

  /** The body's last bytes arrived. */
  synchronized void end() {
    ended = true;
    notifyAll();
  }

  /** The connection ended or broke before the body did. */
  synchronized void fail(IOException e) {
    if (failed == null) {
      failed = e;
    }
    parts.forEach(ByteBuf::release);
    parts.clear();
    notifyAll();
  }

  /** Whether the connection broke, or the body was refused as malformed, before it ended. */
  synchronized boolean failedEarly() {
    return failed != null;
  }

  /** Whether the whole body arrived (so the connection can carry another request). */
  synchronized boolean ended() {
    return ended && failed == null;
  }

  /** Whether the blocking side waits for bytes that have not arrived: the channel should read. */
  synchronized boolean wanting() {
    return parts.isEmpty() && !ended && failed == null;
  }

  /** Bytes that arrived, those dropped after {@link #close} included. */
  synchronized long received() {
    return received;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    boolean askMore = false;
    int n;
    synchronized (this) {
      long deadline = System.nanoTime() + waitNanos;
      while (parts.isEmpty() && !ended && failed == null) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IOException("the client sent nothing for " + Duration.ofNanos(waitNanos));
        }
        try {
          wait(left / 1_000_000 + 1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while reading a request's body");
        }
      }
      if (failed != null) {
        throw failed;
      }
      if (parts.isEmpty()) {
        return -1;
      }
      ByteBuf head = parts.peek();
      n = Math.min(len, head.readableBytes());
      head.readBytes(b, off, n);
      if (!head.isReadable()) {
        parts.poll().release();
        askMore = parts.isEmpty() && !ended;
      }
    }
    if (askMore) {
      wantMore.run();
    }
    return n;
  }

  /** Drops what was not read, and what arrives later; the body still has to end for keep-alive. */
  @Override
  public synchronized void close() {
    discarding = true;
    parts.forEach(ByteBuf::release);
    parts.clear();
  }
}
