package io.strata.worker.page;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The file versions this store has held pages of, by UFS URI, so that everything cached of a mount
 * can be dropped when it goes, whatever the metadata cache still knows. A row per version, written
 * once (the first page admitted), kept in the first SSD folder's index (or in memory without one);
 * a row may outlive its pages (evicted), never the other way round. Thread-safe.
 */
public final class CachedVersions {
  /** One version of a file. */
  public record Version(String ufsUri, String fingerprint, long length) {}

  private static final int RECENT = 100_000;

  private final KvStore kv;

  /** Rows written lately, so that each page admitted does not write one again. */
  private final Cache<Version, Boolean> noted = Caffeine.newBuilder().maximumSize(RECENT).build();

  CachedVersions(KvStore kv) {
    this.kv = kv;
  }

  /** Pages of this version are about to be admitted. */
  public void note(String ufsUri, String fingerprint, long length) {
    Version v = new Version(ufsUri, fingerprint, length);
    if (noted.getIfPresent(v) == null) {
      kv.put(key(ufsUri, fingerprint), ByteBuffer.allocate(8).putLong(length).array());
      noted.put(v, Boolean.TRUE);
    }
  }

  /** The versions noted of {@code ufsUri} and of everything under it. */
  public List<Version> under(String ufsUri) {
    String below = ufsUri.endsWith("/") ? ufsUri : ufsUri + "/";
    List<Version> found = new ArrayList<>();
    kv.scan(
        prefix(ufsUri),
        (key, value) -> {
          String rest = new String(key, 1, key.length - 1, StandardCharsets.UTF_8);
          int nul = rest.indexOf('\0');
          String uri = rest.substring(0, nul);
          if (uri.equals(ufsUri) || uri.startsWith(below)) {
            found.add(new Version(uri, rest.substring(nul + 1), ByteBuffer.wrap(value).getLong()));
          }
        });
    return found;
  }

  /** Forgets these versions (their pages were dropped). */
  public void forget(List<Version> versions) {
    KvStore.Batch batch = new KvStore.Batch();
    for (Version v : versions) {
      batch.delete(key(v.ufsUri(), v.fingerprint()));
      noted.invalidate(v);
    }
    if (!batch.isEmpty()) {
      kv.write(batch);
    }
  }

  private static byte[] key(String ufsUri, String fingerprint) {
    byte[] uri = (ufsUri + '\0' + fingerprint).getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + uri.length).put(KeyLayout.CACHED_VERSION).put(uri).array();
  }

  private static byte[] prefix(String ufsUri) {
    byte[] uri = ufsUri.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(1 + uri.length).put(KeyLayout.CACHED_VERSION).put(uri).array();
  }
}
