package io.strata.core.security;

import io.grpc.Context;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The local account a cluster process serves a call for: a FUSE mount's caller, as the kernel names
 * it in each request (uid, gid) and as its process's groups say. The process sends it with its own
 * SERVICE credentials; a worker that can switch identity runs the call's store operations as that
 * account, so the kernel checks the permission bits, the sticky rule and protected links on what
 * the store holds now, not on the attributes a mount's kernel cached a minute ago (issue 78).
 *
 * <p>Only a SERVICE caller's claim is taken: any other caller acts as itself. The claim can only
 * narrow what a SERVICE caller may do, which is everything.
 */
public record ActingFor(int uid, int gid, List<Integer> groups) {
  /** The account the call being made or served acts for; null when none. */
  public static final Context.Key<ActingFor> CURRENT = Context.key("strata-acting-for");

  /** Linux's NGROUPS_MAX: more supplementary groups than a process can have is a bad claim. */
  private static final int MAX_GROUPS = 65536;

  public ActingFor {
    groups = List.copyOf(groups);
    if (groups.size() > MAX_GROUPS) {
      throw StrataException.invalidArgument("acting for: more than " + MAX_GROUPS + " groups");
    }
  }

  /** The claim of the call being made or served, or null. */
  public static ActingFor current() {
    return CURRENT.get();
  }

  /** Runs {@code body} with every call it makes acting for this account. */
  public int run(IntSupplier body) {
    return call(body::getAsInt);
  }

  /** {@code body}'s result, with every call it makes acting for this account. */
  public <T> T call(Supplier<T> body) {
    Context previous = Context.current().withValue(CURRENT, this).attach();
    try {
      return body.get();
    } finally {
      Context.current().detach(previous);
    }
  }

  /**
   * {@code body}'s result, acting for {@code who}, or for whoever the calling thread acts for when
   * {@code who} is null.
   */
  public static <T> T callFor(ActingFor who, Supplier<T> body) {
    return who == null ? body.get() : who.call(body);
  }

  /** The claim as a header carries it: {@code uid:gid:group,group,...}. */
  public String header() {
    StringBuilder b = new StringBuilder().append(id(uid)).append(':').append(id(gid)).append(':');
    for (int i = 0; i < groups.size(); i++) {
      b.append(i == 0 ? "" : ",").append(id(groups.get(i)));
    }
    return b.toString();
  }

  /** A claim read from a header; a malformed one is an INVALID_ARGUMENT. */
  public static ActingFor parse(String header) {
    String[] parts = header.split(":", -1);
    if (parts.length != 3) {
      throw StrataException.invalidArgument(
          "acting for: expected uid:gid:groups, got " + clip(header));
    }
    List<Integer> groups = new ArrayList<>();
    if (!parts[2].isEmpty()) {
      String[] gs = parts[2].split(",", -1);
      if (gs.length > MAX_GROUPS) {
        throw StrataException.invalidArgument("acting for: more than " + MAX_GROUPS + " groups");
      }
      for (String g : gs) {
        groups.add(parseId(g, header));
      }
    }
    return new ActingFor(parseId(parts[0], header), parseId(parts[1], header), groups);
  }

  /** An id as the kernel's 32-bit unsigned number; -1 (no id) is not one. */
  private static int parseId(String s, String header) {
    try {
      long v = Long.parseLong(s);
      if (v < 0 || v >= 0xFFFF_FFFFL) {
        throw new NumberFormatException();
      }
      return (int) v;
    } catch (NumberFormatException e) {
      throw StrataException.invalidArgument(
          "acting for: not an id: " + clip(s) + " in " + clip(header));
    }
  }

  private static String id(int v) {
    return Integer.toUnsignedString(v);
  }

  private static String clip(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
