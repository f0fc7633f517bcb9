package io.strata.client.data;

import io.strata.core.security.Credentials;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * What both of the client's data-plane transports keep to (the Netty connections of async reads and
 * leases, the blocking ones of opens, streams and small reads, see docs/design.md): how long a
 * connect and a call without progress may take, how many idle connections stay pooled per worker,
 * and who the client is (its token and the one TLS context both wrap their connections in).
 */
record ConnectionLimits(
    Supplier<Duration> readTimeout,
    int connectTimeoutMs,
    int idlePerWorker,
    Credentials credentials) {
  static final int CONNECT_TIMEOUT_MS = 5000;
  static final int IDLE_PER_WORKER = 64;

  static ConnectionLimits of(Supplier<Duration> readTimeout, Credentials credentials) {
    return new ConnectionLimits(readTimeout, CONNECT_TIMEOUT_MS, IDLE_PER_WORKER, credentials);
  }

  Duration timeout() {
    return readTimeout.get();
  }
}
