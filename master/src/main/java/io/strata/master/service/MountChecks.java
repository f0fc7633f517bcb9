package io.strata.master.service;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.MountPoint;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.LocalUnderFileSystem;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UfsStatus;
import io.strata.core.ufs.UnderFileSystem;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What a new mount must pass before it is journaled: a path of its own (not the root, not under or
 * over another mount, not something that exists in the mount that holds it today), and a store that
 * answers with a folder. Each refusal is one line naming what is in the way.
 */
final class MountChecks {
  private final Function<Mount, UnderFileSystem> opener;
  private final List<Path> localRoots;

  /**
   * @param localRoots the local folders mounts may use ({@code strata.master.mount.local.roots});
   *     empty: any
   */
  MountChecks(List<String> localRoots) {
    this(
        m -> UfsFactory.open(m.ufsUri(), m.options(), LocalUnderFileSystem.DEFAULT_TEMP_MAX_AGE),
        localRoots);
  }

  MountChecks(Function<Mount, UnderFileSystem> opener, List<String> localRoots) {
    this.opener = opener;
    this.localRoots = localRoots.stream().map(r -> Path.of(r).normalize()).toList();
  }

  /** The mount as it will be journaled (its URI in canonical form), or a refusal. */
  Mount check(MountPoint requested, MountTable table) {
    if (requested.getPath().isEmpty() || requested.getUfsUri().isEmpty()) {
      throw StrataException.invalidArgument("a mount needs a path and an under-storage URI");
    }
    StrataPath path = StrataPath.of(requested.getPath());
    if (path.isRoot()) {
      throw StrataException.invalidArgument(
          "the root is mounted by the masters' strata.master.mount.table.root.ufs; mount under it");
    }
    Mount mount =
        new Mount(
            path,
            UfsFactory.normalize(requested.getUfsUri()),
            requested.getReadOnly(),
            requested.getOptionsMap(),
            requested.getShared());
    requireAllowedLocalFolder(mount);
    for (Mount other : table.mounts()) {
      if (other.path().equals(path)) {
        throw StrataException.alreadyExists(
            path + " is already a mount (of " + other.ufsUri() + "); unmount it first");
      }
      if (!other.path().isRoot() && path.isUnder(other.path())) {
        throw new StrataException(
            StatusCode.FAILED_PRECONDITION,
            path + " is inside the mount " + other.path() + "; mounts do not nest");
      }
      if (other.path().isUnder(path)) {
        throw new StrataException(
            StatusCode.FAILED_PRECONDITION,
            path + " would hide the mount " + other.path() + "; mounts do not nest");
      }
    }
    try (UnderFileSystem ufs = opener.apply(mount)) {
      UfsStatus root = ufs.getStatus(StrataPath.ROOT);
      if (!root.directory()) {
        throw new StrataException(
            StatusCode.NOT_A_DIRECTORY, mount.ufsUri() + " is a file; mount a folder");
      }
    } catch (StrataException e) {
      // A store this master cannot reach is the answer to this mount, not a master to try again:
      // as UNAVAILABLE the shell's client would retry it until its deadline (30 s for a mistyped
      // NameNode port). The store's driver has already spent its own retries.
      StatusCode code =
          e.code() == StatusCode.UNAVAILABLE ? StatusCode.FAILED_PRECONDITION : e.code();
      if (e.getMessage() != null && e.getMessage().contains(mount.ufsUri())) {
        throw code == e.code() ? e : new StrataException(code, e.getMessage(), e);
      }
      // A local folder's errors name paths inside it ("/ does not exist"): name the store.
      throw new StrataException(code, "cannot mount " + mount.ufsUri() + ": " + e.getMessage());
    }
    requireFreeInParent(path, table);
    return mount;
  }

  /** A local folder outside strata.master.mount.local.roots is refused, before it is opened. */
  private void requireAllowedLocalFolder(Mount mount) {
    if (localRoots.isEmpty() || !mount.ufsUri().startsWith("file:")) {
      return;
    }
    Path folder = Path.of(URI.create(mount.ufsUri())).normalize();
    if (localRoots.stream().noneMatch(folder::startsWith)) {
      throw new StrataException(
          StatusCode.PERMISSION_DENIED,
          "cannot mount "
              + mount.ufsUri()
              + ": local mounts are limited to "
              + localRoots.stream().map(Path::toString).collect(Collectors.joining(", "))
              + " (strata.master.mount.local.roots)");
    }
  }

  /** A path that exists in the mount holding it would vanish under the new one. */
  private void requireFreeInParent(StrataPath path, MountTable table) {
    MountTable.Resolution parent = table.resolve(path);
    try (UnderFileSystem ufs = opener.apply(parent.mount())) {
      ufs.getStatus(parent.ufsPath());
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          path
              + " exists in the mount "
              + parent.mount().path()
              + " ("
              + parent.ufsUri()
              + "); mount at a path that does not");
    } catch (StrataException e) {
      if (e.code() != StatusCode.NOT_FOUND) {
        throw e;
      }
    }
  }
}
