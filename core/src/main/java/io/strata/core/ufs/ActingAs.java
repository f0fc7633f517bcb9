package io.strata.core.ufs;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import jnr.ffi.LibraryLoader;
import jnr.ffi.annotations.In;
import jnr.ffi.annotations.Out;
import jnr.ffi.annotations.SaveError;

/**
 * Runs a call on a local store with a user's file-system identity: Linux's per-thread fsuid, fsgid
 * and supplementary groups, as NFS servers serve their users (knfsd, NFS-Ganesha). The kernel then
 * checks the permission bits, the sticky bit, protected hard links and every folder it passes, on
 * what it actually opens, as it would for the user's own process: a folder that a user swaps for a
 * symbolic link after the worker's own check (which reads statuses, perhaps cached) leads nowhere
 * the user may not go. Only a worker running as root can switch ({@link #available}); others keep
 * the worker's own checks alone.
 *
 * <p>The groups are set by the raw system call: glibc's setgroups changes every thread of the
 * process, the kernel's only the caller. fsuid and fsgid are per thread in glibc already. The
 * process's identity is put back before the call returns, whatever it throws.
 */
public final class ActingAs {
  /** Who a call acts as: a uid, a primary gid and the supplementary groups. */
  public record Identity(int uid, int gid, List<Integer> groups) {
    public Identity {
      groups = List.copyOf(groups);
    }

    /** What a user this host has no account for acts as: nobody, in nogroup. */
    public static final Identity NOBODY = new Identity(65534, 65534, List.of());

    @Override
    public String toString() {
      return "uid " + uid + ", gid " + gid;
    }
  }

  /** The few calls that switch a thread's identity. */
  public interface Calls {
    int geteuid();

    int getegid();

    int setfsuid(int uid);

    int setfsgid(int gid);

    /** setgroups and getgroups by number: {@code size} entries of {@code list}. */
    @SaveError
    long syscall(long number, long size, @In int[] list);

    /** getgroups by number, into {@code list}. */
    @SaveError
    long syscall(long number, long size, @Out int[] list, long unused);
  }

  private static final class Native {
    static final Calls C = LibraryLoader.create(Calls.class).load("c");
    static final long[] GROUP_CALLS = groupCalls();
    static final int EUID = C.geteuid();
    static final int EGID = C.getegid();
    static final boolean ROOT = bindAll() && EUID == 0;
    static final int[] PROCESS_GROUPS = ROOT && GROUP_CALLS != null ? processGroups() : new int[0];

    /**
     * Loads now what calls on a local store use natively: as a user, the jars on the class path may
     * not be readable (an installation under root's 0700 home, say).
     */
    private static boolean bindAll() {
      PosixCalls.bind();
      return true;
    }

    /** setgroups, getgroups: x86-64 and arm64 numbered them differently; null elsewhere. */
    private static long[] groupCalls() {
      String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
      return switch (arch) {
        case "amd64", "x86_64" -> new long[] {116, 115};
        case "aarch64", "arm64" -> new long[] {159, 158};
        default -> null;
      };
    }

    private static int[] processGroups() {
      int[] groups = new int[65536];
      long n = C.syscall(GROUP_CALLS[1], groups.length, groups, 0);
      if (n < 0) {
        throw new IllegalStateException("getgroups failed");
      }
      return Arrays.copyOf(groups, (int) n);
    }
  }

  private static final ThreadLocal<Identity> ACTING = new ThreadLocal<>();

  private ActingAs() {}

  /** Whether calls can act as their users here: a worker running as root, on Linux. */
  public static boolean available() {
    try {
      return Native.ROOT && Native.GROUP_CALLS != null;
    } catch (LinkageError e) {
      return false;
    }
  }

  /** {@code op} as {@code who} ({@code null}: as the process), where {@link #available}. */
  public static <T> T call(Identity who, Supplier<T> op) {
    Identity before = ACTING.get();
    if (who == null || who.equals(before) || !available()) {
      return op.get();
    }
    if (before != null) {
      restore();
    }
    apply(who);
    try {
      return op.get();
    } finally {
      restore();
      if (before != null) {
        apply(before);
      }
    }
  }

  /** {@code op} as {@code who}. */
  public static void run(Identity who, Runnable op) {
    call(
        who,
        () -> {
          op.run();
          return null;
        });
  }

  /**
   * {@code op} as the process, inside a call acting as a user: for what is the administrator's,
   * never a user's to reach (the store's root folder and the folders above it).
   */
  public static <T> T asProcess(Supplier<T> op) {
    Identity acting = ACTING.get();
    if (acting == null) {
      return op.get();
    }
    restore();
    try {
      return op.get();
    } finally {
      apply(acting);
    }
  }

  private static void apply(Identity who) {
    int[] groups = who.groups().stream().mapToInt(Integer::intValue).toArray();
    if (Native.C.syscall(Native.GROUP_CALLS[0], groups.length, groups) != 0) {
      restore();
      throw new StrataException(
          StatusCode.INTERNAL, "cannot take the groups of " + who + " for a call");
    }
    ACTING.set(who);
    Native.C.setfsgid(who.gid());
    Native.C.setfsuid(who.uid());
    // Both return the previous value and report no failure: ask again (-1 changes nothing).
    if (Native.C.setfsuid(-1) != who.uid() || Native.C.setfsgid(-1) != who.gid()) {
      restore();
      throw new StrataException(StatusCode.INTERNAL, "cannot act as " + who + " for a call");
    }
  }

  /** Back to the process's own identity. */
  private static void restore() {
    Native.C.setfsuid(Native.EUID);
    Native.C.setfsgid(Native.EGID);
    long done =
        Native.C.syscall(
            Native.GROUP_CALLS[0], Native.PROCESS_GROUPS.length, Native.PROCESS_GROUPS);
    ACTING.remove();
    if (done != 0 || Native.C.setfsuid(-1) != Native.EUID || Native.C.setfsgid(-1) != Native.EGID) {
      // A pooled thread left with a user's rights would serve the next caller with them.
      throw new IllegalStateException("cannot take back the process's identity on this thread");
    }
  }
}
