package io.strata.core.rpc;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.net.HostPort;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.proto.MasterServiceGrpc.MasterServiceBlockingStub;
import io.strata.core.security.Credentials;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Calls the master group. It remembers which master answered last, follows a follower's NOT_LEADER
 * hint at once, otherwise rotates through the configured addresses with exponential backoff, until
 * the retry budget runs out. Only UNAVAILABLE and NOT_LEADER are retried: every master call is
 * idempotent, so a retry after a lost answer is harmless.
 *
 * <p>Thread-safe; channels are opened lazily and kept until {@link #close()}.
 */
public final class MasterClient implements AutoCloseable {
  private static final long FIRST_BACKOFF_MS = 25;
  // Low, so a client notices a new leader soon after an election; rotating through the masters is
  // cheap.
  private static final long MAX_BACKOFF_MS = 250;

  /** Pauses between attempts; tests replace it. */
  public interface Sleeper {
    void sleep(long millis) throws InterruptedException;
  }

  private final List<HostPort> addresses;
  private final Duration rpcTimeout;
  private final Duration retryBudget;
  private final LongSupplier nanoTime;
  private final Sleeper sleeper;
  private final Map<HostPort, ManagedChannel> channels = new ConcurrentHashMap<>();
  private volatile HostPort current;
  private Credentials credentials = Credentials.NONE;

  /** A client of the masters {@code conf} names, calling with {@link Credentials#of}. */
  public MasterClient(Configuration conf) {
    this(conf, Credentials.of(conf));
  }

  /** A client of the masters {@code conf} names, calling with {@code credentials}. */
  public MasterClient(Configuration conf, Credentials credentials) {
    this(
        addresses(conf),
        conf.get(UserKeys.RPC_TIMEOUT),
        conf.get(UserKeys.RPC_RETRY_MAX_DURATION),
        System::nanoTime,
        Thread::sleep);
    this.credentials = credentials;
  }

  public MasterClient(
      List<HostPort> addresses,
      Duration rpcTimeout,
      Duration retryBudget,
      LongSupplier nanoTime,
      Sleeper sleeper) {
    if (addresses.isEmpty()) {
      throw StrataException.invalidArgument("no master address configured");
    }
    this.addresses = List.copyOf(addresses);
    this.rpcTimeout = rpcTimeout;
    this.retryBudget = retryBudget;
    this.nanoTime = nanoTime;
    this.sleeper = sleeper;
    this.current = addresses.get(0);
  }

  /** The masters' RPC addresses: strata.master.rpc.addresses, else the single configured master. */
  public static List<HostPort> addresses(Configuration conf) {
    List<String> listed = conf.get(CommonKeys.MASTER_RPC_ADDRESSES);
    if (listed.isEmpty()) {
      return List.of(
          new HostPort(conf.get(CommonKeys.MASTER_HOSTNAME), conf.get(CommonKeys.MASTER_RPC_PORT)));
    }
    List<HostPort> result = new ArrayList<>();
    for (String a : listed) {
      result.add(HostPort.parse(a, CommonKeys.MASTER_RPC_ADDRESSES.name()));
    }
    return result;
  }

  public <T> T call(String what, Function<MasterServiceBlockingStub, T> rpc) {
    return call(what, retryBudget, rpc);
  }

  /** Calls the leader, retrying for at most {@code budget}; fails with the last error seen. */
  public <T> T call(String what, Duration budget, Function<MasterServiceBlockingStub, T> rpc) {
    long deadline = nanoTime.getAsLong() + budget.toNanos();
    long backoff = FIRST_BACKOFF_MS;
    int failuresSinceSleep = 0;
    // What a running master said beats a connection refused by a dead one: it tells why.
    StrataException fromLiveMaster = null;
    while (true) {
      HostPort target = current;
      StrataException error;
      try {
        MasterServiceBlockingStub stub =
            MasterServiceGrpc.newBlockingStub(channel(target))
                .withDeadlineAfter(rpcTimeout.toMillis(), TimeUnit.MILLISECONDS);
        return rpc.apply(stub);
      } catch (StatusRuntimeException e) {
        error = GrpcErrors.fromGrpc(e, "master " + target);
        if (e.getTrailers() != null && e.getTrailers().containsKey(GrpcErrors.CODE)) {
          fromLiveMaster =
              new StrataException(error.code(), "master " + target + ": " + error.getMessage());
        }
      }
      if (error.code() != StatusCode.UNAVAILABLE && error.code() != StatusCode.NOT_LEADER) {
        throw error;
      }
      if (nanoTime.getAsLong() >= deadline) {
        StrataException why = fromLiveMaster != null ? fromLiveMaster : error;
        throw new StrataException(
            StatusCode.UNAVAILABLE,
            "no master answered "
                + what
                + " within "
                + budget.toMillis()
                + " ms (masters: "
                + addresses
                + "); last error: "
                + why.getMessage(),
            why);
      }
      HostPort hint = error.leaderHint().map(h -> HostPort.parse(h, "leader hint")).orElse(null);
      if (hint != null && !hint.equals(target)) {
        current = hint;
        continue;
      }
      current = next(target);
      // Sleep once per full rotation: every master was tried and none could answer.
      if (++failuresSinceSleep >= addresses.size()) {
        failuresSinceSleep = 0;
        pause(Math.min(backoff, Math.max(1, (deadline - nanoTime.getAsLong()) / 1_000_000)));
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  /** The master that answered last (or will be tried first). */
  public HostPort currentMaster() {
    return current;
  }

  private HostPort next(HostPort target) {
    int i = addresses.indexOf(target);
    return addresses.get((i + 1) % addresses.size());
  }

  private void pause(long millis) {
    try {
      sleeper.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StrataException(StatusCode.CANCELLED, "interrupted while waiting for a master");
    }
  }

  private ManagedChannel channel(HostPort target) {
    return channels.computeIfAbsent(target, t -> Channels.open(t, credentials));
  }

  @Override
  public void close() {
    channels.values().forEach(Channels::close);
    channels.clear();
  }
}
