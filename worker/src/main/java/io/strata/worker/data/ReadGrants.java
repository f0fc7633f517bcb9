package io.strata.worker.data;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The files one data connection's user was found allowed to read, each with the version found
 * current then (a request naming another version is checked anew), so that the check runs at a
 * file's first read, not at every page. A grant lasts while what it was found from does: no longer
 * than a status is trusted (a change made in the under-storage behind the cluster's back is seen
 * then), and not past this worker forgetting any metadata (a chmod, chown, rename or delete made
 * through the cluster): a permission taken away holds on a connection that read before. Confined to
 * the connection's event loop.
 */
final class ReadGrants {
  /** Enough for a reader's open files; past it, every grant goes and is found again. */
  static final int MAX = 256;

  /** How many times the worker forgot metadata (see MetadataService#forgettings). */
  private final LongSupplier forgettings;

  private final LongSupplier trustedNanos;
  private final LongSupplier nanoTime;
  private final Map<String, Grant> grants = new HashMap<>();
  private long forgettingsSeen;

  /**
   * @param forgettings the worker's count of metadata forgettings
   * @param trustedNanos how long a status read from the under-storage is trusted
   * @param nanoTime the clock grants age by
   */
  ReadGrants(LongSupplier forgettings, LongSupplier trustedNanos, LongSupplier nanoTime) {
    this.forgettings = forgettings;
    this.trustedNanos = trustedNanos;
    this.nanoTime = nanoTime;
    this.forgettingsSeen = forgettings.getAsLong();
  }

  /** What a check about to start rests on: pass it to {@link #grant} when the check passes. */
  long mark() {
    return forgettings.getAsLong();
  }

  /** A check that passed: when, and the version it found current. */
  private record Grant(long atNanos, String version) {}

  /**
   * Whether the caller may read version {@code version} of {@code path} (null: the current one,
   * whichever it is) without another check.
   */
  boolean holds(String path, String version) {
    long now = forgettings.getAsLong();
    if (now != forgettingsSeen) {
      grants.clear();
      forgettingsSeen = now;
      return false;
    }
    Grant grant = grants.get(path);
    if (grant == null) {
      return false;
    }
    if (nanoTime.getAsLong() - grant.atNanos() >= trustedNanos.getAsLong()) {
      grants.remove(path);
      return false;
    }
    return version == null || version.equals(grant.version());
  }

  /**
   * Records that a check begun at {@code mark} found the caller allowed to read {@code path} and
   * {@code version} its current version; not if metadata was forgotten meanwhile (the check may
   * have read what was forgotten).
   */
  void grant(String path, String version, long mark) {
    if (mark != forgettings.getAsLong()) {
      return;
    }
    if (grants.size() >= MAX) {
      grants.clear();
    }
    grants.put(path, new Grant(nanoTime.getAsLong(), version));
  }
}
