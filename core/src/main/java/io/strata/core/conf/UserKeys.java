package io.strata.core.conf;

import java.time.Duration;

/** Keys of clients: the shell, FUSE and user programs. */
public final class UserKeys {
  private UserKeys() {}

  /** How written files are stored; see {@link #WRITE_TYPE}. */
  public enum WriteType {
    THROUGH,
    CACHE_THROUGH
  }

  public static final ConfKey<Duration> RPC_TIMEOUT =
      ConfKey.duration("strata.user.rpc.timeout")
          .defaultValue("30s")
          .scope(Scope.ALL)
          .check(d -> d.toMillis() > 0, "must be positive")
          .description("Deadline of one control-plane call.")
          .build();

  public static final ConfKey<Duration> RPC_RETRY_MAX_DURATION =
      ConfKey.duration("strata.user.rpc.retry.max.duration")
          .defaultValue("30s")
          .scope(Scope.ALL)
          .check(d -> !d.isNegative(), "must not be negative")
          .description(
              "How long calls to the masters are retried (rotating through addresses) before giving up.")
          .build();

  public static final ConfKey<Duration> CLUSTER_VIEW_REFRESH =
      ConfKey.duration("strata.user.cluster.view.refresh.interval")
          .defaultValue("5s")
          .scope(Scope.CLIENT)
          .check(d -> d.toMillis() > 0, "must be positive")
          .dynamic()
          .description(
              "How old a client's copy of the worker list and mount table may get before it is fetched again.")
          .build();

  public static final ConfKey<Duration> METADATA_CACHE_TTL =
      ConfKey.duration("strata.user.metadata.cache.ttl")
          .defaultValue("2s")
          .scope(Scope.CLIENT)
          .check(d -> !d.isNegative(), "must not be negative")
          .description(
              "How long a client keeps a file's status and a folder's listing in memory; its own changes "
                  + "drop the entries they touch at once, changes made elsewhere show within this time. 0 turns it off.")
          .build();

  public static final ConfKey<Boolean> METADATA_CACHE_WATCH =
      ConfKey.bool("strata.user.metadata.cache.watch")
          .defaultValue("false")
          .scope(Scope.CLIENT)
          .description(
              "Keep statuses and listings for as long as the worker that gave them would serve them "
                  + "(strata.worker.metadata.cache.ttl), not only strata.user.metadata.cache.ttl: "
                  + "the client then watches every worker, which tells it at once of each path whose "
                  + "metadata it drops (a change through any client, fs invalidate). The FUSE process "
                  + "turns it on (strata.fuse.metadata.cache.enabled). Applies when the client starts.")
          .build();

  public static final ConfKey<Boolean> METADATA_CACHE_IMMUTABLE =
      ConfKey.bool("strata.user.metadata.cache.immutable")
          .defaultValue("false")
          .scope(Scope.CLIENT)
          .description(
              "Trust what the client was told of a file until a change through Strata or fs invalidate "
                  + "drops it (watched: strata.user.metadata.cache.watch), never asking again when a TTL "
                  + "ends: for data sets that never change behind Strata's back, where a change made in "
                  + "the under-storage directly is not seen until invalidated. The FUSE option "
                  + "'immutable' sets it. Applies when the client starts.")
          .build();

  public static final ConfKey<Long> METADATA_CACHE_MAX_ENTRIES =
      ConfKey.longKey("strata.user.metadata.cache.max.entries")
          .defaultValue("100000")
          .scope(Scope.CLIENT)
          .check(n -> n >= 0, "must not be negative")
          .description("Most file statuses a client keeps in memory (listings: a tenth of it).")
          .build();

  public static final ConfKey<Long> OPEN_FIRST_BYTES =
      ConfKey.bytes("strata.user.open.first.bytes")
          .defaultValue("1MiB")
          .scope(Scope.CLIENT)
          .dynamic()
          .check(n -> n >= 0 && n <= (64L << 20), "must be between 0 and 64MiB")
          .description(
              "Bytes from the start of a file that an open asks for along with its status, in one round "
                  + "trip: a small file is then read whole by its open. 0 asks for the status only.")
          .build();

  public static final ConfKey<Duration> METADATA_SYNC_INTERVAL =
      ConfKey.duration("strata.user.metadata.sync.interval")
          .defaultValue("-1")
          .scope(Scope.CLIENT)
          .check(d -> d.toMillis() >= -1, "must be -1 (trust the TTL), 0 (always) or more")
          .dynamic()
          .description(
              "Ask the UFS again when a worker's cached metadata is older than this; 0 always, -1 trust the TTL.")
          .build();

  public static final ConfKey<Long> READ_AHEAD_MAX =
      ConfKey.bytes("strata.user.read.ahead.max")
          .defaultValue("4MiB")
          .scope(Scope.CLIENT)
          .check(n -> n >= 4096 && n <= 64L << 20, "must be from 4KiB to 64MiB")
          .dynamic()
          .description(
              "Most bytes a streaming reader fetches ahead of its position; streams opened later use a new value.")
          .build();

  public static final ConfKey<Duration> READ_TIMEOUT =
      ConfKey.duration("strata.user.read.timeout")
          .defaultValue("30s")
          .scope(Scope.CLIENT)
          .check(d -> d.toMillis() > 0, "must be positive")
          .description("A data-plane read that makes no progress this long fails.")
          .build();

  public static final ConfKey<WriteType> WRITE_TYPE =
      ConfKey.enumKey("strata.user.write.type", WriteType.class)
          .defaultValue("THROUGH")
          .scope(Scope.CLIENT)
          .dynamic()
          .description(
              "THROUGH writes to the UFS only; CACHE_THROUGH also caches the written pages on the worker.")
          .build();

  public static final ConfKey<Long> WRITE_CHUNK_SIZE =
      ConfKey.bytes("strata.user.write.chunk.size")
          .defaultValue("1MiB")
          .scope(Scope.CLIENT)
          .check(n -> n >= 4096 && n <= 2L << 20, "must be from 4KiB to 2MiB")
          .description("Bytes per message a writer streams to its worker.")
          .build();

  public static final ConfKey<Duration> CONF_SYNC_INTERVAL =
      ConfKey.duration("strata.user.conf.sync.interval")
          .defaultValue("10s")
          .scope(Scope.CLIENT)
          .check(d -> !d.isNegative(), "must not be negative")
          .description(
              "How often a client (shell, FUSE, user program) checks the cluster configuration for changes; "
                  + "workers check with every heartbeat. 0: only when the client fetches a cluster view anyway (no "
                  + "thread of its own; for one-shot clients such as a shell command).")
          .build();

  public static final ConfKey<Boolean> URI_MASTERS_ANY =
      ConfKey.bool("strata.user.uri.masters.any")
          .defaultValue("false")
          .scope(Scope.CLIENT)
          .description(
              "Whether a strata://host:port/ URI may name masters this client is not configured for "
                  + "(strata.master.rpc.addresses) while it holds a token or the cluster secret: off, such a "
                  + "URI is refused, so that a path handed to a job cannot send its token elsewhere.")
          .build();

  public static final ConfKey<Boolean> UFS_FALLBACK =
      ConfKey.bool("strata.user.ufs.fallback.enabled")
          .defaultValue("false")
          .scope(Scope.CLIENT)
          .dynamic()
          .description(
              "When no worker can serve a read, read the under-storage directly (the client needs access to "
                  + "it); off, such a read fails.")
          .build();

  public static final ConfKey<Boolean> DOMAIN_SOCKET =
      ConfKey.bool("strata.user.domain.socket.enabled")
          .defaultValue("true")
          .scope(Scope.CLIENT)
          .dynamic()
          .description(
              "Read from a worker on this host over its Unix domain socket (when it has one) instead of TCP.")
          .build();

  public static final ConfKey<Boolean> SHORT_CIRCUIT =
      ConfKey.bool("strata.user.short.circuit.enabled")
          .defaultValue("true")
          .scope(Scope.CLIENT)
          .dynamic()
          .description(
              "Read pages cached on SSD by a worker on this host straight from its files, under a lease that "
                  + "keeps them from eviction; falls back to the socket when the files cannot be opened.")
          .build();
}
