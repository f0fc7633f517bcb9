package io.strata.fuse;

import io.strata.client.FileInfo;
import java.util.List;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import ru.serce.jnrfuse.struct.FuseContext;

/**
 * The check an open makes of its caller against the version it opens (issue 78). The kernel checked
 * the open against the attributes it cached for the mount's attribute timeout, which may be those
 * of a file whose name another file took since, behind its back; the daemon opens what the name
 * holds now, so it checks that too, as the kernel would, before it serves a byte or writes one.
 * Root passes, as the kernel lets it. The caller's supplementary groups are asked for only where
 * they decide: for a caller who is neither the owner nor in the primary group, and where the
 * group's bits and the others' differ on what is asked.
 */
final class OpenAccess {
  private static final Logger LOG = LoggerFactory.getLogger(OpenAccess.class);
  static final int READ = 4;
  static final int WRITE = 2;
  private static final int O_ACCMODE = 3;

  private OpenAccess() {}

  /**
   * 0 if the caller of request {@code c} may have what {@code flags} ask of {@code version}, the
   * file the open of {@code path} serves; else -EACCES, with one log line.
   */
  static int check(FuseContext c, String path, FileInfo version, int flags, Identities ids) {
    long uid = c.uid.get();
    long pid = c.pid.get();
    int asked = asked(flags);
    if (permits(uid, c.gid.get(), () -> CallerAccount.groups(pid), version, ids, asked)) {
      return 0;
    }
    return Errno.refuse(
        LOG,
        Errno.EACCES,
        "open {}: uid {} may not {} the file as it is now (the kernel checked what it cached)",
        path,
        uid,
        (asked & WRITE) != 0 ? "write" : "read");
  }

  /** What open(2)'s {@code flags} ask of the file: r, w, or both. */
  static int asked(int flags) {
    return switch (flags & O_ACCMODE) {
      case 0 -> READ;
      case 1 -> WRITE;
      default -> READ | WRITE;
    };
  }

  /**
   * Whether {@code uid} (of {@code gid}, in {@code groups}) may have {@code asked} of {@code f}.
   */
  static boolean permits(
      long uid, long gid, Supplier<List<Integer>> groups, FileInfo f, Identities ids, int asked) {
    if (uid == 0) {
      return true;
    }
    int bits = Attributes.permissions(f);
    if (uid == Attributes.uid(f, ids)) {
      return granted(bits >> 6, asked);
    }
    long group = Attributes.gid(f, ids);
    boolean groupGrants = granted(bits >> 3, asked);
    boolean othersGrant = granted(bits, asked);
    if (gid == group) {
      return groupGrants;
    }
    if (groupGrants == othersGrant) {
      return othersGrant;
    }
    return groups.get().stream().anyMatch(g -> Integer.toUnsignedLong(g) == group)
        ? groupGrants
        : othersGrant;
  }

  private static boolean granted(int bits, int asked) {
    return (bits & asked) == asked;
  }
}
