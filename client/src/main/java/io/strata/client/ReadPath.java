package io.strata.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.strata.client.cluster.ClusterViewCache;
import io.strata.client.data.DataClient;
import io.strata.client.data.Endpoint;
import io.strata.client.data.Opened;
import io.strata.client.data.ShortCircuit;
import io.strata.client.data.StreamReader;
import io.strata.client.data.UfsFallback;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.net.HostPort;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Where a read of a file goes: its owner on the ring; when the owner runs on this host, straight
 * from its segment files ({@link ShortCircuit}) or else over its domain socket; else TCP; if the
 * owner does not answer (unreachable, or silent for strata.user.read.timeout), the next workers on
 * the ring; then, with strata.user.ufs.fallback.enabled, the under-storage itself. A failing worker
 * also makes the client fetch a new cluster view, which soon leaves it out. Thread-safe.
 */
final class ReadPath implements AutoCloseable {
  static final int ATTEMPTS = 3;
  private static final long SOCKET_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Configuration conf;
  private final ClusterViewCache view;
  private final DataClient data;
  private final UfsFallback fallback;
  private final ShortCircuit shortCircuit;
  private final Map<String, Long> socketsSeen = new ConcurrentHashMap<>();
  private final ExecutorService failover =
      Executors.newCachedThreadPool(DaemonThreads.factory("read-failover"));

  ReadPath(Configuration conf, ClusterViewCache view) {
    this.conf = conf;
    this.view = view;
    this.data = new DataClient(() -> conf.get(UserKeys.READ_TIMEOUT));
    this.fallback = new UfsFallback(() -> view.get().view());
    this.shortCircuit = new ShortCircuit(data, System::nanoTime);
  }

  /** Reads into {@code dst} from its writer index; short only at end of file. */
  CompletableFuture<Integer> readAsync(FileInfo file, long offset, ByteBuf dst, int length) {
    return attempt(file, offset, dst, length, 0, null);
  }

  @SuppressWarnings(
      "FutureReturnValueIgnored") // handle-then-compose: the nested future is composed at once
  private CompletableFuture<Integer> attempt(
      FileInfo file, long offset, ByteBuf dst, int length, int n, StrataException last) {
    List<WorkerInfo> candidates;
    try {
      candidates = view.owners(file.path(), ATTEMPTS);
    } catch (StrataException e) {
      candidates = List.of();
      last = e;
    }
    if (n >= candidates.size()) {
      return fallback(file, offset, dst, length, last);
    }
    int start = dst.writerIndex();
    Endpoint worker = endpoint(candidates.get(n));
    // A composite destination gathers received buffers; it has no memory of its own to read into.
    if (n == 0 && shortCircuitAllowed(worker) && !(dst instanceof CompositeByteBuf)) {
      dst.ensureWritable(length);
      if (dst.nioBufferCount() == 1) {
        int got = shortCircuit.read(worker, target(file), offset, dst.nioBuffer(start, length));
        if (got >= 0) {
          dst.writerIndex(start + got);
          return CompletableFuture.completedFuture(got);
        }
      }
    }
    return data.readAsync(worker, target(file), offset, dst, length)
        .handle(
            (count, error) -> {
              if (error == null) {
                return CompletableFuture.completedFuture(count);
              }
              StrataException e = unwrap(error);
              if (!workerFailed(e)) {
                return CompletableFuture.<Integer>failedFuture(e);
              }
              // Failure is reported on a Netty event loop; the next attempt may block (a new
              // cluster
              // view, a connect, a UFS read), which an event loop must never do.
              return CompletableFuture.supplyAsync(
                      () -> {
                        discardFrom(dst, start);
                        view.invalidate();
                        return attempt(file, offset, dst, length, n + 1, e);
                      },
                      failover)
                  .thenCompose(f -> f);
            })
        .thenCompose(f -> f);
  }

  /** Drops what a failed attempt wrote, including the buffers a composite gathered. */
  static void discardFrom(ByteBuf dst, int start) {
    if (dst instanceof CompositeByteBuf composite) {
      composite.capacity(start);
    }
    dst.writerIndex(start);
  }

  private CompletableFuture<Integer> fallback(
      FileInfo file, long offset, ByteBuf dst, int length, StrataException last) {
    if (!conf.get(UserKeys.UFS_FALLBACK)) {
      return CompletableFuture.failedFuture(
          last != null
              ? last
              : StrataException.unavailable("no worker can serve " + file.path(), null));
    }
    try {
      // Rare: a copy keeps this right for every kind of destination buffer.
      ByteBuffer bytes = ByteBuffer.allocate(length);
      int n = fallback.read(file, offset, bytes);
      dst.writeBytes(bytes.flip());
      return CompletableFuture.completedFuture(n);
    } catch (StrataException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Opens {@code path} on its owner (then the next workers on the ring): its current status, and
   * its first {@code firstBytes} bytes appended to {@code dst}, in one round trip.
   */
  Opened open(String path, long syncIntervalMs, int firstBytes, ByteBuf dst) {
    StrataException last = null;
    int start = dst.writerIndex();
    for (int n = 0; n < ATTEMPTS; n++) {
      List<WorkerInfo> candidates = view.owners(path, ATTEMPTS);
      if (n >= candidates.size()) {
        break;
      }
      Endpoint worker = endpoint(candidates.get(n));
      // First bytes even when this reader may read the owner's files itself: a small file then
      // costs the open alone, where short-circuit would add a lease round trip and a checksum.
      try {
        return data.open(worker, path, syncIntervalMs, firstBytes, dst);
      } catch (StrataException e) {
        if (!workerFailed(e)) {
          throw e;
        }
        discardFrom(dst, start);
        last = e;
        view.invalidate();
      }
    }
    throw last != null ? last : StrataException.unavailable("no worker can open " + path, null);
  }

  /**
   * Blocking positioned read of {@code dst.remaining()} bytes into {@code dst}, with the same
   * failover.
   */
  int read(FileInfo file, long offset, ByteBuffer dst) {
    int start = dst.position();
    StrataException last = null;
    for (int n = 0; n < ATTEMPTS; n++) {
      List<WorkerInfo> candidates;
      try {
        candidates = view.owners(file.path(), ATTEMPTS);
      } catch (StrataException e) {
        last = e;
        break;
      }
      if (n >= candidates.size()) {
        break;
      }
      Endpoint worker = endpoint(candidates.get(n));
      if (n == 0 && shortCircuitAllowed(worker)) {
        int got = shortCircuit.read(worker, target(file), offset, dst);
        if (got >= 0) {
          return got;
        }
        dst.position(start);
      }
      try {
        return data.read(worker, target(file), offset, dst);
      } catch (StrataException e) {
        dst.position(start);
        if (!workerFailed(e)) {
          throw e;
        }
        last = e;
        view.invalidate();
      }
    }
    if (!conf.get(UserKeys.UFS_FALLBACK)) {
      throw last != null
          ? last
          : StrataException.unavailable("no worker can serve " + file.path(), null);
    }
    return fallback.read(file, offset, dst);
  }

  /**
   * The file's bytes from {@code offset} on, streamed from its owner on the caller's thread; null
   * when no owner is known (the caller reads by requests then, with their failover).
   */
  StreamReader stream(FileInfo file, long offset) {
    List<WorkerInfo> owner;
    try {
      owner = view.owners(file.path(), 1);
    } catch (StrataException e) {
      return null;
    }
    return owner.isEmpty()
        ? null
        : data.stream(
            endpoint(owner.get(0)), target(file), offset, conf.get(UserKeys.READ_AHEAD_MAX));
  }

  /**
   * Reads into {@code dst} from the owner's segment files when it runs here and allows it; -1
   * otherwise (and {@code dst}'s position is back where it was).
   */
  int readShortCircuit(FileInfo file, long offset, ByteBuffer dst) {
    if (!conf.get(UserKeys.SHORT_CIRCUIT)) {
      return -1;
    }
    List<WorkerInfo> owner;
    try {
      owner = view.owners(file.path(), 1);
    } catch (StrataException e) {
      return -1;
    }
    Endpoint worker = owner.isEmpty() ? null : endpoint(owner.get(0));
    if (worker == null || !worker.isDomainSocket()) {
      return -1;
    }
    int start = dst.position();
    int got = shortCircuit.read(worker, target(file), offset, dst);
    if (got < 0) {
      dst.position(start);
    }
    return got;
  }

  /** The domain socket when the worker runs here and its socket file is there; TCP otherwise. */
  Endpoint endpoint(WorkerInfo w) {
    String socket = w.getAddress().getDomainSocketPath();
    HostPort tcp = new HostPort(w.getAddress().getHost(), w.getAddress().getDataPort());
    if (!socket.isEmpty()
        && conf.get(UserKeys.DOMAIN_SOCKET)
        && io.strata.client.data.LocalHost.is(w.getAddress().getHost())
        && socketFileExists(socket)) {
      return new Endpoint(tcp, socket);
    }
    return Endpoint.tcp(tcp);
  }

  /**
   * Whether the socket file is there, looked at once a second at most: every small read asks, and a
   * socket gone meanwhile only fails a connect, which the callers' failover handles.
   */
  private boolean socketFileExists(String socket) {
    long now = System.nanoTime();
    Long seen = socketsSeen.get(socket);
    if (seen != null && now - seen < SOCKET_RECHECK_NANOS) {
      return true;
    }
    if (Files.exists(Path.of(socket))) {
      socketsSeen.put(socket, now);
      return true;
    }
    socketsSeen.remove(socket);
    return false;
  }

  private boolean shortCircuitAllowed(Endpoint worker) {
    return worker.isDomainSocket() && conf.get(UserKeys.SHORT_CIRCUIT);
  }

  private static DataClient.Target target(FileInfo file) {
    return new DataClient.Target(file.path(), file.fingerprint(), file.length());
  }

  /** The worker failed (not the request): another worker may serve it. */
  static boolean workerFailed(StrataException e) {
    return e.code() == StatusCode.UNAVAILABLE
        || e.code() == StatusCode.DEADLINE_EXCEEDED
        || e.code() == StatusCode.INTERNAL;
  }

  private static StrataException unwrap(Throwable t) {
    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    return c instanceof StrataException s ? s : StrataException.internal(String.valueOf(c), c);
  }

  @Override
  public void close() {
    failover.shutdown();
    shortCircuit.close();
    data.close();
    fallback.close();
  }
}
