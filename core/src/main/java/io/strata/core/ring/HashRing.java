package io.strata.core.ring;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;

/**
 * A consistent-hash ring: each member is placed at {@code virtualNodes} points of a 64-bit circle,
 * a key belongs to the first point at or after the key's hash. Adding or removing one of N members
 * therefore moves about 1/N of the keys, and many points per member even out the share each one
 * owns.
 *
 * <p>Members are placed by hashing a stable identity, so every process that builds a ring from the
 * same members agrees on every owner. Immutable and thread-safe; build a new ring when membership
 * changes.
 */
public final class HashRing<T> {
  private static final HashFunction HASH = Hashing.murmur3_128();

  private final long[] points;
  private final int[] owners;
  private final List<T> members;

  private HashRing(List<T> members, Function<T, String> identity, int virtualNodes) {
    this.members = List.copyOf(members);
    int n = members.size() * virtualNodes;
    long[][] placed = new long[n][2];
    int i = 0;
    for (int m = 0; m < members.size(); m++) {
      String id = identity.apply(members.get(m));
      for (int v = 0; v < virtualNodes; v++) {
        placed[i][0] = hash(id + "#" + v);
        placed[i][1] = m;
        i++;
      }
    }
    Arrays.sort(placed, Comparator.<long[]>comparingLong(p -> p[0]).thenComparingLong(p -> p[1]));
    points = new long[n];
    owners = new int[n];
    for (int k = 0; k < n; k++) {
      points[k] = placed[k][0];
      owners[k] = (int) placed[k][1];
    }
  }

  /** Members are ordered by identity first, so the ring does not depend on the caller's order. */
  public static <T> HashRing<T> of(
      Collection<T> members, Function<T, String> identity, int virtualNodes) {
    if (virtualNodes <= 0) {
      throw new IllegalArgumentException("virtualNodes must be positive");
    }
    List<T> sorted = new ArrayList<>(members);
    sorted.sort(Comparator.comparing(identity));
    return new HashRing<>(sorted, identity, virtualNodes);
  }

  public boolean isEmpty() {
    return members.isEmpty();
  }

  public List<T> members() {
    return members;
  }

  /** The member owning {@code key}; the ring must not be empty. */
  public T owner(String key) {
    if (points.length == 0) {
      throw new IllegalStateException("empty ring");
    }
    return members.get(owners[slot(hash(key))]);
  }

  /**
   * Up to {@code count} distinct members in ring order starting at the owner of {@code key}: the
   * owner, then the members to try next when it fails or to hold replicas.
   */
  public List<T> owners(String key, int count) {
    int wanted = Math.min(count, members.size());
    List<T> result = new ArrayList<>(wanted);
    boolean[] taken = new boolean[members.size()];
    int start = points.length == 0 ? 0 : slot(hash(key));
    for (int k = 0; k < points.length && result.size() < wanted; k++) {
      int m = owners[(start + k) % points.length];
      if (!taken[m]) {
        taken[m] = true;
        result.add(members.get(m));
      }
    }
    return result;
  }

  private int slot(long h) {
    int i = Arrays.binarySearch(points, h);
    if (i < 0) {
      i = -i - 1;
    }
    return i == points.length ? 0 : i;
  }

  private static long hash(String s) {
    return HASH.hashString(s, StandardCharsets.UTF_8).asLong();
  }
}
