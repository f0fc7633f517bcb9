package io.strata.worker.data;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.OpenRequest;
import io.strata.core.util.Futures;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.read.PageFetcher;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Answers an OPEN: the file's status (from the metadata cache's memory on the event loop when it
 * holds it fresh, else looked up on the metadata executor), then its first bytes as a READ would
 * send them, then the END.
 */
final class OpenResponder {
  private final MetadataService metadata;
  private final Executor metadataExecutor;
  private final ReadResponder reads;
  private final DataServerMetrics metrics;

  OpenResponder(
      MetadataService metadata,
      Executor metadataExecutor,
      ReadResponder reads,
      DataServerMetrics metrics) {
    this.metadata = metadata;
    this.metadataExecutor = metadataExecutor;
    this.reads = reads;
    this.metrics = metrics;
  }

  void open(Exchange x, OpenRequest req) {
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
      x.fail(e);
      return;
    } catch (RejectedExecutionException e) {
      x.end(StatusCode.UNAVAILABLE, "worker is stopping");
      return;
    }
    if (status.isDone()) {
      opened(x, req, status);
    } else {
      Futures.onDone(status, (s, e) -> x.onEventLoop(() -> opened(x, req, status)));
    }
  }

  private void opened(Exchange x, OpenRequest req, CompletableFuture<FileStatus> found) {
    FileStatus status;
    PageFetcher.Target target;
    try {
      status = found.join();
      target =
          status.getDirectory()
              ? null
              : reads.target(req.path(), status.getFingerprint(), status.getLength());
    } catch (RuntimeException e) {
      x.fail(Exchange.unwrap(e));
      return;
    }
    byte[] encoded = status.toByteArray();
    if (encoded.length > Frames.MAX_STATUS) {
      x.end(StatusCode.INVALID_ARGUMENT, "the status of " + req.path() + " is too large to send");
      return;
    }
    x.write(Frames.status(x.ctx.alloc(), x.requestId, encoded));
    long first = Math.min(req.firstBytes(), status.getLength());
    if (target == null || first == 0) {
      x.ok();
      return;
    }
    reads.serve(x, target, 0, first);
  }
}
