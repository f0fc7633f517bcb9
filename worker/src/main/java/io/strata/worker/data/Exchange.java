package io.strata.worker.data;

import io.netty.channel.ChannelHandlerContext;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * One request being answered on one connection: where its frames go, its END (which also records
 * its latency and lets the connection take its next request), and the way back to the connection's
 * event loop for work finished elsewhere. Used on the event loop only.
 */
// Writes go on the void promise: a failed write reaches the handler's exceptionCaught, which
// closes.
@SuppressWarnings("FutureReturnValueIgnored")
final class Exchange {
  final ChannelHandlerContext ctx;
  final long requestId;
  private final DataServerMetrics metrics;
  private final LongSupplier nanoTime;
  private final long started;
  private final Runnable next;

  Exchange(
      ChannelHandlerContext ctx,
      long requestId,
      DataServerMetrics metrics,
      LongSupplier nanoTime,
      Runnable next) {
    this.ctx = ctx;
    this.requestId = requestId;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
    this.started = nanoTime.getAsLong();
    this.next = next;
  }

  /** What resumes this answer once the connection takes bytes again; null when not paused. */
  private Runnable paused;

  /** Whether the connection takes more bytes now (its outbound buffer is under its high mark). */
  boolean hasRoom() {
    return ctx.channel().isWritable();
  }

  /**
   * Pauses this answer until the connection has room again (or closes): {@code resume} then runs on
   * the event loop.
   */
  void whenWritable(Runnable resume) {
    paused = resume;
    ctx.flush();
  }

  /** The connection has room again, or closed: a paused answer resumes. */
  void writable() {
    Runnable resume = paused;
    paused = null;
    if (resume != null) {
      resume.run();
    }
  }

  /**
   * Whether memory pages go out by sendfile on this connection: over a domain socket the kernel
   * then hands the reader the pages themselves (one copy per byte, not two).
   */
  boolean memoryByFile() {
    return DataServerInitializer.isDomainSocket(ctx.channel());
  }

  /** Writes a frame of this answer (flushed with the END, or by a reply that pauses). */
  void write(Object frame) {
    ctx.write(frame, ctx.voidPromise());
  }

  void end(StatusCode code, String message) {
    ctx.writeAndFlush(Frames.end(ctx.alloc(), requestId, code, message), ctx.voidPromise());
    metrics.latency(code).record(nanoTime.getAsLong() - started, TimeUnit.NANOSECONDS);
    next.run();
  }

  /**
   * Whether the request came over the domain socket; if not, ends it FAILED_PRECONDITION with
   * {@code refusal} (what only this host's clients may ask: a client across the network cannot open
   * this host's files).
   */
  boolean overDomainSocket(String refusal) {
    if (DataServerInitializer.isDomainSocket(ctx.channel())) {
      return true;
    }
    end(StatusCode.FAILED_PRECONDITION, refusal);
    return false;
  }

  void ok() {
    end(StatusCode.OK, "");
  }

  void fail(StrataException e) {
    end(e.code(), e.getMessage());
  }

  /**
   * Runs {@code task} on the connection's event loop; false when the loop is shutting down (the
   * connection goes with the server).
   */
  boolean onEventLoop(Runnable task) {
    try {
      ctx.executor().execute(task);
      return true;
    } catch (RejectedExecutionException stopping) {
      return false;
    }
  }

  /** The Strata failure in what a future failed with. */
  static StrataException unwrap(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    return c instanceof StrataException se ? se : StrataException.internal(String.valueOf(c), c);
  }
}
