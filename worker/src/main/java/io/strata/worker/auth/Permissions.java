package io.strata.worker.auth;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.Locale;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The under-storage's permission bits, owner and group, checked for the caller a token names, the
 * way HDFS checks them: search (x) on every folder above a path, then what the operation needs on
 * the path or its parent. Who is not checked: NONE mode and the cluster's own processes (no caller,
 * or SERVICE: a FUSE mount's kernel checks its local users itself), admins, members of the
 * superuser group, and everyone while checks are switched off (a single-tenant cluster). Owner and
 * group compare by name with what the under-storage reports; a user's groups are this host's.
 */
public final class Permissions {
  public static final int READ = 4;
  public static final int WRITE = 2;
  public static final int SEARCH = 1;

  private final Function<StrataPath, FileStatus> status;
  private final BooleanSupplier enabled;
  private final Supplier<String> superuserGroup;
  private final Function<String, Set<String>> groups;

  /**
   * @param status a path's current status (the worker's metadata)
   * @param enabled whether checks are on
   * @param superuserGroup members bypass every check ("" for none)
   * @param groups a user's groups
   */
  Permissions(
      Function<StrataPath, FileStatus> status,
      BooleanSupplier enabled,
      Supplier<String> superuserGroup,
      Function<String, Set<String>> groups) {
    this.status = status;
    this.enabled = enabled;
    this.superuserGroup = superuserGroup;
    this.groups = groups;
  }

  /** With this host's groups. */
  public static Permissions of(
      Function<StrataPath, FileStatus> status,
      BooleanSupplier enabled,
      Supplier<String> superuserGroup) {
    return new Permissions(status, enabled, superuserGroup, new OsGroups());
  }

  /** Whether {@code caller}'s operations are checked. */
  public boolean checked(Principal caller) {
    if (caller == null || caller.role() != Role.USER || !enabled.getAsBoolean()) {
      return false;
    }
    String supergroup = superuserGroup.get();
    return supergroup.isEmpty() || !groups.apply(caller.user()).contains(supergroup);
  }

  /** Search on the folders above {@code path}, then {@code access} (0: none) on it. */
  public void checkPath(Principal caller, StrataPath path, int access, String op) {
    if (!checked(caller)) {
      return;
    }
    searchAbove(caller, path, op, path);
    if (access != 0) {
      check(caller, status.apply(path), access, op, path, path);
    }
  }

  /**
   * Creating, removing or renaming {@code path}: write and search on its folder (the nearest that
   * exists, for a folder made with its parents).
   */
  public void checkParent(Principal caller, StrataPath path, String op) {
    parentOf(caller, path, op);
  }

  /**
   * Removing or renaming {@code path}: as {@link #checkParent}, and in a sticky folder only its
   * owner or the folder's may.
   */
  public void checkRemove(Principal caller, StrataPath path, String op) {
    FileStatus folder = parentOf(caller, path, op);
    if (folder == null || (folder.getMode() & STICKY) == 0) {
      return;
    }
    FileStatus st = status.apply(path);
    if (!st.getOwner().equals(caller.user()) && !folder.getOwner().equals(caller.user())) {
      throw denied(caller, op, path, path, st, "owns neither it nor its sticky folder");
    }
  }

  private static final int STICKY = 01000;

  /** The checked folder's status, or null when the caller is not checked. */
  private FileStatus parentOf(Principal caller, StrataPath path, String op) {
    if (!checked(caller)) {
      return null;
    }
    if (path.isRoot()) {
      throw new StrataException(
          StatusCode.PERMISSION_DENIED,
          "permission denied: " + caller.user() + " may not " + op + " the root folder");
    }
    StrataPath parent = path.parent();
    FileStatus st;
    while (true) {
      try {
        st = status.apply(parent);
        break;
      } catch (StrataException e) {
        if (e.code() != StatusCode.NOT_FOUND || parent.isRoot()) {
          throw e;
        }
        parent = parent.parent();
      }
    }
    searchAbove(caller, parent, op, path);
    check(caller, st, WRITE | SEARCH, op, path, parent);
    return st;
  }

  /** Changing {@code path}'s mode or times: its owner only. */
  public void checkOwner(Principal caller, StrataPath path, String op) {
    if (!checked(caller)) {
      return;
    }
    searchAbove(caller, path, op, path);
    FileStatus st = status.apply(path);
    if (!st.getOwner().equals(caller.user())) {
      throw denied(caller, op, path, path, st, "is not its owner");
    }
  }

  /** What only a superuser may do (give an entry an owner or a group). */
  public void checkSuperuser(Principal caller, String op, StrataPath path) {
    if (checked(caller)) {
      throw new StrataException(
          StatusCode.PERMISSION_DENIED,
          "permission denied: "
              + caller.user()
              + " may not "
              + op
              + " "
              + path
              + " (superuser only)");
    }
  }

  private void searchAbove(Principal caller, StrataPath path, String op, StrataPath target) {
    if (path.isRoot()) {
      return;
    }
    java.util.ArrayDeque<StrataPath> above = new java.util.ArrayDeque<>();
    for (StrataPath p = path.parent(); ; p = p.parent()) {
      above.push(p);
      if (p.isRoot()) {
        break;
      }
    }
    for (StrataPath folder : above) {
      check(caller, status.apply(folder), SEARCH, op, target, folder);
    }
  }

  private void check(
      Principal caller, FileStatus st, int access, String op, StrataPath target, StrataPath path) {
    int mode = st.getMode();
    int granted;
    if (st.getOwner().equals(caller.user())) {
      granted = (mode >> 6) & 7;
    } else if (groups.apply(caller.user()).contains(st.getGroup())) {
      granted = (mode >> 3) & 7;
    } else {
      granted = mode & 7;
    }
    if ((granted & access) != access) {
      throw denied(caller, op, target, path, st, "lacks " + bits(access));
    }
  }

  private static StrataException denied(
      Principal caller, String op, StrataPath target, StrataPath path, FileStatus st, String why) {
    return new StrataException(
        StatusCode.PERMISSION_DENIED,
        String.format(
            Locale.ROOT,
            "permission denied: %s %s: %s %s%s (owner %s, group %s, mode %04o)",
            op,
            target,
            caller.user(),
            why,
            path.equals(target) ? "" : " on " + path,
            st.getOwner(),
            st.getGroup(),
            st.getMode() & 07777));
  }

  private static String bits(int access) {
    return ((access & READ) != 0 ? "r" : "")
        + ((access & WRITE) != 0 ? "w" : "")
        + ((access & SEARCH) != 0 ? "x" : "");
  }
}
