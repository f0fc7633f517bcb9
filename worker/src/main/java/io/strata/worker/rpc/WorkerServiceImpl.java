package io.strata.worker.rpc;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.CheckAccessRequest;
import io.strata.core.proto.CheckAccessResponse;
import io.strata.core.proto.CreateNodeRequest;
import io.strata.core.proto.CreateNodeResponse;
import io.strata.core.proto.DeleteRequest;
import io.strata.core.proto.DeleteResponse;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FileType;
import io.strata.core.proto.FreeRequest;
import io.strata.core.proto.FreeResponse;
import io.strata.core.proto.GetStatusRequest;
import io.strata.core.proto.GetStatusResponse;
import io.strata.core.proto.GetXattrsRequest;
import io.strata.core.proto.GetXattrsResponse;
import io.strata.core.proto.InvalidateMetadataRequest;
import io.strata.core.proto.InvalidateMetadataResponse;
import io.strata.core.proto.ListStatusRequest;
import io.strata.core.proto.ListStatusResponse;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.core.proto.LoadFilesResponse;
import io.strata.core.proto.MkdirRequest;
import io.strata.core.proto.MkdirResponse;
import io.strata.core.proto.RenameRequest;
import io.strata.core.proto.RenameResponse;
import io.strata.core.proto.SetAttributesRequest;
import io.strata.core.proto.SetAttributesResponse;
import io.strata.core.proto.SetXattrRequest;
import io.strata.core.proto.SetXattrResponse;
import io.strata.core.proto.TimeChange;
import io.strata.core.proto.WorkerServiceGrpc;
import io.strata.core.proto.WriteRequest;
import io.strata.core.proto.WriteResponse;
import io.strata.core.rpc.Rpc;
import io.strata.core.security.Principal;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.core.ufs.Xattrs;
import io.strata.core.util.Futures;
import io.strata.worker.auth.OsAccounts;
import io.strata.worker.auth.Permissions;
import io.strata.worker.load.FileLoader;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.util.List;

/**
 * The worker's gRPC service: metadata of the paths it owns, and changes to them, which go to the
 * UFS and invalidate what this worker cached of them.
 */
public final class WorkerServiceImpl extends WorkerServiceGrpc.WorkerServiceImplBase {
  static final int LIST_BATCH = 1000;

  /** The most files a recursive listing returns at once: one store page. */
  static final int TREE_PAGE = 1000;

  /** What a CheckAccess may name as its operation: it goes into the refusal's text. */
  private static final java.util.regex.Pattern OPERATION =
      java.util.regex.Pattern.compile("[A-Za-z ]{0,32}");

  private final UfsManager ufs;
  private final MetadataService metadata;
  private final PageFetcher fetcher;
  private final WriteSessions writes;
  private final FileLoader loader;
  private final Permissions access;
  private final NewEntries entries;

  public WorkerServiceImpl(
      UfsManager ufs,
      MetadataService metadata,
      PageFetcher fetcher,
      WriteSessions writes,
      FileLoader loader,
      Permissions access) {
    this.access = access;
    this.entries = new NewEntries(access, ufs);
    this.ufs = ufs;
    this.metadata = metadata;
    this.fetcher = fetcher;
    this.writes = writes;
    this.loader = loader;
  }

  @Override
  public void loadFiles(LoadFilesRequest req, StreamObserver<LoadFilesResponse> out) {
    Futures.onDone(
        loader.load(req),
        (response, error) -> {
          if (error != null) {
            Rpc.fail(
                out,
                "loadFiles",
                error instanceof RuntimeException re ? re : new RuntimeException(error));
          } else {
            out.onNext(response);
            out.onCompleted();
          }
        });
  }

  @Override
  public void getStatus(GetStatusRequest req, StreamObserver<GetStatusResponse> out) {
    Rpc.unary(
        out,
        "getStatus",
        () -> {
          StrataPath path = StrataPath.of(req.getPath());
          access.checkPath(Principal.current(), path, 0, "stat");
          FileStatus status =
              metadata.getStatus(
                  path, syncInterval(req.hasOptions(), req.getOptions().getSyncIntervalMs()));
          if (req.getIncludeCacheInfo() && !status.getDirectory()) {
            UfsManager.Resolved file = ufs.resolve(path);
            PageFetcher.Target version =
                fetcher.target(file, status.getFingerprint(), status.getLength());
            long cached = fetcher.files().cachedBytes(version.key(), version.fileLength());
            status = status.toBuilder().setCachedBytes(cached).build();
          }
          return GetStatusResponse.newBuilder().setStatus(status).build();
        });
  }

  @Override
  public void listStatus(ListStatusRequest req, StreamObserver<ListStatusResponse> out) {
    List<FileStatus> children;
    long freshForMs = 0;
    try {
      StrataPath path = StrataPath.of(req.getPath());
      access.checkPath(Principal.current(), path, Permissions.READ, "list");
      if (req.getRecursive()) {
        // A tree's listing would pass folders the caller may not read: the cluster's own walks
        // (distributedLoad) and superusers only.
        access.checkSuperuser(Principal.current(), "list the whole tree under", path);
        int limit = req.getLimit() > 0 ? Math.min(req.getLimit(), TREE_PAGE) : TREE_PAGE;
        children = metadata.listFiles(path, req.getStartAfter(), limit);
      } else {
        long sync = syncInterval(req.hasOptions(), req.getOptions().getSyncIntervalMs());
        MetadataService.Listing listing = metadata.list(path, sync);
        children = page(listing.children(), req.getStartAfter(), req.getLimit());
        freshForMs = listing.freshForMs();
      }
    } catch (RuntimeException e) {
      Rpc.fail(out, "listStatus", e);
      return;
    }
    for (int i = 0; i < children.size(); i += LIST_BATCH) {
      out.onNext(
          ListStatusResponse.newBuilder()
              .addAllChildren(children.subList(i, Math.min(children.size(), i + LIST_BATCH)))
              .setFreshForMs(freshForMs)
              .build());
    }
    if (children.isEmpty()) {
      out.onNext(ListStatusResponse.newBuilder().setFreshForMs(freshForMs).build());
    }
    out.onCompleted();
  }

  /** The children (sorted by name) after {@code startAfter}, at most {@code limit} (0: all). */
  static List<FileStatus> page(List<FileStatus> children, String startAfter, int limit) {
    int from = 0;
    if (!startAfter.isEmpty()) {
      int lo = 0;
      int hi = children.size();
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (children.get(mid).getName().compareTo(startAfter) <= 0) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      from = lo;
    }
    int to = limit > 0 ? (int) Math.min(children.size(), (long) from + limit) : children.size();
    return children.subList(from, to);
  }

  @Override
  public void mkdir(MkdirRequest req, StreamObserver<MkdirResponse> out) {
    Rpc.unary(
        out,
        "mkdir",
        () -> {
          UfsManager.Resolved r = ufs.resolve(StrataPath.of(req.getPath()));
          r.requireWritable();
          Principal caller = Principal.current();
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
          return MkdirResponse.getDefaultInstance();
        });
  }

  @Override
  public void delete(DeleteRequest req, StreamObserver<DeleteResponse> out) {
    Rpc.unary(
        out,
        "delete",
        () -> {
          UfsManager.Resolved r = ufs.resolve(StrataPath.of(req.getPath()));
          r.requireWritable();
          access.checkRemove(Principal.current(), r.path(), "delete");
          try {
            r.ufs().delete(r.ufsPath(), req.getRecursive());
          } finally {
            metadata.invalidate(r.path());
          }
          return DeleteResponse.getDefaultInstance();
        });
  }

  @Override
  public void setAttributes(SetAttributesRequest req, StreamObserver<SetAttributesResponse> out) {
    Rpc.unary(
        out,
        "setAttributes",
        () -> {
          UfsManager.Resolved r = ufs.resolve(StrataPath.of(req.getPath()));
          r.requireWritable();
          checkAttributeChange(req, r.path());
          try {
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
          } finally {
            metadata.invalidate(r.path());
          }
          return SetAttributesResponse.getDefaultInstance();
        });
  }

  @Override
  public void getXattrs(GetXattrsRequest req, StreamObserver<GetXattrsResponse> out) {
    Rpc.unary(
        out,
        "getXattrs",
        () -> {
          UfsManager.Resolved r = ufs.resolve(StrataPath.of(req.getPath()));
          access.checkPath(Principal.current(), r.path(), Permissions.READ, "getxattr");
          GetXattrsResponse.Builder b = GetXattrsResponse.newBuilder();
          r.ufs().xattrs(r.ufsPath()).forEach((k, v) -> b.putXattrs(k, ByteString.copyFrom(v)));
          return b.build();
        });
  }

  @Override
  public void setXattr(SetXattrRequest req, StreamObserver<SetXattrResponse> out) {
    Rpc.unary(
        out,
        "setXattr",
        () -> {
          Xattrs.check(req.getName(), req.hasValue() ? req.getValue().size() : 0);
          UfsManager.Resolved r = ufs.resolve(StrataPath.of(req.getPath()));
          r.requireWritable();
          access.checkPath(Principal.current(), r.path(), Permissions.WRITE, "setxattr");
          try {
            r.ufs()
                .setXattr(
                    r.ufsPath(),
                    req.getName(),
                    req.hasValue() ? req.getValue().toByteArray() : null);
          } finally {
            // Its change time moved (and on an object store, the object was copied onto itself).
            metadata.invalidate(r.path());
          }
          return SetXattrResponse.getDefaultInstance();
        });
  }

  @Override
  public void rename(RenameRequest req, StreamObserver<RenameResponse> out) {
    Rpc.unary(
        out,
        "rename",
        () -> {
          UfsManager.Resolved src = ufs.resolve(StrataPath.of(req.getSrc()));
          UfsManager.Resolved dst = ufs.resolve(StrataPath.of(req.getDst()));
          if (!src.mount().equals(dst.mount())) {
            throw StrataException.invalidArgument(
                "cannot rename across mounts: " + src.path() + " -> " + dst.path());
          }
          src.requireWritable();
          access.checkRemove(Principal.current(), src.path(), "rename");
          access.checkParent(Principal.current(), dst.path(), "rename");
          access.checkReplace(Principal.current(), dst.path(), "rename");
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
          return RenameResponse.getDefaultInstance();
        });
  }

  @Override
  public void createNode(CreateNodeRequest req, StreamObserver<CreateNodeResponse> out) {
    Rpc.unary(
        out,
        "createNode",
        () -> {
          UfsManager.Resolved r = ufs.resolve(StrataPath.of(req.getPath()));
          r.requireWritable();
          Principal caller = Principal.current();
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
          try {
            switch (req.getType()) {
              case SYMLINK -> r.ufs().createSymlink(r.ufsPath(), req.getSymlinkTarget());
              case REGULAR -> {
                UfsManager.Resolved existing = ufs.resolve(StrataPath.of(req.getLinkTo()));
                if (!existing.mount().equals(r.mount())) {
                  throw new StrataException(
                      StatusCode.CROSS_DEVICE,
                      "cannot link across mounts: " + existing.path() + " -> " + r.path());
                }
                r.ufs().createHardLink(existing.ufsPath(), r.ufsPath());
                // Its link count changed: its owner's cached status is stale (the client tells
                // the other owners).
                metadata.invalidate(existing.path());
              }
              case FIFO, SOCKET, CHAR_DEVICE, BLOCK_DEVICE ->
                  r.ufs().createSpecial(r.ufsPath(), req.getType(), req.getMode(), req.getRdev());
              default ->
                  throw StrataException.invalidArgument(
                      "createNode: no such node type " + req.getType());
            }
            if (req.getType() != FileType.REGULAR) {
              NewEntries.give(r, owner);
            }
          } finally {
            metadata.invalidate(r.path());
          }
          return CreateNodeResponse.getDefaultInstance();
        });
  }

  private static long time(TimeChange t) {
    return switch (t.getValueCase()) {
      case EPOCH_NS -> t.getEpochNs();
      case NOW -> UnderFileSystem.TIME_NOW;
      case VALUE_NOT_SET -> UnderFileSystem.TIME_OMIT;
    };
  }

  @Override
  public StreamObserver<WriteRequest> write(StreamObserver<WriteResponse> out) {
    Principal caller = Principal.current();
    StreamObserver<WriteRequest> session = writes.open(out);
    if (!access.checked(caller)) {
      return session;
    }
    return new CheckedWrite(session, out, h -> entries.checkWrite(caller, h));
  }

  /**
   * Who may change what of an entry: its owner, its mode and times; a superuser, its owner and
   * group.
   */
  private void checkAttributeChange(SetAttributesRequest req, StrataPath path) {
    Principal caller = Principal.current();
    if (req.hasUid() || req.hasGid() || !req.getOwner().isEmpty() || !req.getGroup().isEmpty()) {
      access.checkSuperuser(caller, "change the owner of", path);
    }
    access.checkOwner(caller, path, "setattr");
    if (req.hasMode() && (req.getMode() & 06000) != 0) {
      boolean folder = metadata.getStatus(path, -1).getDirectory();
      access.checkModeBits(caller, path, "chmod", req.getMode(), folder);
    }
  }

  @Override
  public void free(FreeRequest req, StreamObserver<FreeResponse> out) {
    Rpc.unary(
        out,
        "free",
        () -> {
          StrataPath path = StrataPath.of(req.getPath());
          access.checkPath(Principal.current(), path, Permissions.READ, "free");
          FileStatus status = metadata.getStatus(path, -1);
          if (status.getDirectory()) {
            if (!req.getRecursive()) {
              throw new StrataException(
                  StatusCode.IS_A_DIRECTORY, path + " is a directory; free it recursively");
            }
            long freed = 0;
            for (String ufsUri : ufs.ufsUrisUnder(path)) {
              freed += fetcher.files().freeUnder(ufsUri);
            }
            return FreeResponse.newBuilder().setFreedBytes(freed).build();
          }
          UfsManager.Resolved file = ufs.resolve(path);
          PageFetcher.Target version =
              fetcher.target(file, status.getFingerprint(), status.getLength());
          long freed = fetcher.files().free(version.key(), version.fileLength());
          return FreeResponse.newBuilder().setFreedBytes(freed).build();
        });
  }

  @Override
  public void checkAccess(CheckAccessRequest req, StreamObserver<CheckAccessResponse> out) {
    Rpc.unary(
        out,
        "checkAccess",
        () -> {
          if (req.getAccess() < 0 || req.getAccess() > 7) {
            throw StrataException.invalidArgument(
                "access is bits of r (4), w (2) and x (1), not " + req.getAccess());
          }
          if (!OPERATION.matcher(req.getOperation()).matches()) {
            throw StrataException.invalidArgument(
                "the operation is up to 32 letters and spaces, not \"" + req.getOperation() + "\"");
          }
          access.checkPath(
              Principal.current(),
              StrataPath.of(req.getPath()),
              req.getAccess(),
              req.getOperation().isEmpty() ? "access" : req.getOperation());
          return CheckAccessResponse.getDefaultInstance();
        });
  }

  @Override
  public void invalidateMetadata(
      InvalidateMetadataRequest req, StreamObserver<InvalidateMetadataResponse> out) {
    Rpc.unary(
        out,
        "invalidateMetadata",
        () -> {
          Principal caller = Principal.current();
          for (String p : req.getPathsList()) {
            // A user may only make the worker look again at what they could look at themselves.
            access.checkPath(caller, StrataPath.of(p), 0, "invalidate");
          }
          for (String p : req.getPathsList()) {
            if (req.getRecursive()) {
              metadata.invalidateTree(StrataPath.of(p));
            } else {
              metadata.invalidate(StrataPath.of(p));
            }
          }
          return InvalidateMetadataResponse.getDefaultInstance();
        });
  }

  private static long syncInterval(boolean given, long value) {
    return given ? value : -1;
  }
}
