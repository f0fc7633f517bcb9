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
    send(x, prepare(req));
  }

  /**
   * Asks for the pages of {@code req} now, though its answer may wait behind earlier requests of
   * its connection: a reader's pipelined READs then fetch their misses from the UFS at once, not
   * one request's pages after another's. The caller sends (or releases) what it returns.
   */
  Pages prepare(ReadRequest req) {
    PageFetcher.Target target;
    try {
      target = target(req.path(), req.fingerprint(), req.fileLength());
    } catch (StrataException e) {
      return new Pages(null, List.of(), 0, 0, e);
    }
    return pages(target, req.offset(), req.length());
  }

  /** Answers a READ with its pages (see {@link #prepare}). */
  void send(Exchange x, Pages pages) {
    metrics.requests("read").increment();
    if (pages.error() != null) {
      x.fail(pages.error());
    } else {
      new PageReply(x, pages).send();
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
    new PageReply(x, pages(target, offset, length)).send();
  }

  private Pages pages(PageFetcher.Target target, long offset, long length) {
    long end = Math.min(target.fileLength(), offset + length);
    List<CompletableFuture<Fetched>> pages = new ArrayList<>();
    long pageSize = fetcher.pageSize();
    if (offset < end) {
      for (long i = offset / pageSize; i <= (end - 1) / pageSize; i++) {
        pages.add(fetcher.fetch(target, i));
      }
    }
    return new Pages(target.file().path(), pages, offset, end, null);
  }

  /**
   * The pages of bytes {@code [offset, end)} of a file, asked for, each holding a reference once
   * there; or why the file could not be read.
   */
  record Pages(
      StrataPath path,
      List<CompletableFuture<Fetched>> futures,
      long offset,
      long end,
      StrataException error) {

    /** Lets go of the pages from {@code first} on, as each arrives. */
    void releaseFrom(int first) {
      for (int i = first; i < futures.size(); i++) {
        Futures.onDone(
            futures.get(i),
            (page, error) -> {
              if (page != null) {
                page.release();
              }
            });
      }
    }
  }

  /** The pages of one answer, sent in order, each as soon as it and those before it are there. */
  private final class PageReply {
    private final Exchange x;
    private final StrataPath path;
    private final List<CompletableFuture<Fetched>> pages;
    private final long offset;
    private final long end;
    private final Pages all;
    private int next;

    PageReply(Exchange x, Pages pages) {
      this.x = x;
      this.all = pages;
      this.path = pages.path();
      this.pages = pages.futures();
      this.offset = pages.offset();
      this.end = pages.end();
    }

    void send() {
      while (next < pages.size()) {
        if (!x.hasRoom() && x.ctx.channel().isActive()) {
          // The reader takes its bytes slower than they come: wait, holding no more of them.
          x.whenWritable(this::send);
          return;
        }
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
          Object body = fetched.slice(x.ctx.alloc(), (int) (pos - pageStart), n, x.memoryByFile());
          x.write(Frames.dataHeader(x.ctx.alloc(), x.requestId, pos, n));
          x.write(body);
        }
        metrics.bytes(fetched.source()).increment((double) (to - from));
      } finally {
        fetched.release();
      }
    }

    private void releaseFrom(int first) {
      all.releaseFrom(first);
    }
  }
}
