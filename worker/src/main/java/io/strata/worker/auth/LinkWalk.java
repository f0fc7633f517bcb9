package io.strata.worker.auth;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FileType;
import io.strata.core.security.Principal;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.function.Function;

/**
 * A path walked as a local under-storage resolves it, with search checked on every folder on the
 * way: a symbolic link on the way (its own mode is 0777) stands for where it leads, and those
 * folders are checked instead; so is the last entry when asked. Without this a link {@code /tmp/m/l
 * -> ../../home/alice} would let anyone into alice's 0700 folder. A link to an absolute path, or
 * above the root, is refused: the store does not follow it either.
 */
final class LinkWalk {
  /** Links followed in one path at most, as the kernel's ELOOP. */
  private static final int MAX_LINKS = 40;

  /** Checks that the caller may search a folder; throws when not. */
  interface SearchCheck {
    void check(FileStatus folder, StrataPath at);
  }

  /** Where a walk ended, and that entry's status when the walk looked it up (else null). */
  record Place(StrataPath path, FileStatus status) {
    /** The status, looked up now if the walk did not. */
    FileStatus status(Function<StrataPath, FileStatus> lookUp) {
      return status != null ? status : lookUp.apply(path);
    }
  }

  private final Function<StrataPath, FileStatus> status;

  LinkWalk(Function<StrataPath, FileStatus> status) {
    this.status = status;
  }

  Place walk(Principal caller, StrataPath path, String op, boolean followLast, SearchCheck search) {
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
          throw Denials.path(caller, op, path, "leads above the root through a symbolic link");
        }
        at = at.parent();
        atStatus = null;
        continue;
      }
      if (atStatus == null) {
        atStatus = status.apply(at);
      }
      search.check(atStatus, at);
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
        throw Denials.path(
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
}
