package io.strata.ufs.hdfs;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.RemovalCause;
import io.strata.core.util.Caches;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FSDataInputStream;

/**
 * Open input streams, one per file version, shared by the readers of its pages: an HDFS stream
 * reads at any position without moving (pread) from any thread, and opening one costs a NameNode
 * call, so pages of one version do not each open a stream. A stream closes when it has been idle
 * for a while or the cache is full, once its last reader is done with it.
 */
final class OpenStreams implements AutoCloseable {
  /** An open stream and how many hold it (the cache included). */
  static final class Shared {
    final FSDataInputStream in;
    private final AtomicInteger holders = new AtomicInteger(1);

    /** When the last look-up of the file's fingerprint began, and what it answered. */
    private long checkedAtNanos = Long.MIN_VALUE;

    private String checked;

    Shared(FSDataInputStream in) {
      this.in = in;
    }

    /** False when the stream is already closing: the caller opens another. */
    boolean hold() {
      int n;
      do {
        n = holders.get();
        if (n == 0) {
          return false;
        }
      } while (!holders.compareAndSet(n, n + 1));
      return true;
    }

    /**
     * The file's fingerprint as a look-up begun after {@code readEndedNanos} answers it: one such
     * look-up confirms every page of this version read before it began, so readers of pages read at
     * once share it instead of each asking the NameNode.
     */
    synchronized String fingerprintAfter(long readEndedNanos, HdfsReader.FingerprintSource now)
        throws IOException {
      if (checked != null && checkedAtNanos - readEndedNanos > 0) {
        return checked;
      }
      long startedAt = System.nanoTime();
      checked = null;
      String fingerprint = now.get();
      checkedAtNanos = startedAt;
      checked = fingerprint;
      return fingerprint;
    }

    void release() {
      if (holders.decrementAndGet() == 0) {
        try {
          in.close();
        } catch (IOException e) {
          // Nothing was written; a stream that fails to close has nothing left to lose.
        }
      }
    }
  }

  /** Opens a stream of the version a key names. */
  interface Opener {
    FSDataInputStream open() throws IOException;
  }

  private final Cache<String, Shared> streams =
      Caches.builder()
          .maximumSize(1024)
          .expireAfterAccess(Duration.ofSeconds(60))
          .removalListener((String key, Shared s, RemovalCause cause) -> s.release())
          .build();

  /** The stream of {@code version}, held for the caller, who releases it. */
  Shared hold(String version, Opener opener) throws IOException {
    for (int attempt = 0; attempt < 3; attempt++) {
      Shared s = streams.getIfPresent(version);
      if (s == null) {
        Shared opened = new Shared(opener.open());
        s = streams.asMap().putIfAbsent(version, opened);
        if (s == null) {
          s = opened;
        } else {
          opened.release();
        }
      }
      if (s.hold()) {
        return s;
      }
      streams.asMap().remove(version, s);
    }
    // Evicted as fast as it was opened (a cache far too small for the load): read unshared.
    return new Shared(opener.open());
  }

  @Override
  public void close() {
    streams.invalidateAll();
    streams.cleanUp();
  }
}
