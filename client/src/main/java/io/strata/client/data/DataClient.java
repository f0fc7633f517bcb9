package io.strata.client.data;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.concurrent.Future;
import io.strata.core.net.NettyTransport;
import io.strata.core.security.Credentials;
import io.strata.core.security.Tls;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.LeaseGrant;
import io.strata.core.util.DaemonThreads;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Reads bytes from workers' data servers, over TCP or a Unix domain socket. Each call has a
 * connection of its own for its duration (calls run in parallel on several connections);
 * connections are pooled per endpoint (at most {@link ConnectionLimits#idlePerWorker} kept idle, as
 * on the blocking connections), and one whose call failed or timed out is closed, never reused. A
 * call that makes no progress within the read timeout fails with DEADLINE_EXCEEDED. Thread-safe.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close(): a closed connection fails its call through
// ResponseHandler
public final class DataClient implements AutoCloseable {
  private static final int RECEIVE_BUFFER = 4 << 20;

  private final NettyTransport transport = NettyTransport.best();
  private final EventLoopGroup group;
  private final Bootstrap tcp;
  private final Bootstrap uds;
  private final ConnectionLimits limits;
  private final Map<Endpoint, BlockingQueue<Channel>> idle = new ConcurrentHashMap<>();
  private final AtomicLong requestIds = new AtomicLong();
  private final BlockingChannels blocking;

  private final Credentials credentials;

  /** Without a token: for NONE-mode clusters. */
  public DataClient(Supplier<Duration> timeout) {
    this(timeout, Credentials.NONE);
  }

  /**
   * With {@code credentials}: a new connection first proves who it is ({@link
   * io.strata.core.transport.Handshake}) when there is a token.
   */
  public DataClient(Supplier<Duration> timeout, Credentials credentials) {
    this.limits = ConnectionLimits.of(timeout, credentials);
    this.credentials = credentials;
    this.blocking = new BlockingChannels(limits);
    this.group = transport.newGroup(2, DaemonThreads.factory("data-client"));
    this.tcp =
        bootstrap(false)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.SO_RCVBUF, RECEIVE_BUFFER);
    this.uds = bootstrap(true);
  }

  private Bootstrap bootstrap(boolean domainSocket) {
    return new Bootstrap()
        .group(group)
        .channel(transport.clientChannel(domainSocket))
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, limits.connectTimeoutMs())
        .option(
            ChannelOption.RECVBUF_ALLOCATOR,
            new AdaptiveRecvByteBufAllocator(64 << 10, 256 << 10, 1 << 20))
        .handler(
            new ChannelInitializer<>() {
              @Override
              protected void initChannel(Channel ch) {
                ch.pipeline().addLast("reads", new ResponseHandler());
              }
            });
  }

  /** What to read: one version of a file. */
  public record Target(String path, String fingerprint, long fileLength) {}

  /**
   * Reads into {@code dst} (from its writer index); completes with the byte count, short only at
   * end of file.
   */
  public CompletableFuture<Integer> readAsync(
      Endpoint worker, Target file, long offset, ByteBuf dst, int length) {
    return read(
        worker,
        file,
        ReadCall.intoBuffer(requestIds.incrementAndGet(), offset, file.fileLength(), dst, length));
  }

  private CompletableFuture<Integer> read(Endpoint worker, Target file, ReadCall call) {
    if (call.length() > Frames.MAX_READ_LENGTH) {
      throw new IllegalArgumentException("read longer than " + Frames.MAX_READ_LENGTH);
    }
    return call(worker, file, call);
  }

  /**
   * The current status of the file at {@code path} and its first {@code firstBytes} bytes (fewer if
   * the file is shorter), appended to {@code dst}, in one round trip on the caller's thread over a
   * pooled blocking connection; throws the worker's StrataException.
   */
  public Opened open(
      Endpoint worker, String path, long syncIntervalMs, int firstBytes, ByteBuf dst) {
    return SocketOpen.open(
        blocking,
        worker,
        requestIds.incrementAndGet(),
        path,
        syncIntervalMs,
        firstBytes,
        dst,
        PooledByteBufAllocator.DEFAULT);
  }

  /**
   * A stream of the file's bytes from {@code offset} on, read on the caller's thread over a
   * connection of its own, asking up to {@code readAhead} bytes ahead.
   */
  public StreamReader stream(Endpoint worker, Target file, long offset, long readAhead) {
    return new SocketStreamReader(blocking, worker, file, offset, readAhead);
  }

  /**
   * Asks a local worker, over its domain socket, where the range's pages lie on its disk
   * (blocking).
   */
  public LeaseGrant lease(Endpoint worker, Target file, long offset, long length) {
    return await(
        call(worker, file, new LeaseCall(requestIds.incrementAndGet(), offset, length)),
        file.path());
  }

  /**
   * Asks a local worker, over its domain socket, to keep the version whole on its disk, reading it
   * from the under-storage first if it must (blocking until it is sealed, on a pooled blocking
   * connection: no event loop in between); throws the worker's StrataException, RESOURCE_EXHAUSTED
   * when it does not keep this one whole.
   */
  public void keepWhole(Endpoint worker, Target file) {
    SocketWhole.keep(blocking, worker, requestIds.incrementAndGet(), file);
  }

  /**
   * Reads {@code dst.remaining()} bytes into {@code dst} on the caller's thread, over a pooled
   * blocking connection: no event loop in between, which halves a small read's latency. Short only
   * at end of file; throws the worker's StrataException.
   */
  public int read(Endpoint worker, Target file, long offset, ByteBuffer dst) {
    int length = dst.remaining();
    long end = Math.min(file.fileLength(), offset + length);
    try (SocketStreamReader r =
        new SocketStreamReader(blocking, worker, file, offset, end, length)) {
      int done = 0;
      while (offset + done < end) {
        done += r.read(dst);
      }
      return done;
    }
  }

  private <T> CompletableFuture<T> call(Endpoint worker, Target file, Call<T> call) {
    Channel ch;
    try {
      ch = acquire(worker);
    } catch (StrataException e) {
      return CompletableFuture.failedFuture(e);
    }
    ResponseHandler handler = ch.pipeline().get(ResponseHandler.class);
    if (handler == null) {
      // The connection closed after it was taken from the pool (its pipeline is emptied then).
      ch.close();
      return CompletableFuture.failedFuture(
          StrataException.unavailable(
              "connection to worker " + worker + " closed before the request was sent", null));
    }
    handler.begin(call);
    // A pooled connection may have closed since it was checked: fail now rather than at the
    // timeout.
    ch.writeAndFlush(call.request(file, ch.alloc()))
        .addListener(
            sent -> {
              if (!sent.isSuccess()) {
                call.fail(
                    StrataException.unavailable(
                        "cannot send to worker " + worker + ": " + sent.cause().getMessage(),
                        sent.cause()));
              }
            });
    long ms = limits.timeout().toMillis();
    var timer =
        ch.eventLoop()
            .schedule(
                () -> {
                  if (call.done.completeExceptionally(
                      new StrataException(
                          StatusCode.DEADLINE_EXCEEDED,
                          "worker "
                              + worker
                              + " did not answer a request for "
                              + file.path()
                              + " within "
                              + ms
                              + " ms"))) {
                    ch.close();
                  }
                },
                ms,
                TimeUnit.MILLISECONDS);
    return call.done.whenComplete(
        (n, error) -> {
          timer.cancel(false);
          if (error == null || cleanRefusal(error)) {
            release(worker, ch);
          } else {
            ch.close();
          }
        });
  }

  /** A refused read (NOT_FOUND, changed file...) leaves the connection usable. */
  private static boolean cleanRefusal(Throwable error) {
    return error instanceof StrataException se
        && se.code() != StatusCode.UNAVAILABLE
        && se.code() != StatusCode.INTERNAL
        && se.code() != StatusCode.DEADLINE_EXCEEDED;
  }

  public static <T> T await(CompletableFuture<T> f, String path) {
    try {
      return f.get();
    } catch (ExecutionException e) {
      throw e.getCause() instanceof StrataException s
          ? s
          : StrataException.internal("read of " + path + " failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StrataException(StatusCode.CANCELLED, "interrupted while reading " + path);
    }
  }

  private Channel acquire(Endpoint worker) {
    BlockingQueue<Channel> q = idle.get(worker);
    if (q != null) {
      Channel ch;
      while ((ch = q.poll()) != null) {
        if (ch.isActive() && ch.pipeline().get(ResponseHandler.class) != null) {
          return ch;
        }
        ch.close();
      }
    }
    Bootstrap b = worker.isDomainSocket() ? uds : tcp;
    ChannelFuture f = b.connect(address(worker)).awaitUninterruptibly();
    if (!f.isSuccess()) {
      throw StrataException.unavailable(
          "cannot reach worker data server " + worker + ": " + f.cause().getMessage(), f.cause());
    }
    if (!worker.isDomainSocket() && credentials.tls().isPresent()) {
      secure(f.channel(), worker, credentials.tls().get());
    }
    String token = credentials.token();
    if (token != null) {
      ChannelFrames.authenticate(f.channel(), token, limits.timeout(), worker);
    }
    return f.channel();
  }

  /**
   * TLS in front of the connection's handlers, its handshake done (the worker's certificate checked
   * against its host name) before any frame goes out.
   */
  private void secure(Channel ch, Endpoint worker, Tls tls) {
    SslHandler handler =
        tls.nettyClient().newHandler(ch.alloc(), worker.tcp().host(), worker.tcp().port());
    ch.pipeline().addFirst("tls", handler);
    Future<Channel> handshake = handler.handshakeFuture();
    if (!handshake.awaitUninterruptibly(limits.timeout().toMillis()) || !handshake.isSuccess()) {
      ch.close();
      Throwable cause = handshake.cause();
      throw StrataException.unavailable(
          "TLS handshake with worker data server "
              + worker
              + " failed: "
              + (cause == null ? "no answer in time" : cause.getMessage()),
          cause);
    }
  }

  private SocketAddress address(Endpoint worker) {
    if (!worker.isDomainSocket()) {
      return new InetSocketAddress(worker.tcp().host(), worker.tcp().port());
    }
    return transport == NettyTransport.EPOLL
        ? new DomainSocketAddress(worker.domainSocket())
        : UnixDomainSocketAddress.of(worker.domainSocket());
  }

  private void release(Endpoint worker, Channel ch) {
    if (!ch.isActive()
        || !idle.computeIfAbsent(worker, w -> new ArrayBlockingQueue<>(limits.idlePerWorker()))
            .offer(ch)) {
      ch.close();
    }
  }

  @Override
  public void close() {
    idle.values().forEach(q -> q.forEach(Channel::close));
    idle.clear();
    blocking.close();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
