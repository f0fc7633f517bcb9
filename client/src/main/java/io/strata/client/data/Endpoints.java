package io.strata.client.data;

import io.strata.core.net.HostPort;
import io.strata.core.proto.WorkerInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
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

  /** This process's effective uid: the owner of its /proc entry. */
  private static final Object THIS_UID = thisUid();

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
   * Whether the socket file is there, this user may connect to it and owns it, looked at once a
   * second at most: every small read asks, and a socket gone meanwhile only fails a connect, which
   * the failover handles. The worker makes its socket owner-only, so only its own account (or root,
   * which may connect to anything) could use it; a socket another account owns at that path is
   * someone else's, perhaps one bound there while the worker was down to pose as it. Such a socket,
   * or a link to one, is left alone: the client reads over TCP.
   */
  private boolean socketFileExists(String socket) {
    long now = nanoTime.getAsLong();
    Long seen = socketsSeen.get(socket);
    if (seen != null && now - seen < SOCKET_RECHECK_NANOS) {
      return true;
    }
    if (Files.isWritable(Path.of(socket)) && ownedByThisAccount(Path.of(socket))) {
      socketsSeen.put(socket, now);
      return true;
    }
    socketsSeen.remove(socket);
    return false;
  }

  private static boolean ownedByThisAccount(Path socket) {
    try {
      return Files.getAttribute(socket, "unix:uid", LinkOption.NOFOLLOW_LINKS).equals(THIS_UID);
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  private static Object thisUid() {
    try {
      return Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | UnsupportedOperationException e) {
      return -1; // no procfs: no domain sockets either
    }
  }
}
