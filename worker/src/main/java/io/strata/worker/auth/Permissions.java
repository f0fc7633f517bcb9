package io.strata.worker.auth;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
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
  private final LinkWalk links;
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
    this.links = new LinkWalk(status);
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
    LinkWalk.Place real = walk(caller, path, op, true);
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
      throw Denials.entry(caller, op, path, path, st, "owns neither it nor its sticky folder");
    }
  }

  /** A folder tree as the store has it now, not from a cache a swap could have made stale. */
  public interface Tree {
    FileStatus status(StrataPath path);

    List<FileStatus> children(StrataPath folder);
  }

  /**
   * Removing the folder {@code path} with all it holds, as {@code rm -r} may (issue 78): read,
   * write and search on every folder of the tree that holds anything, to list it and remove what it
   * holds (an empty one goes by its parent's bits, as rmdir(2)), and in a sticky folder only
   * entries the caller or the folder's owner owns, as HDFS checks a recursive delete. That {@code
   * path} itself may go from its folder is {@link #checkRemove}'s.
   */
  public void checkRemoveTree(Principal caller, StrataPath path, Tree now, String op) {
    if (!checked(caller)) {
      return;
    }
    FileStatus top = now.status(path);
    if (!top.getDirectory()) {
      return;
    }
    ArrayDeque<Map.Entry<StrataPath, FileStatus>> folders = new ArrayDeque<>();
    folders.add(Map.entry(path, top));
    while (!folders.isEmpty()) {
      Map.Entry<StrataPath, FileStatus> next = folders.poll();
      StrataPath folder = next.getKey();
      FileStatus st = next.getValue();
      List<FileStatus> listed = now.children(folder);
      if (listed.isEmpty()) {
        continue;
      }
      check(caller, st, READ | WRITE | SEARCH, op, path, folder);
      boolean sticky = sticky(st);
      for (FileStatus one : listed) {
        StrataPath child = folder.child(one.getName());
        FileStatus entry = one.getListedOnly() ? now.status(child) : one;
        if (sticky
            && !entry.getOwner().equals(caller.user())
            && !st.getOwner().equals(caller.user())) {
          throw Denials.entry(
              caller, op, path, child, entry, "owns neither it nor its sticky folder");
        }
        if (entry.getDirectory()) {
          folders.add(Map.entry(child, entry));
        }
      }
    }
  }

  /**
   * Moving {@code src} into another folder: when it is a folder, write on it too, since its {@code
   * ..} entry changes (rename(2) asks the same). {@code now} is the store's status, not a cache's.
   */
  public void checkMove(
      Principal caller,
      StrataPath src,
      StrataPath dst,
      Function<StrataPath, FileStatus> now,
      String op) {
    if (!checked(caller) || src.isRoot() || dst.isRoot() || src.parent().equals(dst.parent())) {
      return;
    }
    FileStatus st = now.apply(src);
    if (st.getDirectory()) {
      check(caller, st, WRITE, op, src, src);
    }
  }

  private static final int STICKY = 01000;

  /**
   * Whether {@code folder} is sticky: its POSIX mode says so (a status's own mode keeps the
   * permission bits alone, so the sticky rules never applied to a local store; issue 78).
   */
  private static boolean sticky(FileStatus folder) {
    return (posixMode(folder) & STICKY) != 0;
  }

  /** The whole mode, set-id and sticky bits included, where the store keeps one. */
  private static int posixMode(FileStatus st) {
    return st.hasPosix() ? st.getPosix().getMode() : st.getMode();
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
    int mode = posixMode(st);
    if ((mode & SETUID) != 0 || (mode & SETGID_EXEC) == SETGID_EXEC) {
      throw Denials.entry(
          caller, op, existing, real, st, "may not link a set-id file of another's");
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
      throw Denials.superuserOnly(caller, op + " the root folder");
    }
    StrataPath parent = path.parent();
    StrataPath real;
    FileStatus st;
    while (true) {
      try {
        LinkWalk.Place place = walk(caller, parent, op, true);
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
      throw Denials.entry(caller, op, path, path, st, "is not its owner");
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
      throw Denials.superuserOnly(caller, op + " " + path);
    }
  }

  /** {@code path} as the store resolves it, search checked on the way ({@link LinkWalk}). */
  private StrataPath resolve(Principal caller, StrataPath path, String op, boolean followLast) {
    return walk(caller, path, op, followLast).path();
  }

  private LinkWalk.Place walk(Principal caller, StrataPath path, String op, boolean followLast) {
    return links.walk(
        caller, path, op, followLast, (folder, at) -> check(caller, folder, SEARCH, op, path, at));
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
      throw Denials.entry(caller, op, target, path, st, "lacks " + Denials.bits(access));
    }
  }
}
