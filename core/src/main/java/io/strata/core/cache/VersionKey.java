package io.strata.core.cache;

import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The key of one cached version of one UFS file: 128 bits of a SHA-256 of the UFS URI, the file's
 * fingerprint and the page size (each length-prefixed), so a changed file's pages get a new key,
 * and so do a file's pages cut to another size (a worker restarted with another page size over its
 * SSD cache): stale bytes are never found. The hash must resist collisions: a client names the
 * fingerprint, and one that made its own file's key equal another's (as is easy with a
 * non-cryptographic hash such as murmur3) would be served that file's cached pages.
 *
 * <p>The worker keys its pages by it, and names a version it keeps whole by it ({@link #name}) in
 * the whole-file area of one of its SSD folders ({@link #folder}). A co-located client computes the
 * same key from a file's status and so finds a whole file without asking the worker.
 */
public record VersionKey(long high, long low) {

  public static VersionKey of(String ufsUri, String fingerprint, long pageSize) {
    Hasher h = Hashing.sha256().newHasher();
    byte[] uri = ufsUri.getBytes(StandardCharsets.UTF_8);
    byte[] fp = fingerprint.getBytes(StandardCharsets.UTF_8);
    h.putInt(uri.length).putBytes(uri).putInt(fp.length).putBytes(fp).putLong(pageSize);
    byte[] b = h.hash().asBytes();
    return new VersionKey(toLong(b, 0), toLong(b, 8));
  }

  /** The name of the version's whole file: the key as 32 hex digits. */
  public String name() {
    HexFormat hex = HexFormat.of();
    return hex.toHexDigits(high) + hex.toHexDigits(low);
  }

  /** Which of {@code folders} SSD folders keeps the version whole (they are taken in order). */
  public int folder(int folders) {
    return (int) Math.floorMod(low, (long) folders);
  }

  /** Where the version's whole file is, if kept, in one of the whole-file areas {@code areas}. */
  public Optional<Path> wholeFile(List<Path> areas) {
    return areas.isEmpty()
        ? Optional.empty()
        : Optional.of(areas.get(folder(areas.size())).resolve(name()));
  }

  private static long toLong(byte[] b, int at) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[at + i] & 0xFF);
    }
    return v;
  }
}
