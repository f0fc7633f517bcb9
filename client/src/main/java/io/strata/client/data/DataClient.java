package io.strata.client.data;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.strata.core.net.HostPort;
import io.strata.core.net.NettyTransport;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.ReadRequest;
import io.strata.core.util.DaemonThreads;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads bytes from workers' data servers. Connections are pooled per worker (at most
 * {@link #IDLE_PER_WORKER} kept idle) and carry one request at a time; a connection whose request
 * failed or timed out is closed, never reused. Thread-safe; blocking calls.
 */
public final class DataClient implements AutoCloseable {
  static final int IDLE_PER_WORKER = 32;
  private static final int CONNECT_TIMEOUT_MS = 5000;

  private final EventLoopGroup group;
  private final Bootstrap bootstrap;
  private final Duration timeout;
  private final Map<HostPort, BlockingQueue<Channel>> idle = new ConcurrentHashMap<>();
  private final AtomicLong requestIds = new AtomicLong();

  public DataClient(Duration timeout) {
    NettyTransport transport = NettyTransport.best();
    this.timeout = timeout;
    this.group = transport.newGroup(2, DaemonThreads.factory("data-client"));
    this.bootstrap = new Bootstrap()
        .group(group)
        .channel(transport.clientChannel(false))
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MS)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            ch.pipeline().addLast("frames", Frames.responseFrameDecoder()).addLast("reads", new ResponseHandler());
          }
        });
  }

  /**
   * Reads up to {@code length} bytes (at most {@link Frames#MAX_READ_LENGTH}) at {@code offset} of
   * one version of a file into {@code dst}; returns the count, short only at end of file.
   */
  public int read(HostPort worker, String path, String fingerprint, long fileLength, long offset, byte[] dst,
      int dstOffset, int length) {
    Channel ch = acquire(worker);
    ResponseHandler handler = ch.pipeline().get(ResponseHandler.class);
    ReadCall call = new ReadCall(requestIds.incrementAndGet(), offset, dst, dstOffset, length);
    handler.begin(call);
    ch.writeAndFlush(new ReadRequest(call.requestId, path, fingerprint, fileLength, offset, length).encode(ch.alloc()));
    try {
      int n = call.done.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      release(worker, ch);
      return n;
    } catch (ExecutionException e) {
      StrataException se = e.getCause() instanceof StrataException s ? s
          : StrataException.internal("read failed: " + e.getCause(), e.getCause());
      // A refused read (NOT_FOUND, changed file...) leaves the connection in a clean state.
      if (se.code() == StatusCode.UNAVAILABLE || se.code() == StatusCode.INTERNAL) {
        ch.close();
      } else {
        release(worker, ch);
      }
      throw se;
    } catch (TimeoutException e) {
      ch.close();
      throw new StrataException(StatusCode.DEADLINE_EXCEEDED, "worker " + worker + " did not answer a read of " + path
          + " within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      ch.close();
      Thread.currentThread().interrupt();
      throw new StrataException(StatusCode.CANCELLED, "interrupted while reading " + path);
    }
  }

  private Channel acquire(HostPort worker) {
    BlockingQueue<Channel> q = idle.get(worker);
    if (q != null) {
      Channel ch;
      while ((ch = q.poll()) != null) {
        if (ch.isActive()) {
          return ch;
        }
      }
    }
    ChannelFuture f = bootstrap.connect(new InetSocketAddress(worker.host(), worker.port())).awaitUninterruptibly();
    if (!f.isSuccess()) {
      throw StrataException.unavailable("cannot reach worker data port " + worker + ": " + f.cause().getMessage(),
          f.cause());
    }
    return f.channel();
  }

  private void release(HostPort worker, Channel ch) {
    if (!ch.isActive() || !idle.computeIfAbsent(worker, w -> new ArrayBlockingQueue<>(IDLE_PER_WORKER)).offer(ch)) {
      ch.close();
    }
  }

  @Override
  public void close() {
    idle.values().forEach(q -> q.forEach(Channel::close));
    idle.clear();
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
