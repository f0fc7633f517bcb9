package io.strata.client;

import io.grpc.StatusRuntimeException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.strata.client.cluster.ClientConfSync;
import io.strata.client.cluster.ClusterViewCache;
import io.strata.client.cluster.WorkerChannels;
import io.strata.client.data.Opened;
import io.strata.client.data.StreamReader;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.DeleteRequest;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FreeRequest;
import io.strata.core.proto.GetStatusRequest;
import io.strata.core.proto.InvalidateMetadataRequest;
import io.strata.core.proto.ListStatusRequest;
import io.strata.core.proto.ListStatusResponse;
import io.strata.core.proto.MetadataOptions;
import io.strata.core.proto.MkdirRequest;
import io.strata.core.proto.RenameRequest;
import io.strata.core.proto.SetAttributesRequest;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WriteHeader;
import io.strata.core.proto.WriteType;
import io.strata.core.rpc.GrpcErrors;
import io.strata.core.rpc.MasterClient;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client: each path goes to the worker that owns it on the hash ring of LIVE workers. Reads and
 * look-ups that find their worker unreachable refresh the cluster view and try the next worker on
 * the ring; changes are sent once (a retry could apply them twice). After a change, the workers
 * that cache the touched paths' metadata are told to forget it.
 *
 * <p>The file system works on its own copy of the configuration, which follows the cluster's
 * overrides (see {@link ClientConfSync}).
 */
final class StrataFileSystem implements FileSystem {
  private static final Logger LOG = LoggerFactory.getLogger(StrataFileSystem.class);
  private static final int READ_ATTEMPTS = 3;

  private final Configuration conf;
  private final MasterClient master;
  private final ClusterViewCache view;
  private final ClientConfSync confSync;
  private final WorkerChannels workers;
  private final MetadataCache metadata;
  private final Object readLock = new Object();
  private volatile ReadPath reads;

  StrataFileSystem(Configuration conf) {
    this.conf = conf.copy();
    this.master = new MasterClient(this.conf);
    this.confSync = new ClientConfSync(this.conf, master);
    this.view =
        new ClusterViewCache(
            master,
            () -> this.conf.get(UserKeys.CLUSTER_VIEW_REFRESH),
            this.conf.get(CommonKeys.RING_VIRTUAL_NODES),
            System::nanoTime,
            this::onView);
    this.workers = new WorkerChannels(this.conf.get(UserKeys.RPC_TIMEOUT));
    this.metadata =
        new MetadataCache(
            this.conf.get(UserKeys.METADATA_CACHE_TTL),
            this.conf.get(UserKeys.METADATA_CACHE_MAX_ENTRIES));
  }

  private void onView(io.strata.core.proto.ClusterView v) {
    confSync.onView(v);
    confSync.start(view::refresh);
  }

  @Override
  public Configuration conf() {
    return conf;
  }

  @Override
  public FileInfo getStatus(String path) {
    StrataPath p = StrataPath.of(path);
    return metadata.status(p.toString(), x -> FileInfo.fromProto(status(p, false)));
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
    ReadPath data = reads;
    if (!cacheInfo && data != null) {
      return data.open(p.toString(), syncIntervalMs(), 0, Unpooled.EMPTY_BUFFER).status();
    }
    GetStatusRequest req =
        GetStatusRequest.newBuilder()
            .setPath(p.toString())
            .setOptions(metadataOptions())
            .setIncludeCacheInfo(cacheInfo)
            .build();
    return onOwner(p, w -> workers.blocking(w).getStatus(req).getStatus());
  }

  @Override
  public boolean exists(String path) {
    try {
      getStatus(path);
      return true;
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public List<FileInfo> listStatus(String path) {
    StrataPath p = StrataPath.of(path);
    return metadata.list(p.toString(), x -> listFromOwner(p));
  }

  private List<FileInfo> listFromOwner(StrataPath p) {
    ListStatusRequest req =
        ListStatusRequest.newBuilder().setPath(p.toString()).setOptions(metadataOptions()).build();
    return onOwner(
        p,
        w -> {
          List<FileInfo> children = new ArrayList<>();
          Iterator<ListStatusResponse> batches = workers.blocking(w).listStatus(req);
          while (batches.hasNext()) {
            batches.next().getChildrenList().forEach(s -> children.add(FileInfo.fromProto(s)));
          }
          return children;
        });
  }

  /** One round trip: the worker answers with the current status and the file's first bytes. */
  @Override
  public FileInStream open(String path) {
    StrataPath p = StrataPath.of(path);
    ReadPath route = readPath();
    ByteBuf head =
        PooledByteBufAllocator.DEFAULT.compositeDirectBuffer(FileInStream.MAX_COMPONENTS);
    FileInfo info;
    Opened opened;
    try {
      opened =
          route.open(
              p.toString(),
              syncIntervalMs(),
              (int) (long) conf.get(UserKeys.OPEN_FIRST_BYTES),
              head);
      info = metadata.remember(FileInfo.fromProto(opened.status()));
      if (info.directory()) {
        throw new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory");
      }
    } catch (RuntimeException e) {
      head.release();
      throw e;
    }
    return new FileInStream(
        info,
        new FileInStream.Source() {
          @Override
          public CompletableFuture<Integer> readAsync(
              FileInfo f, long offset, ByteBuf dst, int length) {
            return route
                .readAsync(f, offset, dst, length)
                .whenComplete((n, e) -> forgetIfChanged(p, e));
          }

          @Override
          public int read(FileInfo f, long offset, ByteBuffer dst) {
            try {
              return route.read(f, offset, dst);
            } catch (StrataException e) {
              forgetIfChanged(p, e);
              throw e;
            }
          }

          @Override
          public int readLocal(FileInfo f, long offset, ByteBuffer dst) {
            return route.readShortCircuit(f, offset, dst);
          }

          @Override
          public StreamReader stream(FileInfo f, long offset) {
            return route.stream(f, offset);
          }

          @Override
          public void refused(StrataException e) {
            forgetIfChanged(p, e);
          }
        },
        PooledByteBufAllocator.DEFAULT,
        conf.get(UserKeys.READ_AHEAD_MAX),
        head,
        opened.firstBytes());
  }

  /** A read that found the file changed in the UFS: the cached status names the old version. */
  private void forgetIfChanged(StrataPath p, Throwable error) {
    Throwable e =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e instanceof StrataException se && se.code() == StatusCode.FAILED_PRECONDITION) {
      metadata.invalidate(p);
    }
  }

  @Override
  public FileOutStream create(String path, WriteOptions options) {
    StrataPath p = StrataPath.of(path);
    WorkerInfo owner = owner(p);
    UserKeys.WriteType type =
        options.writeType() != null ? options.writeType() : conf.get(UserKeys.WRITE_TYPE);
    WriteHeader header =
        WriteHeader.newBuilder()
            .setPath(p.toString())
            .setOverwrite(options.overwrite())
            .setWriteType(
                type == UserKeys.WriteType.CACHE_THROUGH
                    ? WriteType.CACHE_THROUGH
                    : WriteType.THROUGH)
            .setMode(options.mode())
            .build();
    return new FileOutStream(
        workers.async(owner),
        owner.getId(),
        header,
        (int) (long) conf.get(UserKeys.WRITE_CHUNK_SIZE),
        conf.get(UserKeys.RPC_TIMEOUT),
        info -> {
          metadata.invalidate(p);
          afterChange(owner, p.parent());
        });
  }

  @Override
  public long free(String path) {
    FileInfo info = getStatus(path);
    if (info.directory()) {
      long total = 0;
      for (FileInfo child : listStatus(path)) {
        total += free(child.path());
      }
      return total;
    }
    StrataPath p = StrataPath.of(info.path());
    return onOwner(
        p,
        w ->
            workers
                .blocking(w)
                .free(FreeRequest.newBuilder().setPath(p.toString()).build())
                .getFreedBytes());
  }

  @Override
  public void mkdir(String path, boolean parents) {
    StrataPath p = StrataPath.of(path);
    WorkerInfo owner = owner(p);
    call(
        owner,
        () ->
            workers
                .blocking(owner)
                .mkdir(
                    MkdirRequest.newBuilder().setPath(p.toString()).setParents(parents).build()));
    // With parents, every ancestor may be new: their listings go too (depth, not a scan).
    List<StrataPath> touched = new ArrayList<>();
    for (StrataPath a = p; ; a = a.parent()) {
      metadata.invalidate(a);
      if (a.isRoot()) {
        break;
      }
      touched.add(a.parent());
      if (!parents) {
        break;
      }
    }
    afterChange(owner, touched.toArray(StrataPath[]::new));
  }

  @Override
  public void delete(String path, boolean recursive) {
    StrataPath p = StrataPath.of(path);
    WorkerInfo owner = owner(p);
    call(
        owner,
        () ->
            workers
                .blocking(owner)
                .delete(
                    DeleteRequest.newBuilder()
                        .setPath(p.toString())
                        .setRecursive(recursive)
                        .build()));
    metadata.invalidateTree(p);
    afterChange(owner, p.parent());
  }

  @Override
  public void rename(String src, String dst) {
    StrataPath from = StrataPath.of(src);
    StrataPath to = StrataPath.of(dst);
    WorkerInfo owner = owner(from);
    call(
        owner,
        () ->
            workers
                .blocking(owner)
                .rename(
                    RenameRequest.newBuilder()
                        .setSrc(from.toString())
                        .setDst(to.toString())
                        .build()));
    metadata.invalidateTree(from);
    metadata.invalidateTree(to);
    afterChange(owner, from.parent(), to, to.parent());
  }

  @Override
  public void setMode(String path, int mode) {
    setAttributes(
        SetAttributesRequest.newBuilder()
            .setPath(StrataPath.of(path).toString())
            .setMode(mode & 0777));
  }

  @Override
  public void setOwner(String path, String owner, String group) {
    setAttributes(
        SetAttributesRequest.newBuilder()
            .setPath(StrataPath.of(path).toString())
            .setOwner(owner)
            .setGroup(group));
  }

  private void setAttributes(SetAttributesRequest.Builder req) {
    StrataPath p = StrataPath.of(req.getPath());
    WorkerInfo owner = owner(p);
    call(owner, () -> workers.blocking(owner).setAttributes(req.build()));
    metadata.invalidate(p);
    afterChange(owner, p.parent());
  }

  /**
   * Tells the owners of {@code touched} paths (other than {@code done}, which knows) to forget
   * them.
   */
  private void afterChange(WorkerInfo done, StrataPath... touched) {
    for (StrataPath p : touched) {
      try {
        WorkerInfo owner = owner(p);
        if (!owner.getId().equals(done.getId())) {
          call(
              owner,
              () ->
                  workers
                      .blocking(owner)
                      .invalidateMetadata(
                          InvalidateMetadataRequest.newBuilder().addPaths(p.toString()).build()));
        }
      } catch (StrataException e) {
        // The cached entry then expires with its TTL.
        LOG.debug("could not invalidate {}: {}", p, e.oneLine());
      }
    }
  }

  private WorkerInfo owner(StrataPath p) {
    return view.owners(p.toString(), 1).get(0);
  }

  /** Runs an idempotent operation on the path's owner, then on the next workers if unreachable. */
  private <T> T onOwner(StrataPath p, Function<WorkerInfo, T> op) {
    StrataException last = null;
    for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      List<WorkerInfo> candidates = view.owners(p.toString(), READ_ATTEMPTS);
      WorkerInfo w = candidates.get(Math.min(attempt, candidates.size() - 1));
      try {
        return call(w, () -> op.apply(w));
      } catch (StrataException e) {
        if (e.code() != StatusCode.UNAVAILABLE && e.code() != StatusCode.DEADLINE_EXCEEDED) {
          throw e;
        }
        last = e;
        view.invalidate();
      }
    }
    throw last;
  }

  private static <T> T call(WorkerInfo w, java.util.function.Supplier<T> rpc) {
    try {
      return rpc.get();
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.fromGrpc(e, "worker " + w.getId());
    }
  }

  private MetadataOptions metadataOptions() {
    return MetadataOptions.newBuilder().setSyncIntervalMs(syncIntervalMs()).build();
  }

  private long syncIntervalMs() {
    return conf.get(UserKeys.METADATA_SYNC_INTERVAL).toMillis();
  }

  private ReadPath readPath() {
    ReadPath r = reads;
    if (r == null) {
      synchronized (readLock) {
        r = reads;
        if (r == null) {
          r = new ReadPath(conf, view);
          reads = r;
        }
      }
    }
    return r;
  }

  @Override
  public void close() {
    synchronized (readLock) {
      if (reads != null) {
        reads.close();
        reads = null;
      }
    }
    confSync.close();
    workers.close();
    master.close();
  }
}
