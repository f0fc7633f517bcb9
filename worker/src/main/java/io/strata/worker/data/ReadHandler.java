package io.strata.worker.data;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.strata.core.transport.LeaseRequest;
import io.strata.core.transport.OpenRequest;
import io.strata.core.transport.ReadRequest;
import io.strata.core.transport.Request;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the requests of one connection, one at a time in arrival order, each kind by its
 * responder: {@link ReadResponder}, {@link OpenResponder}, {@link LeaseResponder}. A request's END
 * starts the next one. A broken frame (or a failed write) closes the connection.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close(): what follows a close is channelInactive's
final class ReadHandler extends SimpleChannelInboundHandler<Request> implements Request.Handler {
  private static final Logger LOG = LoggerFactory.getLogger(ReadHandler.class);

  /** The responders every connection of a server shares. */
  record Responders(
      ReadResponder reads,
      OpenResponder opens,
      LeaseResponder leases,
      DataServerMetrics metrics,
      LongSupplier nanoTime) {

    static Responders of(
        UfsManager ufs,
        PageFetcher fetcher,
        MetadataService metadata,
        Executor metadataExecutor,
        LeaseDesk leases,
        DataServerMetrics metrics,
        LongSupplier nanoTime) {
      ReadResponder reads = new ReadResponder(ufs, fetcher, metrics);
      return new Responders(
          reads,
          new OpenResponder(metadata, metadataExecutor, reads, metrics),
          new LeaseResponder(leases, reads, metrics),
          metrics,
          nanoTime);
    }
  }

  private final Responders responders;
  private final ArrayDeque<Request> queue = new ArrayDeque<>();
  private boolean busy;

  /** The request being answered. */
  private Exchange current;

  ReadHandler(Responders responders) {
    this.responders = responders;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Request request) {
    queue.add(request);
    if (!busy) {
      next(ctx);
    }
  }

  private void next(ChannelHandlerContext ctx) {
    Request request = queue.poll();
    busy = request != null;
    if (request == null) {
      return;
    }
    current =
        new Exchange(
            ctx, request.requestId(), responders.metrics(), responders.nanoTime(), () -> next(ctx));
    request.dispatch(this);
  }

  @Override
  public void read(ReadRequest r) {
    responders.reads().read(current, r);
  }

  @Override
  public void open(OpenRequest r) {
    responders.opens().open(current, r);
  }

  @Override
  public void lease(LeaseRequest r) {
    responders.leases().lease(current, r);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug(
        "closing data connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
