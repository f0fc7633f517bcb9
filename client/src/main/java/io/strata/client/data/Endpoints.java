package io.strata.client.data;

import io.strata.core.net.HostPort;
import io.strata.core.proto.WorkerInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * How this client reaches a worker's data server: over its domain socket when the worker runs on
 * this host, allows it and its socket file is visible here; else over TCP. Thread-safe.
 */
public final class Endpoints {
  private static final long SOCKET_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final BooleanSupplier domainSocketsAllowed;
  private final LongSupplier nanoTime;
  private final Map<String, Long> socketsSeen = new ConcurrentHashMap<>();

  /**
   * @param domainSocketsAllowed read at each use: the key may change while running
   */
  public Endpoints(BooleanSupplier domainSocketsAllowed, LongSupplier nanoTime) {
    this.domainSocketsAllowed = domainSocketsAllowed;
    this.nanoTime = nanoTime;
  }

  public Endpoint of(WorkerInfo w) {
    String socket = w.getAddress().getDomainSocketPath();
    HostPort tcp = new HostPort(w.getAddress().getHost(), w.getAddress().getDataPort());
    if (!socket.isEmpty()
        && domainSocketsAllowed.getAsBoolean()
        && LocalHost.is(w.getAddress().getHost())
        && socketFileExists(socket)) {
      return new Endpoint(tcp, socket);
    }
    return Endpoint.tcp(tcp);
  }

  /**
   * Whether the socket file is there and this user may connect to it (the worker makes it
   * owner-only: another local user reads over TCP), looked at once a second at most: every small
   * read asks, and a socket gone meanwhile only fails a connect, which the failover handles.
   */
  private boolean socketFileExists(String socket) {
    long now = nanoTime.getAsLong();
    Long seen = socketsSeen.get(socket);
    if (seen != null && now - seen < SOCKET_RECHECK_NANOS) {
      return true;
    }
    if (Files.isWritable(Path.of(socket))) {
      socketsSeen.put(socket, now);
      return true;
    }
    socketsSeen.remove(socket);
    return false;
  }
}
