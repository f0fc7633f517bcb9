package io.strata.worker.data;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Which segments each local user holds pinned through its short-circuit leases, so that no one can
 * pin the whole SSD tier (a pinned segment is never evicted): a user past its share gets no more
 * pages leased in new segments, and reads those over the socket until its older leases expire. A
 * user is the caller's uid as the kernel reports it on the domain socket (SO_PEERCRED), whatever
 * process or connection it uses; without that (the JDK's sockets), each connection counts alone.
 */
final class LeaseHolders {
  private static final int MAX_HOLDERS = 1024;

  private final LongSupplier maxSegments;
  private final Map<String, Map<String, Long>> held = new HashMap<>();

  /**
   * @param maxSegments the most segments one user may hold pinned (read at every grant)
   */
  LeaseHolders(LongSupplier maxSegments) {
    this.maxSegments = maxSegments;
  }

  /** Who asks on {@code ch}: its uid, else the connection. */
  static String holderOf(Channel ch) {
    if (ch instanceof EpollDomainSocketChannel uds) {
      try {
        return "uid " + uds.peerCredentials().uid();
      } catch (IOException e) {
        // Falls through to the connection: a bound per connection is still a bound.
      }
    }
    return "connection " + ch.id().asShortText();
  }

  /**
   * Whether {@code holder} may hold {@code segment} pinned until {@code untilNanos}: yes if it
   * already does, or if it holds fewer than its share; recorded when yes.
   */
  synchronized boolean take(String holder, String segment, long nowNanos, long untilNanos) {
    if (held.size() > MAX_HOLDERS) {
      // Connections that came and went (where no uid is known): their leases are long over.
      held.keySet().removeIf(h -> holding(h, nowNanos) == 0);
    }
    Map<String, Long> mine = held.computeIfAbsent(holder, h -> new HashMap<>());
    // Asked once per page of a grant, under the tier's lock: expired leases are swept only when
    // the share looks full, not at every page.
    if (!mine.containsKey(segment) && mine.size() >= maxSegments.getAsLong()) {
      mine.values().removeIf(until -> until - nowNanos <= 0);
      if (mine.size() >= maxSegments.getAsLong()) {
        return false;
      }
    }
    mine.merge(segment, untilNanos, Math::max);
    return true;
  }

  /** Segments {@code holder} holds pinned now. */
  synchronized int holding(String holder, long nowNanos) {
    Map<String, Long> mine = held.get(holder);
    if (mine == null) {
      return 0;
    }
    mine.values().removeIf(until -> until - nowNanos <= 0);
    return mine.size();
  }
}
