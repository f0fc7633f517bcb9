package io.strata.testkit.integrity;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every version of every file the checker has written or begun to write: its length, and when its
 * writing began (a read may return a version only if that was before the read ended). Thread-safe.
 */
final class Versions {
  /** One version as written, and how (named in violations). */
  record Version(long number, int length, long begunNanos, String how) {}

  private final AtomicLong next = new AtomicLong(1);
  private final Map<Long, Version> all = new ConcurrentHashMap<>();

  /** A new version, registered before any of its bytes is written. */
  Version begin(int length, long nowNanos, String how) {
    Version v = new Version(next.getAndIncrement(), length, nowNanos, how);
    all.put(v.number(), v);
    return v;
  }

  Version get(long number) {
    return all.get(number);
  }
}
