package io.strata.worker.page;

import com.github.benmanes.caffeine.cache.Cache;
import io.strata.core.util.Caches;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The file versions this store has held pages of, by UFS URI, so that everything cached of a mount
 * or a path can be found and dropped, whatever the metadata cache still knows. A row per version,
 * written once (the first page admitted: when, for TTLs), kept in the first SSD folder's index (or
 * in memory without one); a row may outlive its pages (evicted), never the other way round.
 * Thread-safe.
 */
public final class CachedVersions {
  /**
   * One version of a file, first cached at {@code notedAtMs} (wall clock; 0 for rows written before
   * times were kept).
   */
  public record Version(String ufsUri, String fingerprint, long length, long notedAtMs) {}

  private static final int RECENT = 100_000;

  private final KvStore kv;

  private final LongSupplier nowMs;

  /** Rows written lately, so that each page admitted does not look for one again. */
  private final Cache<List<String>, Boolean> noted = Caches.builder().maximumSize(RECENT).build();

  private volatile Consumer<Version> listener = v -> {};

  CachedVersions(KvStore kv, LongSupplier nowMs) {
    this.kv = kv;
    this.nowMs = nowMs;
  }

  /** Hears of each version the first time this process notes it (for pins). */
  public void listen(Consumer<Version> l) {
    this.listener = l;
  }

  /**
   * Pages of this version are about to be admitted: its row exists when this returns. Concurrent
   * first notes of one version write it once, and the listener hears of it once.
   */
  public void note(String ufsUri, String fingerprint, long length) {
    Version[] first = {null};
    var unused =
        noted.get(
            List.of(ufsUri, fingerprint),
            id -> {
              byte[] key = key(ufsUri, fingerprint);
              byte[] row = kv.get(key);
              if (row == null) {
                first[0] = new Version(ufsUri, fingerprint, length, nowMs.getAsLong());
                kv.put(
                    key,
                    ByteBuffer.allocate(16).putLong(length).putLong(first[0].notedAtMs()).array());
              } else {
                first[0] = version(ufsUri, fingerprint, row);
              }
              return Boolean.TRUE;
            });
    if (first[0] != null) {
      listener.accept(first[0]);
    }
  }

  private static Version version(String ufsUri, String fingerprint, byte[] row) {
    ByteBuffer b = ByteBuffer.wrap(row);
    return new Version(ufsUri, fingerprint, b.getLong(), b.remaining() >= 8 ? b.getLong() : 0);
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
            found.add(version(uri, rest.substring(nul + 1), value));
          }
        });
    return found;
  }

  /** Forgets these versions (their pages were dropped). */
  public void forget(List<Version> versions) {
    KvStore.Batch batch = new KvStore.Batch();
    for (Version v : versions) {
      batch.delete(key(v.ufsUri(), v.fingerprint()));
      noted.invalidate(List.of(v.ufsUri(), v.fingerprint()));
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
