package io.strata.worker.rpc;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.WriteHeader;
import io.strata.core.proto.WriteRequest;
import io.strata.core.proto.WriteResponse;
import io.strata.core.proto.WriteType;
import io.strata.core.rpc.Rpc;
import io.strata.core.security.Principal;
import io.strata.core.status.IoErrors;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.CreateOptions;
import io.strata.core.ufs.UfsOutputStream;
import io.strata.worker.auth.PerUserLimit;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.page.PageId;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams of file data written through this worker. The first message names the file; data goes to
 * a temporary UFS name and is published on completion, so a writer that dies or cancels leaves
 * nothing under the final name. With CACHE_THROUGH the written pages are admitted to the cache once
 * the file is published, under the fingerprint of the file this writer published (known only then),
 * never under that of whatever another writer may have put under the name since; up to a bound per
 * write.
 */
public final class WriteSessions {
  private static final Logger LOG = LoggerFactory.getLogger(WriteSessions.class);

  private final UfsManager ufs;
  private final MetadataService metadata;
  private final PageStore store;
  private final long pageSize;
  private final ByteBufAllocator allocator;
  private final BooleanSupplier sync;
  private final UnfinishedWrites unfinished;

  /**
   * Direct memory all CACHE_THROUGH writes may hold their pages in until they publish: a quarter of
   * the process's. Past it (or past half the cache for one write) a write goes on uncached: one 2
   * GiB write would otherwise take the direct memory reads need.
   */
  private final long bufferBudget;

  private final AtomicLong buffered = new AtomicLong();

  /**
   * Writes one user may have under way on this worker at once: each holds a marker file, a
   * descriptor once bytes arrive and perhaps pages, and gRPC takes a thousand calls on one
   * connection (issue 78).
   */
  static final int MAX_PER_USER = 256;

  private final PerUserLimit perUser = new PerUserLimit(MAX_PER_USER, "writes under way");

  /**
   * Writes through {@code ufs}, admitting CACHE_THROUGH pages into {@code store}.
   *
   * @param sync whether bytes are made durable before publication; read at each write
   * @param stateFolder where the writes under way are noted (see {@link UnfinishedWrites})
   */
  public WriteSessions(
      UfsManager ufs,
      MetadataService metadata,
      PageStore store,
      long pageSize,
      ByteBufAllocator allocator,
      BooleanSupplier sync,
      Path stateFolder) {
    this(
        ufs,
        metadata,
        store,
        pageSize,
        allocator,
        sync,
        stateFolder,
        PlatformDependent.maxDirectMemory() / 4);
  }

  WriteSessions(
      UfsManager ufs,
      MetadataService metadata,
      PageStore store,
      long pageSize,
      ByteBufAllocator allocator,
      BooleanSupplier sync,
      Path stateFolder,
      long bufferBudget) {
    this.bufferBudget = bufferBudget;
    this.ufs = ufs;
    this.metadata = metadata;
    this.store = store;
    this.pageSize = pageSize;
    this.allocator = allocator;
    this.sync = sync;
    this.unfinished = new UnfinishedWrites(stateFolder.resolve("writes"));
  }

  /**
   * At start, before serving: removes what the writes a killed run of this worker left unfinished
   * left in the under-storage; returns how many.
   */
  public int discardUnfinished() {
    return unfinished.discardAll(ufs);
  }

  /** Bytes CACHE_THROUGH writes hold now, for their pages. */
  long bufferedBytes() {
    return buffered.get();
  }

  StreamObserver<WriteRequest> open(StreamObserver<WriteResponse> out) {
    return open(out, Principal.current());
  }

  /** A write of {@code caller}'s, refused at once if they have too many under way. */
  StreamObserver<WriteRequest> open(StreamObserver<WriteResponse> out, Principal caller) {
    String user;
    try {
      user = perUser.take(caller);
    } catch (StrataException e) {
      Rpc.fail(out, "write", e);
      return new StreamObserver<>() {
        @Override
        public void onNext(WriteRequest req) {}

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}
      };
    }
    return new Session(out, user);
  }

  /** Writes {@code user} has under way. */
  int underWayBy(String user) {
    return perUser.heldBy(user);
  }

  /** One file being written. gRPC calls an observer serially, so no locking is needed. */
  private final class Session implements StreamObserver<WriteRequest> {
    private final StreamObserver<WriteResponse> out;
    private UfsManager.Resolved file;
    private UfsOutputStream stream;
    private Path marker;
    private boolean cacheThrough;
    private final List<ByteBuf> pages = new ArrayList<>();
    private boolean failed;

    /** The user whose place it holds until it is over (null: not counted). */
    private String user;

    Session(StreamObserver<WriteResponse> out, String user) {
      this.out = out;
      this.user = user;
    }

    /** The write is over, whichever way: its place is free again (once). */
    private void over() {
      perUser.release(user);
      user = null;
    }

    @Override
    public void onNext(WriteRequest req) {
      if (failed) {
        return;
      }
      try {
        if (req.hasHeader()) {
          begin(req.getHeader());
        } else if (stream == null) {
          throw StrataException.invalidArgument("a write must start with its header");
        } else {
          req.getChunk().writeTo(stream);
          if (cacheThrough) {
            keepPages(req.getChunk());
          }
        }
      } catch (IOException | RuntimeException e) {
        failed = true;
        abort();
        Rpc.fail(out, "write", e instanceof IOException io ? IoErrors.toStrata(io, describe()) : e);
      }
    }

    private void begin(WriteHeader h) {
      if (stream != null) {
        throw StrataException.invalidArgument("a write has one header");
      }
      file = ufs.resolve(StrataPath.of(h.getPath()));
      file.requireWritable();
      cacheThrough = h.getWriteType() == WriteType.CACHE_THROUGH;
      stream =
          file.ufs()
              .create(
                  file.ufsPath(),
                  new CreateOptions(
                      h.getOverwrite(),
                      true,
                      h.getMode(),
                      sync.getAsBoolean(),
                      h.hasUid() ? h.getUid() : -1,
                      h.hasGid() ? h.getGid() : -1,
                      h.getInPlace(),
                      createdAtMs(h)));
      // Noted before the first byte, which is when the under-storage gets a temporary name.
      marker = unfinished.begun(file.mount(), stream.token());
    }

    /**
     * The time the writer says it began the file at: any it likes, as utimensat(2) allows, that
     * times in ns since the epoch can hold.
     */
    private static long createdAtMs(WriteHeader h) {
      if (!h.hasCreatedAtMs()) {
        return -1;
      }
      long ms = h.getCreatedAtMs();
      if (ms < 0 || ms > Long.MAX_VALUE / 1_000_000) {
        throw StrataException.invalidArgument(
            "a file's creation time is 0 to " + Long.MAX_VALUE / 1_000_000 + " ms, not " + ms);
      }
      return ms;
    }

    /** Copies written bytes into page-sized direct buffers, while they fit in the cache. */
    private void keepPages(ByteString chunk) {
      int at = 0;
      while (at < chunk.size()) {
        ByteBuf last = pages.isEmpty() ? null : pages.get(pages.size() - 1);
        if (last == null || !last.isWritable()) {
          if ((pages.size() + 1) * pageSize > store.capacityBytes() / 2 || !reservePage()) {
            cacheThrough = false;
            releasePages();
            return;
          }
          last = allocator.directBuffer((int) pageSize, (int) pageSize);
          pages.add(last);
        }
        int n = Math.min(last.writableBytes(), chunk.size() - at);
        last.writeBytes(chunk.substring(at, at + n).asReadOnlyByteBuffer());
        at += n;
      }
    }

    @Override
    public void onError(Throwable t) {
      LOG.debug("writer of {} went away: {}", describe(), t.toString());
      abort();
    }

    @Override
    public void onCompleted() {
      if (failed) {
        return;
      }
      try {
        if (stream == null) {
          throw StrataException.invalidArgument("a write must start with its header");
        }
        stream.close();
        unfinished.ended(marker);
        metadata.created(file.path());
        FileStatus status = stream.published().toProto(file.path(), file.ufsUri());
        if (cacheThrough) {
          admit(status);
        }
        out.onNext(WriteResponse.newBuilder().setStatus(status).build());
        out.onCompleted();
      } catch (IOException | RuntimeException e) {
        abort();
        Rpc.fail(out, "write", e instanceof IOException io ? IoErrors.toStrata(io, describe()) : e);
      } finally {
        releasePages();
        over();
      }
    }

    private void admit(FileStatus status) {
      PageId.FileKey key = PageId.FileKey.of(file.ufsUri(), status.getFingerprint(), pageSize);
      store.versions().note(file.ufsUri(), status.getFingerprint(), status.getLength());
      for (int i = 0; i < pages.size(); i++) {
        store.admit(key.page(i), pages.get(i), true);
      }
    }

    private void abort() {
      if (stream != null) {
        stream.abort();
        unfinished.ended(marker);
      }
      releasePages();
      over();
    }

    private boolean reservePage() {
      if (buffered.addAndGet(pageSize) > bufferBudget) {
        buffered.addAndGet(-pageSize);
        return false;
      }
      return true;
    }

    private void releasePages() {
      pages.forEach(ByteBuf::release);
      buffered.addAndGet(-pageSize * pages.size());
      pages.clear();
    }

    private String describe() {
      return file == null ? "(no file yet)" : file.path().toString();
    }
  }
}
