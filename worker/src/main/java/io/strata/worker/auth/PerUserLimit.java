package io.strata.worker.auth;

import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * At most so many of one costly thing (a metadata watch, a write under way) held at once by each
 * user, so that one token cannot take the worker's heap or descriptors from every other user (issue
 * 78); the cluster's own processes (SERVICE, or no caller) are not counted. Thread-safe.
 */
public final class PerUserLimit {
  private final int max;
  private final String what;
  private final Map<String, Integer> held = new ConcurrentHashMap<>();

  /**
   * @param what what is held, plural, for the refusal ("metadata watches")
   */
  public PerUserLimit(int max, String what) {
    this.max = max;
    this.what = what;
  }

  /**
   * Takes a place for {@code caller}: the user it counts against, to {@link #release} once (null:
   * not counted); RESOURCE_EXHAUSTED if they hold every place already.
   */
  public String take(Principal caller) {
    if (caller == null || caller.role() == Role.SERVICE) {
      return null;
    }
    String user = caller.user();
    if (held.merge(user, 1, Integer::sum) > max) {
      release(user);
      throw new StrataException(
          StatusCode.RESOURCE_EXHAUSTED,
          user + " already holds " + max + " " + what + " on this worker; end one first");
    }
    return user;
  }

  /** Gives back a place {@link #take} gave {@code user} (null: nothing). */
  public void release(String user) {
    if (user != null) {
      held.computeIfPresent(user, (u, n) -> n == 1 ? null : n - 1);
    }
  }

  /** Places {@code user} holds. */
  public int heldBy(String user) {
    return held.getOrDefault(user, 0);
  }
}
