package io.strata.worker.data;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.ReadRequest;
import io.strata.core.util.Futures;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.read.PageFetcher.Fetched;
import io.strata.worker.ufs.UfsManager;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers a READ (and an OPEN's first bytes): the range's pages, sent in order as each becomes
 * available. Pages the cache holds go out at once from the event loop; misses are fetched on the
 * UFS executor and the reply resumes on the event loop when they arrive. Memory pages go out as
 * retained slices, SSD pages verified before as file regions (sendfile), neither copied here. An
 * error reading the file ends the request with its code; the connection stays.
 */
final class ReadResponder {
  private static final Logger LOG = LoggerFactory.getLogger(ReadResponder.class);

  private final UfsManager ufs;
  private final PageFetcher fetcher;
  private final DataServerMetrics metrics;

  ReadResponder(UfsManager ufs, PageFetcher fetcher, DataServerMetrics metrics) {
    this.ufs = ufs;
    this.fetcher = fetcher;
    this.metrics = metrics;
  }

  void read(Exchange x, ReadRequest req) {
    metrics.requests("read").increment();
    PageFetcher.Target target = target(x, req.path(), req.fingerprint(), req.fileLength());
    if (target != null) {
      serve(x, target, req.offset(), req.length());
    }
  }

  /** The file the request names, or null when it cannot be named (the request is then ended). */
  PageFetcher.Target target(Exchange x, String path, String fingerprint, long fileLength) {
    try {
      return target(path, fingerprint, fileLength);
    } catch (StrataException e) {
      x.fail(e);
      return null;
    }
  }

  /** The version {@code fingerprint} of the file at {@code path}, as the page cache knows it. */
  PageFetcher.Target target(String path, String fingerprint, long fileLength) {
    UfsManager.Resolved file = ufs.resolve(StrataPath.of(path));
    return fetcher.target(file, fingerprint, fileLength);
  }

  /** Sends {@code length} bytes at {@code offset} (cut at the end of the file), then the END. */
  void serve(Exchange x, PageFetcher.Target target, long offset, long length) {
    long end = Math.min(target.fileLength(), offset + length);
    List<CompletableFuture<Fetched>> pages = new ArrayList<>();
    long pageSize = fetcher.pageSize();
    if (offset < end) {
      for (long i = offset / pageSize; i <= (end - 1) / pageSize; i++) {
        pages.add(fetcher.fetch(target, i));
      }
    }
    new PageReply(x, target.file().path(), pages, offset, end).send();
  }

  /** The pages of one answer, sent in order, each as soon as it and those before it are there. */
  private final class PageReply {
    private final Exchange x;
    private final StrataPath path;
    private final List<CompletableFuture<Fetched>> pages;
    private final long offset;
    private final long end;
    private int next;

    PageReply(
        Exchange x,
        StrataPath path,
        List<CompletableFuture<Fetched>> pages,
        long offset,
        long end) {
      this.x = x;
      this.path = path;
      this.pages = pages;
      this.offset = offset;
      this.end = end;
    }

    void send() {
      while (next < pages.size()) {
        CompletableFuture<Fetched> f = pages.get(next);
        if (!f.isDone()) {
          Futures.onDone(f, (page, error) -> resumeOnEventLoop());
          x.ctx.flush();
          return;
        }
        if (!x.ctx.channel().isActive()) {
          releaseFrom(next);
          return;
        }
        Fetched page;
        try {
          page = f.join();
        } catch (RuntimeException e) {
          releaseFrom(next + 1);
          StrataException se = Exchange.unwrap(e);
          if (se.code() == StatusCode.INTERNAL) {
            LOG.warn("reading {} failed", path, se);
          }
          x.fail(se);
          return;
        }
        try {
          write(page);
        } catch (IOException e) {
          releaseFrom(next + 1);
          LOG.warn("cannot read a cached page of {}: {}", path, e.toString());
          x.end(StatusCode.INTERNAL, "cannot read a cached page: " + e.getMessage());
          return;
        }
        next++;
      }
      x.ok();
    }

    private void resumeOnEventLoop() {
      if (!x.onEventLoop(this::send)) {
        releaseFrom(next);
      }
    }

    private void write(Fetched fetched) throws IOException {
      try {
        long pageSize = fetcher.pageSize();
        long pageStart = (offset / pageSize + next) * pageSize;
        long from = Math.max(offset, pageStart);
        long to = Math.min(end, pageStart + fetched.length());
        for (long pos = from; pos < to; pos += Frames.MAX_DATA_PAYLOAD) {
          int n = (int) Math.min(Frames.MAX_DATA_PAYLOAD, to - pos);
          Object body = fetched.slice(x.ctx.alloc(), (int) (pos - pageStart), n);
          x.write(Frames.dataHeader(x.ctx.alloc(), x.requestId, pos, n));
          x.write(body);
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
