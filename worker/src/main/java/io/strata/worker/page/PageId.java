package io.strata.worker.page;

import io.strata.core.cache.VersionKey;

/**
 * One page: a fixed-size slice of one version of one UFS file, named by the version's {@link
 * VersionKey} (why that key is a cryptographic hash is said there) and the page's index.
 */
public record PageId(long keyHigh, long keyLow, long index) {

  /** The key of one version of one file ({@link VersionKey}, as the worker's own type). */
  public record FileKey(long high, long low) {
    public static FileKey of(String ufsUri, String fingerprint, long pageSize) {
      VersionKey k = VersionKey.of(ufsUri, fingerprint, pageSize);
      return new FileKey(k.high(), k.low());
    }

    public VersionKey version() {
      return new VersionKey(high, low);
    }

    public PageId page(long index) {
      return new PageId(high, low, index);
    }
  }
}
