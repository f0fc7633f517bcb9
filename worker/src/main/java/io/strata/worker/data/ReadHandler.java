package io.strata.worker.data;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.OpenRequest;
import io.strata.core.transport.ReadRequest;
import io.strata.core.util.Futures;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.page.PageId;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.read.PageFetcher.Fetched;
import io.strata.worker.ufs.UfsManager;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves READ requests of one connection, one at a time in arrival order. Pages the cache holds are
 * sent at once from the event loop; misses are fetched on the UFS executor and the reply resumes on
 * the event loop when they arrive. Memory pages go out as retained slices, SSD pages verified
 * before as file regions (sendfile), neither copied by the worker. A broken frame closes the
 * connection; an error reading a file ends that request with its code. LEASE requests are answered
 * from the {@link LeaseDesk}, on domain-socket connections only: a client across the network cannot
 * open this host's files. An OPEN is answered with the file's status (from the metadata cache's
 * memory on the event loop, else looked up on the metadata executor) and then served as a READ of
 * the file's first bytes.
 */
@SuppressWarnings("FutureReturnValueIgnored") // close(): what follows a close is channelInactive's
final class ReadHandler extends SimpleChannelInboundHandler<Object> {
  private static final Logger LOG = LoggerFactory.getLogger(ReadHandler.class);

  private final UfsManager ufs;
  private final PageFetcher fetcher;
  private final DataServerMetrics metrics;
  private final LeaseDesk leases;
  private final MetadataService metadata;
  private final Executor metadataExecutor;
  private final ArrayDeque<Object> queue = new ArrayDeque<>();
  private boolean busy;

  ReadHandler(
      UfsManager ufs,
      PageFetcher fetcher,
      DataServerMetrics metrics,
      LeaseDesk leases,
      MetadataService metadata,
      Executor metadataExecutor) {
    this.ufs = ufs;
    this.fetcher = fetcher;
    this.metrics = metrics;
    this.leases = leases;
    this.metadata = metadata;
    this.metadataExecutor = metadataExecutor;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, Object request) {
    queue.add(request);
    if (!busy) {
      next(ctx);
    }
  }

  private void next(ChannelHandlerContext ctx) {
    Object request = queue.poll();
    busy = request != null;
    if (request instanceof OpenRequest open) {
      open(ctx, open);
    } else if (request != null) {
      start(ctx, (ReadRequest) request);
    }
  }

  private void start(ChannelHandlerContext ctx, ReadRequest req) {
    long started = System.nanoTime();
    metrics.requests(req.lease() ? "lease" : "read").increment();
    PageFetcher.Target target;
    try {
      target = target(req.path(), req.fingerprint(), req.fileLength());
    } catch (StrataException e) {
      end(ctx, req.requestId(), e.code(), e.getMessage(), started);
      return;
    }
    if (req.lease()) {
      lease(ctx, req, target, started);
      return;
    }
    serve(ctx, req, target, started);
  }

  private PageFetcher.Target target(String path, String fingerprint, long fileLength) {
    UfsManager.Resolved file = ufs.resolve(StrataPath.of(path));
    return new PageFetcher.Target(
        file, fingerprint, fileLength, PageId.FileKey.of(file.ufsUri(), fingerprint));
  }

  private void open(ChannelHandlerContext ctx, OpenRequest req) {
    long started = System.nanoTime();
    metrics.requests("open").increment();
    CompletableFuture<FileStatus> status;
    try {
      StrataPath path = StrataPath.of(req.path());
      Optional<FileStatus> cached = metadata.statusInMemory(path, req.syncIntervalMs());
      status =
          cached.isPresent()
              ? CompletableFuture.completedFuture(cached.get())
              : CompletableFuture.supplyAsync(
                  () -> metadata.getStatus(path, req.syncIntervalMs()), metadataExecutor);
    } catch (StrataException e) {
      end(ctx, req.requestId(), e.code(), e.getMessage(), started);
      return;
    } catch (RejectedExecutionException e) {
      end(ctx, req.requestId(), StatusCode.UNAVAILABLE, "worker is stopping", started);
      return;
    }
    if (status.isDone()) {
      opened(ctx, req, status, started);
      return;
    }
    Futures.onDone(
        status,
        (s, e) -> {
          try {
            ctx.executor().execute(() -> opened(ctx, req, status, started));
          } catch (RejectedExecutionException stopping) {
            // The connection goes with the server.
          }
        });
  }

  private void opened(
      ChannelHandlerContext ctx,
      OpenRequest req,
      CompletableFuture<FileStatus> found,
      long started) {
    FileStatus status;
    PageFetcher.Target target;
    try {
      status = found.join();
      target =
          status.getDirectory()
              ? null
              : target(req.path(), status.getFingerprint(), status.getLength());
    } catch (RuntimeException e) {
      StrataException se = unwrap(e);
      end(ctx, req.requestId(), se.code(), se.getMessage(), started);
      return;
    }
    byte[] encoded = status.toByteArray();
    if (encoded.length > Frames.MAX_STATUS) {
      end(
          ctx,
          req.requestId(),
          StatusCode.INVALID_ARGUMENT,
          "the status of " + req.path() + " is too large to send",
          started);
      return;
    }
    ctx.write(Frames.status(ctx.alloc(), req.requestId(), encoded), ctx.voidPromise());
    long first = Math.min(req.firstBytes(), status.getLength());
    if (target == null || first == 0) {
      end(ctx, req.requestId(), StatusCode.OK, "", started);
      return;
    }
    serve(
        ctx,
        new ReadRequest(
            req.requestId(), req.path(), status.getFingerprint(), status.getLength(), 0, first),
        target,
        started);
  }

  private static StrataException unwrap(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    return c instanceof StrataException se ? se : StrataException.internal(String.valueOf(c), c);
  }

  private void serve(
      ChannelHandlerContext ctx, ReadRequest req, PageFetcher.Target target, long started) {
    long end = Math.min(req.fileLength(), req.offset() + req.length());
    List<CompletableFuture<Fetched>> pages = new ArrayList<>();
    long pageSize = fetcher.pageSize();
    if (req.offset() < end) {
      for (long i = req.offset() / pageSize; i <= (end - 1) / pageSize; i++) {
        pages.add(fetcher.fetch(target, i));
      }
    }
    new Reply(ctx, req, pages, end, started).send();
  }

  private void lease(
      ChannelHandlerContext ctx, ReadRequest req, PageFetcher.Target target, long started) {
    if (!DataServerInitializer.isDomainSocket(ctx.channel())) {
      end(
          ctx,
          req.requestId(),
          StatusCode.FAILED_PRECONDITION,
          "short-circuit leases are granted over the domain socket only",
          started);
      return;
    }
    Futures.onDone(
        leases.grantAsync(target, req),
        (grant, error) -> {
          try {
            ctx.executor()
                .execute(
                    () -> {
                      if (error != null) {
                        end(
                            ctx,
                            req.requestId(),
                            StatusCode.INTERNAL,
                            "cannot grant a lease: " + error.getMessage(),
                            started);
                        return;
                      }
                      ctx.write(grant.encode(ctx.alloc(), req.requestId()), ctx.voidPromise());
                      metrics.leases().increment();
                      end(ctx, req.requestId(), StatusCode.OK, "", started);
                    });
          } catch (RejectedExecutionException e) {
            // The server is stopping; the pins simply expire.
          }
        });
  }

  private void end(
      ChannelHandlerContext ctx, long requestId, StatusCode code, String message, long started) {
    ctx.writeAndFlush(Frames.end(ctx.alloc(), requestId, code, message), ctx.voidPromise());
    metrics.latency(code).record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
    next(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug(
        "closing data connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }

  /** The answer to one request: its pages, sent in order as each becomes available. */
  private final class Reply {
    private final ChannelHandlerContext ctx;
    private final ReadRequest req;
    private final List<CompletableFuture<Fetched>> pages;
    private final long end;
    private final long started;
    private int next;

    Reply(
        ChannelHandlerContext ctx,
        ReadRequest req,
        List<CompletableFuture<Fetched>> pages,
        long end,
        long started) {
      this.ctx = ctx;
      this.req = req;
      this.pages = pages;
      this.end = end;
      this.started = started;
    }

    void send() {
      while (next < pages.size()) {
        CompletableFuture<Fetched> f = pages.get(next);
        if (!f.isDone()) {
          Futures.onDone(f, (page, error) -> resumeOnEventLoop());
          ctx.flush();
          return;
        }
        if (!ctx.channel().isActive()) {
          releaseFrom(next);
          return;
        }
        Fetched page;
        try {
          page = f.join();
        } catch (RuntimeException e) {
          releaseFrom(next + 1);
          StrataException se =
              e.getCause() instanceof StrataException s
                  ? s
                  : StrataException.internal(String.valueOf(e.getCause()), e.getCause());
          if (se.code() == StatusCode.INTERNAL) {
            LOG.warn("reading {} failed", req.path(), e.getCause());
          }
          end(ctx, req.requestId(), se.code(), se.getMessage(), started);
          return;
        }
        try {
          write(page);
        } catch (IOException e) {
          releaseFrom(next + 1);
          LOG.warn("cannot read a cached page of {}: {}", req.path(), e.toString());
          end(
              ctx,
              req.requestId(),
              StatusCode.INTERNAL,
              "cannot read a cached page: " + e.getMessage(),
              started);
          return;
        }
        next++;
      }
      end(ctx, req.requestId(), StatusCode.OK, "", started);
    }

    private void resumeOnEventLoop() {
      try {
        ctx.executor().execute(this::send);
      } catch (RejectedExecutionException e) {
        releaseFrom(next);
      }
    }

    private void write(Fetched fetched) throws IOException {
      try {
        long pageSize = fetcher.pageSize();
        long pageStart = (req.offset() / pageSize + next) * pageSize;
        long from = Math.max(req.offset(), pageStart);
        long to = Math.min(end, pageStart + fetched.length());
        for (long pos = from; pos < to; pos += Frames.MAX_DATA_PAYLOAD) {
          int n = (int) Math.min(Frames.MAX_DATA_PAYLOAD, to - pos);
          Object body = fetched.slice(ctx.alloc(), (int) (pos - pageStart), n);
          ctx.write(Frames.dataHeader(ctx.alloc(), req.requestId(), pos, n), ctx.voidPromise());
          ctx.write(body, ctx.voidPromise());
        }
        metrics.bytes(fetched.source()).increment((double) (to - from));
      } finally {
        fetched.release();
      }
    }

    private void releaseFrom(int first) {
      for (int i = first; i < pages.size(); i++) {
        Futures.onDone(
            pages.get(i),
            (page, error) -> {
              if (page != null) {
                page.release();
              }
            });
      }
    }
  }
}
