package io.strata.worker.namespace;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.CheckAccessRequest;
import io.strata.core.proto.CreateNodeRequest;
import io.strata.core.proto.DeleteRequest;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FileType;
import io.strata.core.proto.FreeRequest;
import io.strata.core.proto.GetStatusRequest;
import io.strata.core.proto.InvalidateMetadataRequest;
import io.strata.core.proto.ListStatusRequest;
import io.strata.core.proto.MkdirRequest;
import io.strata.core.proto.RenameRequest;
import io.strata.core.proto.SetAttributesRequest;
import io.strata.core.proto.SetXattrRequest;
import io.strata.core.proto.TimeChange;
import io.strata.core.proto.WriteHeader;
import io.strata.core.security.Principal;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.ActingAs;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.core.ufs.Xattrs;
import io.strata.worker.auth.OsAccounts;
import io.strata.worker.auth.Permissions;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The paths a worker owns, as its callers see them: each operation checks what the caller may do
 * (on the entry the UFS resolves now), calls the UFS, and forgets what this worker cached of what
 * changed, even when the UFS call failed half way. Knows nothing of gRPC: the service adapts it,
 * and tests call it directly.
 */
public final class Namespace {
  /** The most files a recursive listing returns at once: one store page. */
  static final int TREE_PAGE = 1000;

  /** What a CheckAccess may name as its operation: it goes into the refusal's text. */
  private static final Pattern OPERATION = Pattern.compile("[A-Za-z ]{0,32}");

  private final UfsManager ufs;
  private final MetadataService metadata;
  private final PageFetcher fetcher;
  private final Permissions access;
  private final NewEntries entries;

  public Namespace(
      UfsManager ufs, MetadataService metadata, PageFetcher fetcher, Permissions access) {
    this(ufs, metadata, fetcher, access, ActingAs.available());
  }

  /**
   * @param givesOwners whether the worker may give entries other accounts' ids (runs as root)
   */
  Namespace(
      UfsManager ufs,
      MetadataService metadata,
      PageFetcher fetcher,
      Permissions access,
      boolean givesOwners) {
    this.ufs = ufs;
    this.metadata = metadata;
    this.fetcher = fetcher;
    this.access = access;
    this.entries = new NewEntries(access, ufs, givesOwners);
  }

  public FileStatus status(Principal caller, GetStatusRequest req) {
    StrataPath path = StrataPath.of(req.getPath());
    access.checkPath(caller, path, 0, "stat");
    FileStatus status =
        metadata.getStatus(
            path, syncInterval(req.hasOptions(), req.getOptions().getSyncIntervalMs()));
    if (!req.getIncludeCacheInfo() || status.getDirectory()) {
      return status;
    }
    PageFetcher.Target version =
        fetcher.target(ufs.resolve(path), status.getFingerprint(), status.getLength());
    long cached = fetcher.files().cachedBytes(version.key(), version.fileLength());
    return status.toBuilder().setCachedBytes(cached).build();
  }

  /** A folder's children (or, for a superuser, one page of the files of its tree). */
  public MetadataService.Listing list(Principal caller, ListStatusRequest req) {
    StrataPath path = StrataPath.of(req.getPath());
    access.checkPath(caller, path, Permissions.READ, "list");
    if (req.getRecursive()) {
      // A tree's listing would pass folders the caller may not read: the cluster's own walks
      // (distributedLoad) and superusers only.
      access.checkSuperuser(caller, "list the whole tree under", path);
      int limit = req.getLimit() > 0 ? Math.min(req.getLimit(), TREE_PAGE) : TREE_PAGE;
      return new MetadataService.Listing(metadata.listFiles(path, req.getStartAfter(), limit), 0);
    }
    long sync = syncInterval(req.hasOptions(), req.getOptions().getSyncIntervalMs());
    if (req.getLimit() > 0) {
      return metadata.listPage(path, sync, req.getStartAfter(), req.getLimit());
    }
    MetadataService.Listing listing = metadata.list(path, sync);
    return new MetadataService.Listing(
        MetadataService.slice(listing.children(), req.getStartAfter(), 0), listing.freshForMs());
  }

  public void mkdir(Principal caller, MkdirRequest req) {
    UfsManager.Resolved r = writable(req.getPath());
    if (req.getParents() && folderExists(caller, r.path())) {
      return;
    }
    access.checkParent(caller, r.path(), "mkdir");
    if (req.hasUid() || req.hasGid()) {
      access.checkSuperuser(caller, "give an owner to", r.path());
    }
    access.checkModeBits(caller, r.path(), "mkdir", req.getMode(), true);
    OsAccounts.Ids owner =
        entries.owner(r, caller, req.hasUid(), req.getUid(), req.hasGid(), req.getGid());
    try {
      r.ufs().mkdirs(r.ufsPath(), req.getParents(), owner.uid(), owner.gid());
      NewEntries.give(r, owner);
      if (req.hasMode()) {
        r.ufs().setAttributes(r.ufsPath(), req.getMode() & 07777, "", "");
      }
    } finally {
      // With parents every ancestor may be new, and its parent's listing stale.
      for (StrataPath p = r.path(); ; p = p.parent()) {
        metadata.invalidate(p);
        if (!req.getParents() || p.isRoot()) {
          break;
        }
      }
    }
  }

  /**
   * Whether {@code path} is a folder in the store now, for mkdir with parents (mkdir -p, Hadoop's
   * mkdirs): that asks for no write on its parent, as mkdir(2) answers EEXIST before it checks
   * permissions, but for search on the folders above it, as a stat does.
   */
  private boolean folderExists(Principal caller, StrataPath path) {
    try {
      access.checkPath(caller, path, 0, "mkdir");
      return metadata.getStatus(path, 0).getDirectory();
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND || e.code() == StatusCode.NOT_A_DIRECTORY) {
        return false;
      }
      throw e;
    }
  }

  public void delete(Principal caller, DeleteRequest req) {
    UfsManager.Resolved r = writable(req.getPath());
    access.checkRemove(caller, r.path(), "delete");
    if (req.getRecursive()) {
      // What is in the folder too: the store deletes as the worker (S3, HDFS, a non-root worker).
      access.checkRemoveTree(caller, r.path(), storeNow(), "delete");
    }
    changeThenForget(r, () -> r.ufs().delete(r.ufsPath(), req.getRecursive()));
  }

  public void setAttributes(Principal caller, SetAttributesRequest req) {
    UfsManager.Resolved r = writable(req.getPath());
    checkAttributeChange(caller, req, r.path());
    changeThenForget(
        r,
        () -> {
          // Owner before mode: a chown clears the setuid and setgid bits.
          NewEntries.give(
              r,
              new OsAccounts.Ids(
                  req.hasUid() ? req.getUid() : -1, req.hasGid() ? req.getGid() : -1));
          r.ufs()
              .setAttributes(
                  r.ufsPath(),
                  req.hasMode() ? req.getMode() & 07777 : -1,
                  req.getOwner(),
                  req.getGroup());
          if (req.hasMtimeMs()) {
            r.ufs().setModificationTime(r.ufsPath(), req.getMtimeMs());
          }
          if (req.hasAtime() || req.hasMtime()) {
            r.ufs().setTimes(r.ufsPath(), time(req.getAtime()), time(req.getMtime()));
          }
        });
  }

  /**
   * Who may change what of an entry: its owner, its mode and times; a superuser, its owner and
   * group.
   */
  private void checkAttributeChange(Principal caller, SetAttributesRequest req, StrataPath path) {
    if (req.hasUid() || req.hasGid() || !req.getOwner().isEmpty() || !req.getGroup().isEmpty()) {
      access.checkSuperuser(caller, "change the owner of", path);
    }
    access.checkOwner(caller, path, "setattr");
    if (req.hasMode() && (req.getMode() & 06000) != 0) {
      boolean folder = metadata.getStatus(path, -1).getDirectory();
      access.checkModeBits(caller, path, "chmod", req.getMode(), folder);
    }
  }

  private static long time(TimeChange t) {
    return switch (t.getValueCase()) {
      case EPOCH_NS -> t.getEpochNs();
      case NOW -> UnderFileSystem.TIME_NOW;
      case VALUE_NOT_SET -> UnderFileSystem.TIME_OMIT;
    };
  }

  public Map<String, byte[]> xattrs(Principal caller, String path) {
    UfsManager.Resolved r = ufs.resolve(StrataPath.of(path));
    access.checkPath(caller, r.path(), Permissions.READ, "getxattr");
    return r.ufs().xattrs(r.ufsPath());
  }

  public void setXattr(Principal caller, SetXattrRequest req) {
    Xattrs.check(req.getName(), req.hasValue() ? req.getValue().size() : 0);
    UfsManager.Resolved r = writable(req.getPath());
    access.checkPath(caller, r.path(), Permissions.WRITE, "setxattr");
    // Its change time moves (and on an object store, the object is copied onto itself).
    changeThenForget(
        r,
        () ->
            r.ufs()
                .setXattr(
                    r.ufsPath(),
                    req.getName(),
                    req.hasValue() ? req.getValue().toByteArray() : null));
  }

  public void rename(Principal caller, RenameRequest req) {
    UfsManager.Resolved src = ufs.resolve(StrataPath.of(req.getSrc()));
    UfsManager.Resolved dst = ufs.resolve(StrataPath.of(req.getDst()));
    if (!src.mount().equals(dst.mount())) {
      throw StrataException.invalidArgument(
          "cannot rename across mounts: " + src.path() + " -> " + dst.path());
    }
    src.requireWritable();
    access.checkRemove(caller, src.path(), "rename");
    access.checkParent(caller, dst.path(), "rename");
    access.checkReplace(caller, dst.path(), "rename");
    access.checkMove(caller, src.path(), dst.path(), p -> metadata.getStatus(p, 0), "rename");
    try {
      if (req.getReplace()) {
        src.ufs().renameReplacing(src.ufsPath(), dst.ufsPath());
      } else {
        src.ufs().rename(src.ufsPath(), dst.ufsPath());
      }
    } finally {
      // A folder's entries moved with it: none of them may be served from the old names.
      metadata.invalidateTree(src.path());
      metadata.invalidateTree(dst.path());
    }
  }

  /** A symbolic or hard link, a FIFO, a socket or a device node. */
  public void createNode(Principal caller, CreateNodeRequest req) {
    UfsManager.Resolved r = writable(req.getPath());
    access.checkParent(caller, r.path(), "create");
    if (req.hasUid() || req.hasGid()) {
      access.checkSuperuser(caller, "give an owner to", r.path());
    }
    if (req.getType() == FileType.REGULAR) {
      access.checkHardLink(caller, StrataPath.of(req.getLinkTo()), "link");
    }
    if (req.getType() == FileType.CHAR_DEVICE || req.getType() == FileType.BLOCK_DEVICE) {
      access.checkSuperuser(caller, "make a device node at", r.path());
    }
    access.checkModeBits(caller, r.path(), "create", req.getMode(), false);
    OsAccounts.Ids owner =
        entries.owner(r, caller, req.hasUid(), req.getUid(), req.hasGid(), req.getGid());
    changeThenForget(
        r,
        () -> {
          switch (req.getType()) {
            case SYMLINK -> r.ufs().createSymlink(r.ufsPath(), req.getSymlinkTarget());
            case REGULAR -> hardLink(r, StrataPath.of(req.getLinkTo()));
            case FIFO, SOCKET, CHAR_DEVICE, BLOCK_DEVICE ->
                r.ufs().createSpecial(r.ufsPath(), req.getType(), req.getMode(), req.getRdev());
            default ->
                throw StrataException.invalidArgument(
                    "createNode: no such node type " + req.getType());
          }
          if (req.getType() != FileType.REGULAR) {
            NewEntries.give(r, owner);
          }
        });
  }

  private void hardLink(UfsManager.Resolved link, StrataPath to) {
    UfsManager.Resolved existing = ufs.resolve(to);
    if (!existing.mount().equals(link.mount())) {
      throw new StrataException(
          StatusCode.CROSS_DEVICE,
          "cannot link across mounts: " + existing.path() + " -> " + link.path());
    }
    link.ufs().createHardLink(existing.ufsPath(), link.ufsPath());
    // Its link count changed: its owner's cached status is stale (the client tells the other
    // owners).
    metadata.invalidate(existing.path());
  }

  /** A checked caller's write header, refused or given the new file's owner. */
  public WriteHeader checkWrite(Principal caller, WriteHeader h) {
    return entries.checkWrite(caller, h);
  }

  /** Whether {@code caller}'s operations are checked at all. */
  public boolean checked(Principal caller) {
    return access.checked(caller);
  }

  /** Drops a file's (or a folder tree's) cached pages; the bytes freed. */
  public long free(Principal caller, FreeRequest req) {
    StrataPath path = StrataPath.of(req.getPath());
    // What is cached is every reader's: a user frees only what they may change (issue 78: any
    // user's `fs free -R /` emptied the cluster's cache).
    access.checkPath(caller, path, Permissions.WRITE, "free");
    FileStatus status = metadata.getStatus(path, -1);
    if (status.getDirectory()) {
      if (!req.getRecursive()) {
        throw new StrataException(
            StatusCode.IS_A_DIRECTORY, path + " is a directory; free it recursively");
      }
      // And a tree only as far as they could remove it: every folder in it, as rm -r.
      access.checkRemoveTree(caller, path, storeNow(), "free");
      long freed = 0;
      for (String ufsUri : ufs.ufsUrisUnder(path)) {
        freed += fetcher.files().freeUnder(ufsUri);
      }
      return freed;
    }
    PageFetcher.Target version =
        fetcher.target(ufs.resolve(path), status.getFingerprint(), status.getLength());
    return fetcher.files().free(version.key(), version.fileLength());
  }

  public void checkAccess(Principal caller, CheckAccessRequest req) {
    if (req.getAccess() < 0 || req.getAccess() > 7) {
      throw StrataException.invalidArgument(
          "access is bits of r (4), w (2) and x (1), not " + req.getAccess());
    }
    if (!OPERATION.matcher(req.getOperation()).matches()) {
      throw StrataException.invalidArgument(
          "the operation is up to 32 letters and spaces, not \"" + req.getOperation() + "\"");
    }
    access.checkPath(
        caller,
        StrataPath.of(req.getPath()),
        req.getAccess(),
        req.getOperation().isEmpty() ? "access" : req.getOperation());
  }

  /** Makes this worker look at the UFS again for paths the caller could look at themselves. */
  public void invalidate(Principal caller, InvalidateMetadataRequest req) {
    for (String p : req.getPathsList()) {
      access.checkPath(caller, StrataPath.of(p), 0, "invalidate");
    }
    for (String p : req.getPathsList()) {
      if (req.getRecursive()) {
        metadata.invalidateTree(StrataPath.of(p));
      } else {
        metadata.invalidate(StrataPath.of(p));
      }
    }
  }

  /** The store's statuses as they are now (read through the cache, refreshing it). */
  private Permissions.Tree storeNow() {
    return new Permissions.Tree() {
      @Override
      public FileStatus status(StrataPath path) {
        return metadata.getStatus(path, 0);
      }

      @Override
      public List<FileStatus> children(StrataPath folder) {
        return metadata.list(folder, 0).children();
      }
    };
  }

  private UfsManager.Resolved writable(String path) {
    UfsManager.Resolved r = ufs.resolve(StrataPath.of(path));
    r.requireWritable();
    return r;
  }

  /** Runs a change of the entry at {@code r}; what was cached of it goes even if it failed. */
  private void changeThenForget(UfsManager.Resolved r, Runnable change) {
    try {
      change.run();
    } finally {
      metadata.invalidate(r.path());
    }
  }

  private static long syncInterval(boolean given, long value) {
    return given ? value : -1;
  }
}
