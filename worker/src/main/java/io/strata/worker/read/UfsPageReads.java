package io.strata.worker.read;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsReader;
import io.strata.worker.WorkerMetrics;
import io.strata.worker.read.PageFetcher.Target;
import io.strata.worker.ufs.UfsPages;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * The fetcher's reads of pages from the under-storage, counted, each checked to be the version
 * asked for.
 */
final class UfsPageReads {
  private final long pageSize;
  private final ByteBufAllocator allocator;
  private final Counter requests;
  private final Counter pages;
  private final Counter bytes;
  private volatile Consumer<StrataPath> fileChanged = path -> {};

  UfsPageReads(long pageSize, ByteBufAllocator allocator, MeterRegistry registry) {
    this.pageSize = pageSize;
    this.allocator = allocator;
    this.requests =
        Counter.builder(WorkerMetrics.UFS_READS)
            .description("Read requests made of the under-storage (a run of pages is one)")
            .register(registry);
    this.pages =
        Counter.builder(WorkerMetrics.UFS_PAGE_READS)
            .description("Pages read from the under-storage (a coalesced miss counts once)")
            .register(registry);
    this.bytes =
        Counter.builder(WorkerMetrics.UFS_BYTES_READ)
            .description("Bytes read from the under-storage")
            .register(registry);
  }

  /** Told of a file found changed in the UFS while being read (to drop its cached status). */
  void whenFileChanges(Consumer<StrataPath> listener) {
    this.fileChanged = listener;
  }

  /**
   * Pages {@code first} to {@code first + count - 1} as the under-storage has them, in one request:
   * their lengths come from the file the reader opened, never from the request (a client's shorter
   * length must not cache a short page), and the fingerprint read afterwards proves those bytes are
   * the version asked for. Fewer pages when the file ends sooner.
   */
  ByteBuf[] read(Target target, long first, int count) throws IOException {
    try (UfsReader reader =
        target.file().ufs().openVersion(target.file().ufsPath(), target.fingerprint())) {
      ByteBuf[] read =
          UfsPages.read(
              reader, first, count, pageSize, allocator, () -> checkVersion(target, reader));
      requests.increment();
      pages.increment(read.length);
      for (ByteBuf p : read) {
        bytes.increment(p.readableBytes());
      }
      return read;
    }
  }

  /**
   * Fails when the file is no longer the version the request names, or when the request claims
   * another length for it: the length is noted as the version's (pins, frees and TTLs walk its
   * pages), so a client's 2^60 would have the worker loop for good.
   */
  private void checkVersion(Target target, UfsReader reader) throws IOException {
    if (!reader.currentFingerprint().equals(target.fingerprint())) {
      // The status the reader opened with is stale: the next open must see the new version.
      fileChanged.accept(target.file().path());
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          target.file().path() + " changed in the under-storage while being read; open it again");
    }
    if (reader.length() != target.fileLength()) {
      throw StrataException.invalidArgument(
          "the read names "
              + target.fileLength()
              + " bytes of "
              + target.file().path()
              + ", whose version "
              + target.fingerprint()
              + " is "
              + reader.length()
              + " bytes");
    }
  }
}
