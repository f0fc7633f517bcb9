package io.strata.core.conf;

import java.util.List;

/** Keys every process reads: where things live, and how to reach the masters. */
public final class CommonKeys {
  private CommonKeys() {}

  public static final ConfKey<String> HOME =
      ConfKey.string("strata.home")
          .defaultValue("/opt/strata")
          .scope(Scope.ALL)
          .description(
              "Root of the Strata installation; bin/ scripts set it to the folder they run from.")
          .build();

  public static final ConfKey<String> CONF_DIR =
      ConfKey.string("strata.conf.dir")
          .defaultValue("${strata.home}/conf")
          .scope(Scope.ALL)
          .description(
              "Folder holding strata-site.properties; STRATA_CONF_DIR lets several clusters share one install.")
          .build();

  public static final ConfKey<String> LOGS_DIR =
      ConfKey.string("strata.logs.dir")
          .defaultValue("${strata.home}/logs")
          .scope(Scope.ALL)
          .description("Folder for log and pid files of the processes bin/strata-start.sh starts.")
          .build();

  public static final ConfKey<String> LOG_FILE =
      ConfKey.string("strata.log.file")
          .defaultValue("strata.log")
          .scope(Scope.ALL)
          .description(
              "Name of this process's log file inside strata.logs.dir; bin/strata-start.sh names it per process.")
          .build();

  public static final ConfKey<String> MASTER_HOSTNAME =
      ConfKey.string("strata.master.hostname")
          .defaultValue("localhost")
          .scope(Scope.ALL)
          .description(
              "Host name other processes use to reach a single master; set it on every node of a multi-host cluster.")
          .build();

  public static final ConfKey<Integer> MASTER_RPC_PORT =
      ConfKey.integer("strata.master.rpc.port")
          .defaultValue("7700")
          .scope(Scope.ALL)
          .check(Ports::valid, Ports.MESSAGE)
          .description("Port of the master's gRPC service.")
          .build();

  public static final ConfKey<List<String>> MASTER_RPC_ADDRESSES =
      ConfKey.list("strata.master.rpc.addresses")
          .defaultValue("")
          .scope(Scope.ALL)
          .description(
              "host:port of every master's gRPC service, comma-separated; empty means the single master at "
                  + "strata.master.hostname:strata.master.rpc.port.")
          .build();

  public static final ConfKey<Integer> RING_VIRTUAL_NODES =
      ConfKey.integer("strata.ring.virtual.nodes")
          .defaultValue("256")
          .scope(Scope.ALL)
          .check(n -> n > 0 && n <= 10000, "must be from 1 to 10000")
          .description(
              "Points per worker on the consistent-hash ring; every process of a cluster must use the same value.")
          .build();

  public static final ConfKey<Integer> RPC_MAX_CONNECTIONS =
      ConfKey.integer("strata.rpc.max.connections")
          .defaultValue("4096")
          .scope(Scope.ALL)
          .check(n -> n >= 16 && n <= 1_000_000, "must be from 16 to 1000000")
          .description(
              "Connections a master's or worker's gRPC port keeps at once. A quarter at most may"
                  + " not yet have proved a token or the secret (the oldest of those is closed when"
                  + " a new one needs room), a sixteenth is kept for the cluster's own processes."
                  + " Applies at start.")
          .build();

  public static final ConfKey<Integer> MAX_CONNECTIONS_PER_USER =
      ConfKey.integer("strata.rpc.max.connections.per.user")
          .defaultValue("256")
          .scope(Scope.ALL)
          .check(n -> n >= 1 && n <= 1_000_000, "must be from 1 to 1000000")
          .description(
              "Connections one token user keeps at once on a gRPC or data port; one more is closed"
                  + " at its first call (RESOURCE_EXHAUSTED). The cluster's processes are not"
                  + " counted. Applies at start.")
          .build();

  public static final ConfKey<Integer> UNAUTHENTICATED_PER_SOURCE =
      ConfKey.integer("strata.rpc.unauthenticated.max.per.source")
          .defaultValue("64")
          .scope(Scope.ALL)
          .check(n -> n >= 1 && n <= 1_000_000, "must be from 1 to 1000000")
          .description(
              "Connections from one address (one account, on a domain socket) that have not yet"
                  + " proved a token or the secret, on a gRPC or data port; when a new one comes"
                  + " the oldest is closed. Applies at start.")
          .build();

  public static final ConfKey<List<String>> LOG_LEVELS =
      ConfKey.list("strata.log.levels")
          .defaultValue("")
          .scope(Scope.ALL)
          .dynamic()
          .check(
              LogLevelSpec::valid,
              "expected logger=LEVEL pairs, e.g. io.strata.worker=DEBUG,org.apache.ratis=INFO")
          .description(
              "Log levels by logger (package), e.g. io.strata.worker=DEBUG; removing an entry restores "
                  + "the level of log4j2.xml.")
          .build();

  public static final ConfKey<Boolean> AUDIT_ENABLED =
      ConfKey.bool("strata.audit.log.enabled")
          .defaultValue("false")
          .scope(Scope.ALL)
          .dynamic()
          .description(
              "Write every metadata and write operation (user, client address, operation, path, outcome) to "
                  + "audit.log, asynchronously.")
          .build();
}
