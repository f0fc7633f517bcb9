package io.strata.worker.page;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * One page: a fixed-size slice of one version of one UFS file. The file key is a 128-bit hash of
 * the UFS URI, the file's fingerprint and the page size, so a changed file's pages get new ids, and
 * so do a file's pages cut to another size (a worker restarted with another page size over its SSD
 * cache): stale bytes are never found.
 */
public record PageId(long keyHigh, long keyLow, long index) {

  /** The key of one version of one file. */
  public record FileKey(long high, long low) {
    public static FileKey of(String ufsUri, String fingerprint, long pageSize) {
      Hasher h = Hashing.murmur3_128().newHasher();
      h.putString(ufsUri, StandardCharsets.UTF_8)
          .putByte((byte) 0)
          .putString(fingerprint, StandardCharsets.UTF_8)
          .putByte((byte) 0)
          .putLong(pageSize);
      byte[] b = h.hash().asBytes();
      return new FileKey(toLong(b, 0), toLong(b, 8));
    }

    public PageId page(long index) {
      return new PageId(high, low, index);
    }

    private static long toLong(byte[] b, int at) {
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = (v << 8) | (b[at + i] & 0xFF);
      }
      return v;
    }
  }
}
