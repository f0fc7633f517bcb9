package io.strata.worker.auth;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FileType;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
 * group compare by name with what the under-storage reports; a user's groups are this host's. These
 * checks read statuses, perhaps cached, so on a local store the user's calls also act as the user
 * ({@link CallerIdentity}): the kernel checks again what it actually opens.
 */
public final class Permissions {
  public static final int READ = 4;
  public static final int WRITE = 2;
  public static final int SEARCH = 1;

  private final Function<StrataPath, FileStatus> status;
  private final BooleanSupplier enabled;
  private final Supplier<String> superuserGroup;
  private final Function<String, Set<String>> groups;
  private final Function<String, Optional<OsAccounts.Ids>> accounts;

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
    this(status, enabled, superuserGroup, groups, new OsAccounts());
  }

  /**
   * @param accounts a user's ids on this host, if any
   */
  Permissions(
      Function<StrataPath, FileStatus> status,
      BooleanSupplier enabled,
      Supplier<String> superuserGroup,
      Function<String, Set<String>> groups,
      Function<String, Optional<OsAccounts.Ids>> accounts) {
    this.status = status;
    this.enabled = enabled;
    this.superuserGroup = superuserGroup;
    this.groups = groups;
    this.accounts = accounts;
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

  /**
   * The ids a new entry {@code caller} makes gets in a store that keeps numeric owners: the
   * caller's own, when the caller is checked (a user: the bits decide what they may do with it
   * next, as HDFS makes a user's new entries theirs) and has an account on this host (or a numeric
   * name); empty otherwise: the cluster's processes and superusers keep the worker's ids or give
   * their own, and a user this host does not know gets none (a store of numbers cannot name them:
   * what they make is the worker's, or nobody's where the worker acts as its callers, {@link
   * CallerIdentity}).
   */
  public Optional<OsAccounts.Ids> creatorIds(Principal caller) {
    return checked(caller) ? accounts.apply(caller.user()) : Optional.empty();
  }

  /** Search on the folders above {@code path}, then {@code access} (0: none) on it. */
  public void checkPath(Principal caller, StrataPath path, int access, String op) {
    if (!checked(caller)) {
      return;
    }
    if (access == 0) {
      resolve(caller, path, op, false);
      return;
    }
    // The bits of what the store reads: a link's target, not the link (whose own mode is 0777).
    Place real = walk(caller, path, op, true);
    check(caller, real.status(status), access, op, path, real.path());
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
    if (folder == null || !sticky(folder)) {
      return;
    }
    FileStatus st = status.apply(path);
    if (!st.getOwner().equals(caller.user()) && !folder.getOwner().equals(caller.user())) {
      throw denied(caller, op, path, path, st, "owns neither it nor its sticky folder");
    }
  }

  /**
   * Removing the folder {@code path} with all it holds, as {@code rm -r} may (issue 78): read,
   * write and search on every folder of the tree, to list it and remove what it holds, and in a
   * sticky folder only entries the caller or the folder's owner owns, as HDFS checks a recursive
   * delete. That {@code path} itself may go from its folder is {@link #checkRemove}'s. {@code
   * children} lists a folder as the store has it now (not from a cache a swap could have made
   * stale).
   */
  public void checkRemoveTree(
      Principal caller,
      StrataPath path,
      Function<StrataPath, List<FileStatus>> children,
      String op) {
    if (!checked(caller)) {
      return;
    }
    FileStatus top = status.apply(path);
    if (!top.getDirectory()) {
      return;
    }
    ArrayDeque<Map.Entry<StrataPath, FileStatus>> folders = new ArrayDeque<>();
    folders.add(Map.entry(path, top));
    while (!folders.isEmpty()) {
      Map.Entry<StrataPath, FileStatus> next = folders.poll();
      StrataPath folder = next.getKey();
      FileStatus st = next.getValue();
      check(caller, st, READ | WRITE | SEARCH, op, path, folder);
      boolean sticky = sticky(st);
      for (FileStatus listed : children.apply(folder)) {
        StrataPath child = folder.child(listed.getName());
        FileStatus entry = listed.getListedOnly() ? status.apply(child) : listed;
        if (sticky
            && !entry.getOwner().equals(caller.user())
            && !st.getOwner().equals(caller.user())) {
          throw denied(caller, op, path, child, entry, "owns neither it nor its sticky folder");
        }
        if (entry.getDirectory()) {
          folders.add(Map.entry(child, entry));
        }
      }
    }
  }

  private static final int STICKY = 01000;

  /**
   * Whether {@code folder} is sticky: its POSIX mode says so (a status's own mode keeps the
   * permission bits alone, so the sticky rules never applied to a local store; issue 78).
   */
  private static boolean sticky(FileStatus folder) {
    int mode = folder.hasPosix() ? folder.getPosix().getMode() : folder.getMode();
    return (mode & STICKY) != 0;
  }

  private static final int SETUID = 04000;
  private static final int SETGID_EXEC = 02010;

  /**
   * Writing {@code path} anew (a write with overwrite, in place or not): {@code w} on the file
   * itself when there is one, as open(2) with O_TRUNC needs; the folder's {@code wx} is {@link
   * #checkParent}'s. Otherwise a hard link to a file one may not write, in one's own folder, would
   * let one rewrite it.
   */
  public void checkOverwrite(Principal caller, StrataPath path, String op) {
    FileStatus st = existing(caller, path, op);
    if (st != null && !st.getDirectory()) {
      check(caller, st, WRITE, op, path, path);
    }
  }

  /**
   * Renaming over {@code path}: in a sticky folder only the owner of what is replaced, or the
   * folder's, may.
   */
  public void checkReplace(Principal caller, StrataPath path, String op) {
    if (existing(caller, path, op) != null) {
      checkRemove(caller, path, op);
    }
  }

  /**
   * Linking to {@code existing}, as link(2) allows it with fs.protected_hardlinks=1: its owner, or
   * one who may read and write it, and never to another's set-id file.
   */
  public void checkHardLink(Principal caller, StrataPath existing, String op) {
    if (!checked(caller)) {
      return;
    }
    StrataPath real = resolve(caller, existing, op, false);
    FileStatus st = status.apply(real);
    if (st.getOwner().equals(caller.user())) {
      return;
    }
    int mode = st.getMode();
    if ((mode & SETUID) != 0 || (mode & SETGID_EXEC) == SETGID_EXEC) {
      throw denied(caller, op, existing, real, st, "may not link a set-id file of another's");
    }
    check(caller, st, READ | WRITE, op, existing, real);
  }

  /** {@code path}'s status, its folders searched; null if absent or the caller is not checked. */
  private FileStatus existing(Principal caller, StrataPath path, String op) {
    if (!checked(caller)) {
      return null;
    }
    try {
      return status.apply(resolve(caller, path, op, false));
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND) {
        return null;
      }
      throw e;
    }
  }

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
    StrataPath real;
    FileStatus st;
    while (true) {
      try {
        Place place = walk(caller, parent, op, true);
        real = place.path();
        st = place.status(status);
        break;
      } catch (StrataException e) {
        if (e.code() != StatusCode.NOT_FOUND || parent.isRoot()) {
          throw e;
        }
        parent = parent.parent();
      }
    }
    check(caller, st, WRITE | SEARCH, op, path, real);
    return st;
  }

  /** Changing {@code path}'s mode or times: its owner only. */
  public void checkOwner(Principal caller, StrataPath path, String op) {
    if (!checked(caller)) {
      return;
    }
    FileStatus st = status.apply(resolve(caller, path, op, false));
    if (!st.getOwner().equals(caller.user())) {
      throw denied(caller, op, path, path, st, "is not its owner");
    }
  }

  /**
   * A mode {@code caller} gives: a user may not set the setuid or setgid bits of a file (they would
   * run as the worker's account, or its owner's), nor setuid on a folder (setgid there only passes
   * the group on).
   */
  public void checkModeBits(
      Principal caller, StrataPath path, String op, int mode, boolean directory) {
    int forbidden = directory ? SETUID : SETUID | 02000;
    if ((mode & forbidden) != 0 && checked(caller)) {
      throw new StrataException(
          StatusCode.PERMISSION_DENIED,
          String.format(
              Locale.ROOT,
              "permission denied: %s %s: %s may not set the set-id bits of mode %04o"
                  + " (superuser only)",
              op,
              path,
              caller.user(),
              mode & 07777));
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

  /** Links followed in one path at most, as the kernel's ELOOP. */
  private static final int MAX_LINKS = 40;

  /**
   * {@code path} as a local under-storage resolves it, with search checked on every folder on the
   * way: a symbolic link on the way (its own mode is 0777) stands for where it leads, and those
   * folders are checked instead; so is the last entry when {@code followLast}. Without this a link
   * {@code /tmp/m/l -> ../../home/alice} would let anyone into alice's 0700 folder. A link to an
   * absolute path, or above the root, is refused: the store does not follow it either.
   */
  private StrataPath resolve(Principal caller, StrataPath path, String op, boolean followLast) {
    return walk(caller, path, op, followLast).path();
  }

  /** Where a walk ended, and that entry's status when the walk looked it up (else null). */
  private record Place(StrataPath path, FileStatus status) {
    /** The status, looked up now if the walk did not. */
    FileStatus status(Function<StrataPath, FileStatus> lookUp) {
      return status != null ? status : lookUp.apply(path);
    }
  }

  private Place walk(Principal caller, StrataPath path, String op, boolean followLast) {
    ArrayDeque<String> todo = new ArrayDeque<>(names(path.toString()));
    StrataPath at = StrataPath.ROOT;
    // Carried forward: each entry's status serves both its link test and, as the next folder,
    // its search check; one look-up per component.
    FileStatus atStatus = null;
    int links = 0;
    while (!todo.isEmpty()) {
      String name = todo.pollFirst();
      if (name.isEmpty() || name.equals(".")) {
        continue;
      }
      if (name.equals("..")) {
        if (at.isRoot()) {
          throw denied(caller, op, path, "leads above the root through a symbolic link");
        }
        at = at.parent();
        atStatus = null;
        continue;
      }
      if (atStatus == null) {
        atStatus = status.apply(at);
      }
      check(caller, atStatus, SEARCH, op, path, at);
      StrataPath next = at.child(name);
      if (todo.isEmpty() && !followLast) {
        return new Place(next, null);
      }
      FileStatus st;
      try {
        st = status.apply(next);
      } catch (StrataException e) {
        if (e.code() == StatusCode.NOT_FOUND && todo.isEmpty()) {
          return new Place(next, null);
        }
        throw e;
      }
      if (!st.hasPosix() || st.getPosix().getType() != FileType.SYMLINK) {
        at = next;
        atStatus = st;
        continue;
      }
      String target = st.getPosix().getSymlinkTarget();
      if (++links > MAX_LINKS || target.startsWith("/")) {
        throw denied(
            caller, op, path, "passes through the symbolic link " + next + " -> " + target);
      }
      List<String> hops = names(target);
      for (int k = hops.size() - 1; k >= 0; k--) {
        todo.addFirst(hops.get(k));
      }
    }
    return new Place(at, atStatus);
  }

  private static List<String> names(String path) {
    return List.of(path.split("/", -1));
  }

  private static StrataException denied(
      Principal caller, String op, StrataPath target, String why) {
    return new StrataException(
        StatusCode.PERMISSION_DENIED,
        "permission denied: " + op + " " + target + ": " + caller.user() + "'s path " + why);
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
