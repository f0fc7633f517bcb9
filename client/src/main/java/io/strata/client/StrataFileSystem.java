package io.strata.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.strata.client.cluster.ClusterViewCache;
import io.strata.client.data.Opened;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FileType;
import io.strata.core.proto.FreeRequest;
import io.strata.core.proto.GetStatusRequest;
import io.strata.core.proto.GetXattrsRequest;
import io.strata.core.proto.ListStatusRequest;
import io.strata.core.proto.ListStatusResponse;
import io.strata.core.proto.MetadataOptions;
import io.strata.core.proto.TimeChange;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerServiceGrpc.WorkerServiceBlockingStub;
import io.strata.core.proto.WriteHeader;
import io.strata.core.proto.WriteType;
import io.strata.core.security.Credentials;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The client: each path goes to the worker that owns it on the hash ring of LIVE workers. Reads and
 * look-ups that find their worker unreachable refresh the cluster view and try the next worker on
 * the ring; changes are sent once (a retry could apply them twice). After a change, the workers
 * that cache the touched paths' metadata are told to forget it.
 *
 * <p>The facade over a {@link ClientContext}, which holds the connections, caches and threads and
 * the client's own copy of the configuration.
 */
final class StrataFileSystem implements FileSystem {
  private final ClientContext context;
  private final Configuration conf;
  private final ClusterViewCache view;
  private final MetadataCache metadata;
  private final Changes changes;

  StrataFileSystem(Configuration conf, Credentials credentials) {
    this.context = new ClientContext(conf, credentials);
    this.conf = context.conf();
    this.view = context.view();
    this.metadata = context.metadata();
    this.changes = context.changes();
  }

  @Override
  public Configuration conf() {
    return conf;
  }

  @Override
  public FileInfo getStatus(String path) {
    StrataPath p = StrataPath.of(path);
    return metadata.status(p.toString(), x -> fresh(status(p, false)));
  }

  private static MetadataCache.Fresh<FileInfo> fresh(FileStatus s) {
    return new MetadataCache.Fresh<>(FileInfo.fromProto(s), s.getFreshForMs());
  }

  @Override
  public FileInfo getStatusWithCacheInfo(String path) {
    return FileInfo.fromProto(status(StrataPath.of(path), true));
  }

  /**
   * Once this client reads data, a status comes over its data connections (an OPEN asking for no
   * bytes costs a fraction of a gRPC call); before that, and with the cached byte count, from the
   * worker's gRPC service, so that a client that only lists (the shell) never starts the data
   * plane.
   */
  private FileStatus status(StrataPath p, boolean cacheInfo) {
    ReadPath data = context.readsIfStarted();
    if (!cacheInfo && data != null) {
      return data.open(p.toString(), syncIntervalMs(), 0, Unpooled.EMPTY_BUFFER).status();
    }
    GetStatusRequest req =
        GetStatusRequest.newBuilder()
            .setPath(p.toString())
            .setOptions(metadataOptions())
            .setIncludeCacheInfo(cacheInfo)
            .build();
    return onOwner(p, w -> w.getStatus(req).getStatus());
  }

  @Override
  public List<String> owners(String path) {
    return view.owners(StrataPath.of(path).toString(), RingFailover.ATTEMPTS).stream()
        .map(WorkerInfo::getId)
        .toList();
  }

  @Override
  public Optional<FileInfo> findStatus(String path) {
    try {
      return Optional.of(getStatus(path));
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND) {
        return Optional.empty();
      }
      throw e;
    }
  }

  @Override
  public List<FileInfo> listStatus(String path) {
    StrataPath p = StrataPath.of(path);
    return metadata.list(p.toString(), x -> listFromOwner(p));
  }

  /** The whole listing, and how long its worker would serve it as it is. */
  private MetadataCache.Fresh<List<FileInfo>> listFromOwner(StrataPath p) {
    return listFromOwner(
        p,
        ListStatusRequest.newBuilder().setPath(p.toString()).setOptions(metadataOptions()).build());
  }

  @Override
  public Iterator<FileInfo> listStatusPaged(String path, String startAfter, int pageSize) {
    if (pageSize < 1) {
      throw StrataException.invalidArgument("a page holds at least one entry, not " + pageSize);
    }
    StrataPath p = StrataPath.of(path);
    return new PagedListing(
        pageSize,
        startAfter,
        after -> {
          ListStatusRequest page =
              ListStatusRequest.newBuilder()
                  .setPath(p.toString())
                  .setOptions(metadataOptions())
                  .setStartAfter(after)
                  .setLimit(pageSize)
                  .build();
          return listFromOwner(p, page).value();
        });
  }

  /** The children {@code req} asks for, and the least time any batch says it stays fresh. */
  private MetadataCache.Fresh<List<FileInfo>> listFromOwner(StrataPath p, ListStatusRequest req) {
    return onOwner(
        p,
        w -> {
          List<FileInfo> children = new ArrayList<>();
          long freshFor = Long.MAX_VALUE;
          Iterator<ListStatusResponse> batches = w.listStatus(req);
          while (batches.hasNext()) {
            ListStatusResponse batch = batches.next();
            batch.getChildrenList().forEach(s -> children.add(FileInfo.fromProto(s)));
            freshFor = Math.min(freshFor, batch.getFreshForMs());
          }
          return new MetadataCache.Fresh<>(children, freshFor == Long.MAX_VALUE ? 0 : freshFor);
        });
  }

  /** One round trip: the worker answers with the current status and the file's first bytes. */
  @Override
  public FileInStream open(String path) {
    return open(StrataPath.of(path), null);
  }

  @Override
  public FileInStream open(FileInfo version) {
    if (version.directory()) {
      throw new StrataException(StatusCode.IS_A_DIRECTORY, version.path() + " is a directory");
    }
    return open(StrataPath.of(version.path()), version);
  }

  @Override
  public Optional<java.nio.file.Path> wholeFile(FileInfo version) {
    return version.directory() ? Optional.empty() : context.reads().wholeFile(version);
  }

  @Override
  public boolean keepWhole(FileInfo version, long maxLength) {
    return !version.directory() && context.reads().keepWhole(version, maxLength);
  }

  /** The current version, or {@code wanted} (read by its fingerprint) when it is not that. */
  private FileInStream open(StrataPath p, FileInfo wanted) {
    String path = p.toString();
    ReadPath route = context.reads();
    ByteBuf head =
        PooledByteBufAllocator.DEFAULT.compositeDirectBuffer(FileInStream.MAX_COMPONENTS);
    FileInfo info;
    Opened opened;
    MetadataCache.Token token = metadata.token();
    try {
      opened =
          route.open(
              p.toString(),
              syncIntervalMs(),
              (int) (long) conf.get(UserKeys.OPEN_FIRST_BYTES),
              head);
      info = metadata.remember(token, fresh(opened.status()));
      if (info.directory()) {
        throw new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory");
      }
    } catch (RuntimeException e) {
      head.release();
      throw e;
    }
    if (wanted != null && !wanted.fingerprint().equals(info.fingerprint())) {
      // The file changed since the caller looked: its bytes are not the wanted version's.
      head.release();
      return stream(
          wanted,
          p,
          route,
          PooledByteBufAllocator.DEFAULT.compositeDirectBuffer(FileInStream.MAX_COMPONENTS),
          0);
    }
    return stream(info, p, route, head, opened.firstBytes());
  }

  /** A stream of {@code version}, {@code head} holding its first {@code headBytes}. */
  private FileInStream stream(
      FileInfo version, StrataPath p, ReadPath route, ByteBuf head, int headBytes) {
    return new FileInStream(
        version,
        new ReadSource(route, () -> metadata.invalidate(p)),
        PooledByteBufAllocator.DEFAULT,
        conf.get(UserKeys.READ_AHEAD_MAX),
        head,
        headBytes);
  }

  @Override
  public FileOutStream create(String path, WriteOptions options) {
    StrataPath p = StrataPath.of(path);
    WorkerInfo owner = changes.owner(p);
    UserKeys.WriteType type =
        options.writeType() != null ? options.writeType() : conf.get(UserKeys.WRITE_TYPE);
    WriteHeader.Builder header =
        WriteHeader.newBuilder()
            .setPath(p.toString())
            .setOverwrite(options.overwrite())
            .setWriteType(
                type == UserKeys.WriteType.CACHE_THROUGH
                    ? WriteType.CACHE_THROUGH
                    : WriteType.THROUGH)
            .setMode(options.mode())
            .setInPlace(options.inPlace());
    if (options.uid() >= 0) {
      header.setUid((int) options.uid());
    }
    if (options.gid() >= 0) {
      header.setGid((int) options.gid());
    }
    if (options.createdAtMs() >= 0) {
      header.setCreatedAtMs(options.createdAtMs());
    }
    return new FileOutStream(
        context.workers().async(owner),
        owner.getId(),
        header.build(),
        (int) (long) conf.get(UserKeys.WRITE_CHUNK_SIZE),
        conf.get(UserKeys.RPC_TIMEOUT),
        info -> changes.written(owner, p));
  }

  @Override
  public long free(String path) {
    FileInfo info = getStatus(path);
    StrataPath p = StrataPath.of(info.path());
    if (info.directory()) {
      // One request per worker, whatever the number of files: each frees what it holds below.
      FreeRequest tree = FreeRequest.newBuilder().setPath(p.toString()).setRecursive(true).build();
      return changes.everyLiveWorker("free " + p, w -> w.free(tree).getFreedBytes()).stream()
          .mapToLong(Long::longValue)
          .sum();
    }
    return onOwner(
        p, w -> w.free(FreeRequest.newBuilder().setPath(p.toString()).build()).getFreedBytes());
  }

  @Override
  public int invalidate(String path, boolean recursive) {
    return changes.invalidate(StrataPath.of(path), recursive);
  }

  @Override
  public void mkdir(String path, boolean parents) {
    mkdir(path, parents, NewEntry.DEFAULT);
  }

  @Override
  public void mkdir(String path, boolean parents, NewEntry entry) {
    changes.mkdir(ChangeRequests.mkdir(path, parents, entry));
  }

  @Override
  public void createSymlink(String path, String target, NewEntry entry) {
    changes.createNode(ChangeRequests.symlink(path, target, entry));
  }

  @Override
  public void createHardLink(String existing, String path) {
    changes.createNode(ChangeRequests.hardLink(existing, path));
  }

  @Override
  public void createSpecial(String path, FileType type, long rdev, NewEntry entry) {
    changes.createNode(ChangeRequests.special(path, type, rdev, entry));
  }

  @Override
  public void delete(String path, boolean recursive) {
    changes.delete(StrataPath.of(path), recursive);
  }

  @Override
  public void rename(String src, String dst) {
    renamed(src, () -> changes.rename(StrataPath.of(src), StrataPath.of(dst), false));
  }

  @Override
  public void renameReplacing(String src, String dst) {
    renamed(src, () -> changes.rename(StrataPath.of(src), StrataPath.of(dst), true));
  }

  /**
   * Runs a rename of {@code src}; when it moved a folder, every worker forgets the entries it
   * cached under the old name (their owners are spread over the ring), as {@code fs invalidate -R}
   * does.
   */
  private void renamed(String src, Runnable rename) {
    boolean folder = findStatus(src).map(FileInfo::directory).orElse(false);
    rename.run();
    if (folder) {
      changes.invalidate(StrataPath.of(src), true);
    }
  }

  @Override
  public void setMode(String path, int mode) {
    changes.setAttributes(ChangeRequests.mode(path, mode));
  }

  @Override
  public void setOwnerIds(String path, long uid, long gid) {
    changes.setAttributes(ChangeRequests.ownerIds(path, uid, gid));
  }

  @Override
  public void setTimes(String path, TimeChange atime, TimeChange mtime) {
    changes.setAttributes(ChangeRequests.times(path, atime, mtime));
  }

  @Override
  public void setModificationTime(String path, long epochMs) {
    changes.setAttributes(ChangeRequests.modificationTime(path, epochMs));
  }

  @Override
  public void setOwner(String path, String owner, String group) {
    changes.setAttributes(ChangeRequests.owner(path, owner, group));
  }

  @Override
  public Map<String, byte[]> xattrs(String path) {
    StrataPath p = StrataPath.of(path);
    Map<String, byte[]> out = new TreeMap<>();
    onOwner(p, s -> s.getXattrs(GetXattrsRequest.newBuilder().setPath(p.toString()).build()))
        .getXattrsMap()
        .forEach((k, v) -> out.put(k, v.toByteArray()));
    return out;
  }

  @Override
  public void setXattr(String path, String name, byte[] value) {
    changes.setXattr(ChangeRequests.xattr(path, name, value));
  }

  /** Runs an idempotent operation on the path's owner, then on the next workers if it fails. */
  private <T> T onOwner(StrataPath p, Function<WorkerServiceBlockingStub, T> rpc) {
    return context.failover().call(p.toString(), (w, n) -> changes.call(w, rpc), null);
  }

  private MetadataOptions metadataOptions() {
    return MetadataOptions.newBuilder().setSyncIntervalMs(syncIntervalMs()).build();
  }

  private long syncIntervalMs() {
    return conf.get(UserKeys.METADATA_SYNC_INTERVAL).toMillis();
  }

  @Override
  public void onChangesElsewhere(ChangesElsewhere listener) {
    metadata.listen(listener);
  }

  @Override
  public void close() {
    context.close();
  }
}
