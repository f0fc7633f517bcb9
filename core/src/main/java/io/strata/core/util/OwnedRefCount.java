package io.strata.core.util;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who holds a resource that must not be freed under a user: its owner, until the owner lets go
 * (once), and each user between {@link #acquire} and {@link #release}. The last one out frees it;
 * after that nobody can acquire it. Thread-safe.
 */
public final class OwnedRefCount {
  private final AtomicInteger holders = new AtomicInteger(1);
  private final AtomicBoolean ownerGone = new AtomicBoolean();
  private final Runnable free;

  public OwnedRefCount(Runnable free) {
    this.free = free;
  }

  /** Counts a user in; false if the resource is already freed. */
  public boolean acquire() {
    while (true) {
      int n = holders.get();
      if (n == 0) {
        return false;
      }
      if (holders.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  /** Counts a user out (each successful {@link #acquire} once). */
  public void release() {
    if (holders.decrementAndGet() == 0) {
      free.run();
    }
  }

  /** The owner lets go (any further call does nothing): freed now, or when the last user leaves. */
  public void releaseOwner() {
    if (ownerGone.compareAndSet(false, true)) {
      release();
    }
  }
}
