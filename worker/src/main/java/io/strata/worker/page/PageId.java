package io.strata.worker.page;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * One page: a fixed-size slice of one version of one UFS file. The file key is 128 bits of a
 * SHA-256 of the UFS URI, the file's fingerprint and the page size (each length-prefixed), so a
 * changed file's pages get new ids, and so do a file's pages cut to another size (a worker
 * restarted with another page size over its SSD cache): stale bytes are never found. The hash must
 * resist collisions: a client names the fingerprint, and one that made its own file's key equal
 * another's (as is easy with a non-cryptographic hash such as murmur3) would be served that file's
 * cached pages.
 */
public record PageId(long keyHigh, long keyLow, long index) {

  /** The key of one version of one file. */
  public record FileKey(long high, long low) {
    public static FileKey of(String ufsUri, String fingerprint, long pageSize) {
      Hasher h = Hashing.sha256().newHasher();
      byte[] uri = ufsUri.getBytes(StandardCharsets.UTF_8);
      byte[] fp = fingerprint.getBytes(StandardCharsets.UTF_8);
      h.putInt(uri.length).putBytes(uri).putInt(fp.length).putBytes(fp).putLong(pageSize);
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
