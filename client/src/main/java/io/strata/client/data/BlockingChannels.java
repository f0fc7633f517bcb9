package io.strata.client.data;

import io.strata.core.security.Credentials;
import io.strata.core.security.Tls;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.Handshake;
import io.strata.core.util.DaemonThreads;
import io.strata.core.util.Periodic;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Blocking connections to workers' data servers, for callers that do their own socket reads on
 * their own thread (streams, small reads and opens, through {@link DataConnection}): connected on
 * demand, pooled per endpoint when left clean, and watched — a caller blocked longer than the read
 * timeout has its connection closed under it, which ends the blocked read. Thread-safe.
 */
final class BlockingChannels implements AutoCloseable {
  private static final long WATCH_PERIOD_MS = 250;

  /** Something blocked in a socket call since {@link #blockedSinceNanos} (0 when it is not). */
  interface Watched {
    long blockedSinceNanos();

    /**
     * Closes the connection if the call blocked since {@code since} still is: the timeout passed.
     */
    void expire(long since);
  }

  private final ConnectionLimits limits;
  private final Map<Endpoint, BlockingQueue<ByteChannel>> idle = new ConcurrentHashMap<>();
  private final Set<Watched> watched = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService watchdog =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("read-watchdog"));

  private final Credentials credentials;

  BlockingChannels(ConnectionLimits limits) {
    this.limits = limits;
    this.credentials = limits.credentials();
    Periodic.every(
        watchdog,
        "read watchdog",
        WATCH_PERIOD_MS,
        WATCH_PERIOD_MS,
        TimeUnit.MILLISECONDS,
        this::expireStuck);
  }

  Duration timeout() {
    return limits.timeout();
  }

  /**
   * An idle connection to {@code worker} from the pool, or null. It may have been closed by the
   * worker meanwhile.
   */
  ByteChannel pooled(Endpoint worker) {
    BlockingQueue<ByteChannel> q = idle.get(worker);
    ByteChannel ch;
    while (q != null && (ch = q.poll()) != null) {
      if (ch.isOpen()) {
        return ch;
      }
    }
    return null;
  }

  /**
   * A new connection to {@code worker}; UNAVAILABLE if it cannot be reached, CANCELLED if the
   * caller is interrupted.
   */
  ByteChannel open(Endpoint worker) {
    try {
      ByteChannel ch = connect(worker);
      String token = credentials.token();
      if (token != null) {
        authenticate(ch, worker, token);
      }
      return ch;
    } catch (ClosedByInterruptException e) {
      throw interrupted(worker);
    } catch (IOException e) {
      throw StrataException.unavailable(
          "cannot reach worker data server " + worker + ": " + e.getMessage(), e);
    }
  }

  /** An interrupted caller's call: not the worker's failure, so not one to fail over from. */
  static StrataException interrupted(Endpoint worker) {
    return new StrataException(
        StatusCode.CANCELLED, "interrupted while talking to worker " + worker);
  }

  /** A connection to {@code worker}: over TLS if the caller has it, unless by domain socket. */
  private ByteChannel connect(Endpoint worker) throws IOException {
    if (worker.isDomainSocket()) {
      SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
      try {
        ch.connect(UnixDomainSocketAddress.of(worker.domainSocket()));
        return ch;
      } catch (IOException | RuntimeException e) {
        ch.close();
        throw e;
      }
    }
    Optional<Tls> tls = credentials.tls();
    if (tls.isPresent()) {
      return TlsSocketChannel.connect(
          tls.get().nettyClient(),
          worker.tcp().host(),
          worker.tcp().port(),
          limits.connectTimeoutMs());
    }
    SocketChannel ch = SocketChannel.open();
    try {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.socket()
          .connect(
              new InetSocketAddress(worker.tcp().host(), worker.tcp().port()),
              limits.connectTimeoutMs());
      return ch;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /**
   * The data plane's {@link Handshake} on a new connection, bounded by the read timeout (the
   * watchdog closes a connection whose worker does not answer).
   */
  private void authenticate(ByteChannel ch, Endpoint worker, String token) throws IOException {
    long since = System.nanoTime();
    Watched handshake =
        new Watched() {
          @Override
          public long blockedSinceNanos() {
            return since;
          }

          @Override
          public void expire(long blockedSince) {
            closeQuietly(ch);
          }
        };
    watch(handshake);
    try {
      Handshake.authenticate(new SocketFrames(ch), token);
    } catch (UncheckedIOException e) {
      closeQuietly(ch);
      if (!ch.isOpen() && System.nanoTime() - since > limits.timeout().toNanos()) {
        throw new StrataException(
            StatusCode.DEADLINE_EXCEEDED,
            "worker " + worker + " did not answer the data connection's handshake in time");
      }
      throw e.getCause();
    } catch (StrataException e) {
      closeQuietly(ch);
      throw e;
    } finally {
      unwatch(handshake);
    }
  }

  /** Frames over a blocking socket, for the handshake. */
  private record SocketFrames(ByteChannel ch) implements Handshake.FrameIo {
    @Override
    public void write(ByteBuffer frame) {
      try {
        while (frame.hasRemaining()) {
          ch.write(frame);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public ByteBuffer read() {
      ByteBuffer length = readFully(ByteBuffer.allocate(4));
      int n = length.getInt();
      if (n < Frames.HEADER || n > Handshake.MAX_FRAME) {
        throw StrataException.internal("the worker's data server sent a frame of " + n, null);
      }
      return readFully(ByteBuffer.allocate(n));
    }

    private ByteBuffer readFully(ByteBuffer b) {
      try {
        while (b.hasRemaining()) {
          if (ch.read(b) < 0) {
            throw new EOFException("the worker closed the connection");
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return b.flip();
    }
  }

  /** Takes back a connection with nothing in flight on it. */
  void give(Endpoint worker, ByteChannel ch) {
    if (!ch.isOpen()
        || !idle.computeIfAbsent(worker, w -> new ArrayBlockingQueue<>(limits.idlePerWorker()))
            .offer(ch)) {
      closeQuietly(ch);
    }
  }

  void watch(Watched w) {
    watched.add(w);
  }

  void unwatch(Watched w) {
    watched.remove(w);
  }

  private void expireStuck() {
    long limit = limits.timeout().toNanos();
    long now = System.nanoTime();
    for (Watched w : watched) {
      long since = w.blockedSinceNanos();
      if (since != 0 && now - since > limit) {
        w.expire(since);
      }
    }
  }

  static void closeQuietly(ByteChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // Nothing was in flight that anyone still wants.
    }
  }

  @Override
  public void close() {
    watchdog.shutdownNow();
    idle.values().forEach(q -> q.forEach(BlockingChannels::closeQuietly));
    idle.clear();
  }
}
