package io.strata.core.net;

import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who holds a server's connections, and which one goes when a new one needs room (issue 78, high
 * 7). A connection is <em>unproven</em> until its first call proves a token or the cluster secret
 * (in NONE mode: until its first call). Unproven connections are few at a time, in all and per
 * source address, and when a new one needs their room the <em>oldest</em> unproven one is closed: a
 * flood of silent sockets then only closes its own, older sockets, while a real client's new
 * connection proves itself within a round trip. Proven users are capped in all and per user; the
 * last {@link Limits#reserved} places are left to the cluster's own processes (the secret, or a
 * certificate): workers' heartbeats reach a master whatever its users do. Thread-safe; the work per
 * connection is one admission and one proof, none per call once proven.
 */
public final class ConnectionGate {
  /**
   * What a port holds at most.
   *
   * @param max connections at most (a new one past it is refused, once no unproven one is left to
   *     close)
   * @param unproven unproven connections at most, in all
   * @param unprovenPerSource unproven connections at most from one source
   * @param perUser a token user's connections at most (past it, the one proving is closed)
   * @param reserved places only the cluster's own processes may take
   */
  public record Limits(int max, int unproven, int unprovenPerSource, int perUser, int reserved) {
    public Limits {
      if (max < 1 || unproven < 1 || unprovenPerSource < 1 || perUser < 1 || reserved < 0) {
        throw new IllegalArgumentException("connection limits must be positive: " + this);
      }
    }

    /**
     * For a port of {@code max} connections: a quarter of them unproven at most, a sixteenth
     * reserved for the cluster's processes.
     */
    public static Limits of(int max, int perUser, int unprovenPerSource) {
      return new Limits(
          max,
          Math.max(1, max / 4),
          Math.min(unprovenPerSource, Math.max(1, max / 4)),
          perUser,
          max / 16);
    }

    /** No limit but the JVM's. */
    public static final Limits UNBOUNDED =
        new Limits(Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, 0);

    /** Token users' connections at most, in all: the reserved places are not theirs. */
    int users() {
      return Math.max(1, max - reserved);
    }
  }

  /** What a connection has proved so far. */
  public enum Standing {
    UNPROVEN,
    USER,
    SERVICE
  }

  /** One connection held: where it comes from, how to close it, what it proved. */
  public final class Held {
    private final Object source;
    private final Runnable close;
    private volatile Standing standing = Standing.UNPROVEN;
    private String user;
    private boolean gone;

    private Held(Object source, Runnable close) {
      this.source = source;
      this.close = close;
    }

    /**
     * Records that the connection's call proved {@code caller}; false when it may not stay (its
     * user holds as many connections as allowed, or it was closed to make room): the caller then
     * refuses the call and {@link #close()}s it. Costs a volatile read once proven.
     */
    public boolean prove(Principal caller) {
      return standing != Standing.UNPROVEN || settle(this, caller);
    }

    public Standing standing() {
      return standing;
    }

    /** Closes the connection (its transport then calls {@link #leave}). */
    public void close() {
      close.run();
    }

    /** The connection closed: its place is free. Idempotent. */
    public void leave() {
      release(this);
    }
  }

  private final Limits limits;
  private final LinkedHashSet<Held> unproven = new LinkedHashSet<>();
  private final Map<Object, ArrayDeque<Held>> unprovenBySource = new HashMap<>();
  private final Map<String, Integer> byUser = new HashMap<>();
  private int open;
  private int users;
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong closedForRoom = new AtomicLong();

  public ConnectionGate(Limits limits) {
    this.limits = limits;
  }

  public Limits limits() {
    return limits;
  }

  /**
   * Admits a connection from {@code source} (an address, or for a domain socket the peer's
   * account), closing the oldest unproven ones it needs the room of; null when there is no room
   * (every place held by proven connections): then close it unread.
   */
  public Held admit(Object source, Runnable close) {
    List<Held> evicted = new ArrayList<>(2);
    Held held;
    synchronized (this) {
      ArrayDeque<Held> fromSource = unprovenBySource.get(source);
      if (fromSource != null && fromSource.size() >= limits.unprovenPerSource()) {
        evicted.add(evict(fromSource.peekFirst()));
      }
      if (unproven.size() >= limits.unproven()) {
        evicted.add(evict(unproven.iterator().next()));
      }
      if (open >= limits.max() && !unproven.isEmpty()) {
        evicted.add(evict(unproven.iterator().next()));
      }
      if (open >= limits.max()) {
        held = null;
      } else {
        held = new Held(source, close);
        open++;
        unproven.add(held);
        unprovenBySource.computeIfAbsent(source, s -> new ArrayDeque<>()).addLast(held);
      }
    }
    closedForRoom.addAndGet(evicted.size());
    evicted.forEach(Held::close);
    if (held == null) {
      refused.incrementAndGet();
    }
    return held;
  }

  private synchronized boolean settle(Held h, Principal caller) {
    if (h.gone) {
      return false;
    }
    if (h.standing != Standing.UNPROVEN) {
      return true;
    }
    if (caller.role() != Role.SERVICE) {
      int mine = byUser.getOrDefault(caller.user(), 0);
      if (mine >= limits.perUser() || users >= limits.users()) {
        evict(h);
        refused.incrementAndGet();
        return false;
      }
      byUser.put(caller.user(), mine + 1);
      users++;
      h.user = caller.user();
    }
    forgetUnproven(h);
    h.standing = caller.role() == Role.SERVICE ? Standing.SERVICE : Standing.USER;
    return true;
  }

  private synchronized void release(Held h) {
    if (!h.gone) {
      evict(h);
    }
  }

  /** Takes {@code h} out of every count (its close, by the caller, follows outside the lock). */
  private Held evict(Held h) {
    h.gone = true;
    open--;
    if (h.standing == Standing.UNPROVEN) {
      forgetUnproven(h);
    } else if (h.user != null) {
      users--;
      byUser.computeIfPresent(h.user, (u, n) -> n > 1 ? n - 1 : null);
    }
    return h;
  }

  private void forgetUnproven(Held h) {
    unproven.remove(h);
    ArrayDeque<Held> fromSource = unprovenBySource.get(h.source);
    if (fromSource != null) {
      for (Iterator<Held> it = fromSource.iterator(); it.hasNext(); ) {
        if (it.next() == h) {
          it.remove();
          break;
        }
      }
      if (fromSource.isEmpty()) {
        unprovenBySource.remove(h.source);
      }
    }
  }

  /** Connections held now. */
  public synchronized int open() {
    return open;
  }

  /** Unproven connections held now. */
  public synchronized int unproven() {
    return unproven.size();
  }

  /** Connections refused so far (no room, or a user over the cap). */
  public long refused() {
    return refused.get();
  }

  /** Unproven connections closed so far to make room for newer ones. */
  public long closedForRoom() {
    return closedForRoom.get();
  }
}
