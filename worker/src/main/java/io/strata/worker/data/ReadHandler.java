package io.strata.worker.data;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.LeaseRequest;
import io.strata.core.transport.OpenRequest;
import io.strata.core.transport.ReadRequest;
import io.strata.core.transport.Request;
import io.strata.core.transport.WholeRequest;
import io.strata.worker.auth.Permissions;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves the requests of one connection, one at a time in arrival order, each kind by its
 * responder: {@link ReadResponder}, {@link OpenResponder}, {@link LeaseResponder}, {@link
 * WholeResponder}. A request's END starts the next one. A broken frame (or a failed write) closes
 * the connection.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close(): what follows a close is channelInactive's
final class ReadHandler extends SimpleChannelInboundHandler<Request> implements Request.Handler {
  private static final Logger LOG = LoggerFactory.getLogger(ReadHandler.class);

  /** The responders every connection of a server shares. */
  record Responders(
      ReadResponder reads,
      OpenResponder opens,
      LeaseResponder leases,
      WholeResponder wholes,
      DataServerMetrics metrics,
      LongSupplier nanoTime,
      Permissions access,
      Function<StrataPath, FileStatus> status,
      Executor metadataExecutor,
      Supplier<ReadGrants> grants) {

    static Responders of(
        UfsManager ufs,
        PageFetcher fetcher,
        MetadataService metadata,
        Executor metadataExecutor,
        LeaseDesk leases,
        DataServerMetrics metrics,
        LongSupplier nanoTime) {
      return of(
          ufs,
          fetcher,
          metadata,
          metadataExecutor,
          leases,
          metrics,
          nanoTime,
          Permissions.of(p -> metadata.getStatus(p, -1), () -> false, () -> ""),
          (file, key, fingerprint, length) -> CompletableFuture.completedFuture(false));
    }

    static Responders of(
        UfsManager ufs,
        PageFetcher fetcher,
        MetadataService metadata,
        Executor metadataExecutor,
        LeaseDesk leases,
        DataServerMetrics metrics,
        LongSupplier nanoTime,
        Permissions access,
        WholeKeeper keeper) {
      ReadResponder reads = new ReadResponder(ufs, fetcher, metrics);
      return new Responders(
          reads,
          new OpenResponder(metadata, metadataExecutor, reads, metrics),
          new LeaseResponder(leases, reads, metrics),
          new WholeResponder(keeper, reads, metrics),
          metrics,
          nanoTime,
          access,
          p -> metadata.getStatus(p, -1),
          metadataExecutor,
          () ->
              new ReadGrants(
                  metadata::forgettings, () -> metadata.statusTtl().toNanos(), nanoTime));
    }
  }

  /** Files this connection's caller was found allowed to read (TOKEN mode's users). */
  private final ReadGrants grants;

  /**
   * How many bytes of READs waiting behind the one being answered may have their pages asked for
   * already (a reader's read-ahead is 4 MiB by default): what the connection holds before a reply
   * stays bounded whatever a client sends.
   */
  static final long PREPARED_MAX_BYTES = 16 << 20;

  /**
   * Requests a connection may have waiting: past it, the connection is not read until it drains
   * (TCP then holds back a client that pipelines without end), as it is not while its answers back
   * up past the outbound buffer's high-water mark.
   */
  static final int MAX_WAITING = 64;

  private final Responders responders;

  /** Requests waiting for their turn; a READ's pages may be asked for already. */
  private final ArrayDeque<Waiting> queue = new ArrayDeque<>();

  private long preparedBytes;
  private boolean busy;

  /** The request being answered. */
  private Exchange current;

  ReadHandler(Responders responders) {
    this.responders = responders;
    this.grants = responders.grants().get();
  }

  /** A request and, for a READ asked for ahead, its pages and the bytes it claimed. */
  private record Waiting(Request request, ReadResponder.Pages pages, long claimed) {}

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Request request) {
    ReadResponder.Pages pages = null;
    long claimed = 0;
    // Counted as the client claims it, not as the file cuts it: bounded whatever the files are.
    // A user's READs are not fetched ahead: nothing is read for them before the check.
    if (busy
        && caller(ctx) == null
        && request instanceof ReadRequest read
        && preparedBytes + read.length() <= PREPARED_MAX_BYTES) {
      pages = responders.reads().prepare(read);
      claimed = read.length();
      preparedBytes += claimed;
    }
    queue.add(new Waiting(request, pages, claimed));
    if (queue.size() >= MAX_WAITING) {
      ctx.channel().config().setAutoRead(false);
    }
    if (!busy) {
      next(ctx);
    }
  }

  /** Reads more requests once few wait and the answers flow. */
  private void readMoreIfRoom(ChannelHandlerContext ctx) {
    if (queue.size() < MAX_WAITING / 2 && ctx.channel().isWritable()) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    if (ctx.channel().isWritable()) {
      readMoreIfRoom(ctx);
      if (current != null) {
        current.writable();
      }
    } else {
      ctx.channel().config().setAutoRead(false);
    }
    super.channelWritabilityChanged(ctx);
  }

  /** A connection that sent nothing and took nothing for the idle timeout is closed. */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent) {
      LOG.debug("closing idle data connection from {}", ctx.channel().remoteAddress());
      ctx.close();
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  private void next(ChannelHandlerContext ctx) {
    Waiting waiting = queue.poll();
    busy = waiting != null;
    readMoreIfRoom(ctx);
    if (waiting == null) {
      return;
    }
    Request request = waiting.request();
    current =
        new Exchange(
            ctx, request.requestId(), responders.metrics(), responders.nanoTime(), () -> next(ctx));
    Principal caller = caller(ctx);
    if (caller != null && !grants.holds(request.path(), claimedVersion(request))) {
      check(ctx, caller, waiting);
      return;
    }
    answer(waiting);
  }

  /** The user this connection authenticated as, if its reads may be checked; else null. */
  private static Principal caller(ChannelHandlerContext ctx) {
    // Whether a user is checked at all may take a look-up of their groups: decided off the event
    // loop, in the check itself.
    Principal caller = ctx.channel().attr(Gatekeeper.CALLER).get();
    return caller != null && caller.role() == Role.USER ? caller : null;
  }

  /**
   * The version of its file a request names (null: an OPEN, which takes the current one). Pages are
   * cached by version, and a listing tells anyone who may list a folder each file's version: a
   * user's request may name a version only while it is the file's current one, or a version cached
   * when the file was private would be served once it became readable.
   */
  private static String claimedVersion(Request request) {
    if (request instanceof ReadRequest r) {
      return r.fingerprint();
    }
    if (request instanceof WholeRequest w) {
      return w.fingerprint();
    }
    return request instanceof LeaseRequest l ? l.fingerprint() : null;
  }

  /**
   * Checks that the caller may read the request's file and that the version it names is the file's
   * current one (its metadata may be looked up in the under-storage: off the event loop), then
   * answers it, or refuses it PERMISSION_DENIED or FAILED_PRECONDITION.
   */
  private void check(ChannelHandlerContext ctx, Principal caller, Waiting waiting) {
    Exchange x = current;
    String path = waiting.request().path();
    String version = claimedVersion(waiting.request());
    long mark = grants.mark();
    CompletableFuture.supplyAsync(
            () -> {
              StrataPath p = StrataPath.of(path);
              responders.access().checkPath(caller, p, Permissions.READ, "read");
              String current = responders.status().apply(p).getFingerprint();
              if (version != null && !version.equals(current)) {
                throw new StrataException(
                    StatusCode.FAILED_PRECONDITION,
                    path + " changed: the version read is no longer the file's; open it again");
              }
              return current;
            },
            responders.metadataExecutor())
        .whenComplete(
            (current, error) ->
                ctx.executor()
                    .execute(
                        () -> {
                          if (error != null) {
                            Throwable cause =
                                error instanceof CompletionException ? error.getCause() : error;
                            x.fail(
                                cause instanceof StrataException se
                                    ? se
                                    : StrataException.internal(
                                        "cannot check " + path + ": " + cause, cause));
                            return;
                          }
                          grants.grant(path, current, mark);
                          answer(waiting);
                        }));
  }

  private void answer(Waiting waiting) {
    Request request = waiting.request();
    if (waiting.pages() != null) {
      preparedBytes -= waiting.claimed();
      responders.reads().send(current, waiting.pages());
    } else {
      request.dispatch(this);
    }
  }

  /** Pages asked for ahead of a request that will not be answered are let go. */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    for (Waiting w : queue) {
      if (w.pages() != null) {
        w.pages().releaseFrom(0);
      }
    }
    queue.clear();
    preparedBytes = 0;
    if (current != null) {
      // A reply paused for room lets its pages go.
      current.writable();
    }
    super.channelInactive(ctx);
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
  public void whole(WholeRequest r) {
    responders.wholes().whole(current, r);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug(
        "closing data connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
