package io.strata.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.strata.client.data.DataClient;
import io.strata.client.data.Endpoint;
import io.strata.client.data.Endpoints;
import io.strata.client.data.Opened;
import io.strata.client.data.ShortCircuit;
import io.strata.client.data.StreamReader;
import io.strata.client.data.UfsFallback;
import io.strata.core.cache.VersionKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.security.Credentials;
import io.strata.core.status.StrataException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Where the bytes of a read come from. Each request goes to a worker chosen by the client's {@link
 * RingFailover} (the owner, then the next workers on the ring, then the under-storage itself); on
 * that worker, straight from its segment files when it runs on this host and allows it ({@link
 * ShortCircuit}, the first worker only), else over its domain socket ({@link Endpoints}), else TCP.
 * Thread-safe.
 */
final class ReadPath implements AutoCloseable {
  private final Configuration conf;
  private final RingFailover failover;
  private final UfsFallback ufs;
  private final Endpoints endpoints;
  private final DataClient data;
  private final ShortCircuit shortCircuit;
  private volatile FoldersOf lastFolders;

  ReadPath(Configuration conf, Credentials credentials, RingFailover failover, UfsFallback ufs) {
    this.conf = conf;
    this.failover = failover;
    this.ufs = ufs;
    this.endpoints = new Endpoints(() -> conf.get(UserKeys.DOMAIN_SOCKET), System::nanoTime);
    this.data = new DataClient(() -> conf.get(UserKeys.READ_TIMEOUT), credentials);
    this.shortCircuit = new ShortCircuit(data, System::nanoTime);
  }

  /** Reads into {@code dst} from its writer index; short only at end of file. */
  CompletableFuture<Integer> readAsync(FileInfo file, long offset, ByteBuf dst, int length) {
    int start = dst.writerIndex();
    return failover.callAsync(
        file.path(),
        (worker, n) -> {
          Endpoint at = endpoints.of(worker);
          int local = n == 0 ? readShortCircuit(at, file, offset, dst, length) : -1;
          if (local >= 0) {
            return CompletableFuture.completedFuture(local);
          }
          return data.readAsync(at, target(file), offset, dst, length)
              .whenComplete((count, error) -> discardFrom(dst, start, error));
        },
        last -> {
          // Rare: a copy keeps this right for every kind of destination buffer.
          ByteBuffer bytes = ByteBuffer.allocate(length);
          int got = ufs.read(file, offset, bytes);
          dst.writeBytes(bytes.flip());
          return got;
        });
  }

  /** Into a destination with memory of its own (a composite only gathers received buffers). */
  private int readShortCircuit(Endpoint at, FileInfo file, long offset, ByteBuf dst, int length) {
    if (!shortCircuitAllowed(at) || dst instanceof CompositeByteBuf) {
      return -1;
    }
    dst.ensureWritable(length);
    if (dst.nioBufferCount() != 1) {
      return -1;
    }
    int start = dst.writerIndex();
    int got = shortCircuit.read(at, target(file), offset, dst.nioBuffer(start, length));
    if (got >= 0) {
      dst.writerIndex(start + got);
    }
    return got;
  }

  private static void discardFrom(ByteBuf dst, int start, Throwable error) {
    if (error != null) {
      discardFrom(dst, start);
    }
  }

  /** Drops what a failed attempt wrote, including the buffers a composite gathered. */
  static void discardFrom(ByteBuf dst, int start) {
    if (dst instanceof CompositeByteBuf composite) {
      composite.capacity(start);
    }
    dst.writerIndex(start);
  }

  /**
   * Opens {@code path}: its current status, and its first {@code firstBytes} bytes appended to
   * {@code dst}, in one round trip. With no worker to ask, the status comes from the under-storage
   * and no bytes come with it (the reads that follow fall back too).
   */
  Opened open(String path, long syncIntervalMs, int firstBytes, ByteBuf dst) {
    int start = dst.writerIndex();
    return failover.call(
        path,
        (worker, n) -> {
          // First bytes even when this reader may read the owner's files itself: a small file then
          // costs the open alone, where short-circuit would add a lease round trip and a checksum.
          try {
            return data.open(endpoints.of(worker), path, syncIntervalMs, firstBytes, dst);
          } catch (StrataException e) {
            discardFrom(dst, start);
            throw e;
          }
        },
        last -> new Opened(ufs.status(path), 0));
  }

  /** Blocking positioned read of {@code dst.remaining()} bytes into {@code dst}. */
  int read(FileInfo file, long offset, ByteBuffer dst) {
    int start = dst.position();
    return failover.call(
        file.path(),
        (worker, n) -> {
          Endpoint at = endpoints.of(worker);
          if (n == 0 && shortCircuitAllowed(at)) {
            int got = shortCircuit.read(at, target(file), offset, dst);
            if (got >= 0) {
              return got;
            }
            dst.position(start);
          }
          try {
            return data.read(at, target(file), offset, dst);
          } catch (StrataException e) {
            dst.position(start);
            throw e;
          }
        },
        last -> ufs.read(file, offset, dst));
  }

  /**
   * The file's bytes from {@code offset} on, streamed from its owner on the caller's thread; null
   * when no owner is known (the caller reads by requests then, with their failover).
   */
  StreamReader stream(FileInfo file, long offset) {
    Optional<WorkerInfo> owner = failover.owner(file.path());
    return owner.isEmpty()
        ? null
        : data.stream(
            endpoints.of(owner.get()), target(file), offset, conf.get(UserKeys.READ_AHEAD_MAX));
  }

  /**
   * Reads into {@code dst} from the owner's segment files when it runs here and allows it; -1
   * otherwise (and {@code dst}'s position is back where it was).
   */
  int readShortCircuit(FileInfo file, long offset, ByteBuffer dst) {
    Optional<Endpoint> owner = failover.owner(file.path()).map(endpoints::of);
    if (owner.isEmpty() || !shortCircuitAllowed(owner.get())) {
      return -1;
    }
    int start = dst.position();
    int got = shortCircuit.read(owner.get(), target(file), offset, dst);
    if (got < 0) {
      dst.position(start);
    }
    return got;
  }

  /**
   * The name under which the file's owner keeps this version whole, if it runs here and allows
   * short-circuit reads; empty otherwise. Computed, not looked up: the version's key from its
   * status as the worker computes it ({@link VersionKey}), in the whole-file folders the worker
   * announces. The name may not exist. When it does it is only ever a sealed, complete version
   * (written beside it and renamed into place); the worker's account owns the folder, so the caller
   * opens it without following a link and checks that it opened a plain file of the version's
   * length. One evicted after it is opened stays readable through the open descriptor.
   */
  Optional<Path> wholeFile(FileInfo file) {
    return localOwner(file)
        .flatMap(
            owner -> {
              WorkerAddress at = owner.getAddress();
              return VersionKey.of(file.ufsPath(), file.fingerprint(), at.getPageSize())
                  .wholeFile(wholeFileFolders(at));
            });
  }

  /**
   * Has the file's owner keep this version whole, reading it from the under-storage first if it
   * keeps none yet (one request, answered once the file is sealed): true then. False without a
   * request when the owner is not on this host, or the version is shorter than the least it keeps
   * whole or longer than {@code maxLength}; false too when the owner will not keep it (no room) or
   * cannot read it: the caller reads the file as any other then.
   */
  boolean keepWhole(FileInfo file, long maxLength) {
    Optional<WorkerInfo> owner = localOwner(file);
    if (owner.isEmpty()) {
      return false;
    }
    WorkerAddress at = owner.get().getAddress();
    if (at.getWholeFileDirsCount() == 0
        || file.length() < at.getWholeFileMinSize()
        || file.length() > maxLength) {
      return false;
    }
    try {
      data.keepWhole(endpoints.of(owner.get()), target(file));
      return true;
    } catch (StrataException e) {
      // Not kept whole (no room, changed, the worker going away): read as any other file.
      return false;
    }
  }

  /** The file's owner when it runs on this host and this client may read its files itself. */
  private Optional<WorkerInfo> localOwner(FileInfo file) {
    Optional<WorkerInfo> owner = failover.owner(file.path());
    if (owner.isEmpty()
        || file.length() == 0
        || file.ufsPath().isEmpty()
        || !shortCircuitAllowed(endpoints.of(owner.get()))) {
      return Optional.empty();
    }
    return owner;
  }

  /** The whole-file folders {@code at} announces, made paths once per address (one per open). */
  private List<Path> wholeFileFolders(WorkerAddress at) {
    FoldersOf last = lastFolders;
    if (last == null || !last.address().equals(at)) {
      last = new FoldersOf(at, at.getWholeFileDirsList().stream().map(Path::of).toList());
      lastFolders = last;
    }
    return last.folders();
  }

  private record FoldersOf(WorkerAddress address, List<Path> folders) {}

  private boolean shortCircuitAllowed(Endpoint worker) {
    return worker.isDomainSocket() && conf.get(UserKeys.SHORT_CIRCUIT);
  }

  private static DataClient.Target target(FileInfo file) {
    return new DataClient.Target(file.path(), file.fingerprint(), file.length());
  }

  @Override
  public void close() {
    shortCircuit.close();
    data.close();
  }
}
