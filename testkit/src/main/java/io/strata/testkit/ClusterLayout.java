package io.strata.testkit;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.ConfKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.KeyRegistry;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one function from a test or bench cluster to each of its processes' configuration, however
 * they are started: in this JVM ({@link MiniCluster}), as JVMs of their own ({@link
 * ForkedCluster}), or by the {@code bin/} scripts ({@link ScriptConf}). Everything the cluster
 * writes lives in one folder; every listener is on 127.0.0.1; a port of 0 is any free one (for a
 * process whose address nobody needs to know in advance).
 *
 * <p>Test tuning (small memory tier, quick heartbeats, short client timeouts) is for clusters that
 * tests drive; without it, processes keep the product's defaults, as a bench of the scripts needs.
 *
 * <p>Folders under {@link #dir}: {@code ufs/} (the root mount), {@code journal-<journal port>/},
 * {@code worker-<n>-state/}, {@code worker-<n>-ssd/}, {@code worker-<n>.sock}.
 */
public final class ClusterLayout {
  /** A master's ports: its RPC and Raft ones must be known before the group starts. */
  public record MasterPorts(int rpc, int journal, int web) {
    /** Free ports, chosen now. */
    public static MasterPorts free() {
      return new MasterPorts(FreePorts.next(), FreePorts.next(), FreePorts.next());
    }
  }

  /** A worker's ports; 0 for any. */
  public record WorkerPorts(int rpc, int data, int web) {
    public static final WorkerPorts ANY = new WorkerPorts(0, 0, 0);

    /** Free ports, chosen now (a worker restarted on them keeps its identity). */
    public static WorkerPorts free() {
      return new WorkerPorts(FreePorts.next(), FreePorts.next(), FreePorts.next());
    }
  }

  private static final String LOOPBACK = "127.0.0.1";

  private final Path dir;
  private final List<MasterPorts> masters;
  private final boolean testTuning;
  private final boolean domainSockets;
  private final String ssdQuota;
  private final Map<String, String> overrides;

  /**
   * @param ssdQuota each worker's SSD cache quota, or null for none
   * @param overrides set on every process and client, last
   */
  public ClusterLayout(
      Path dir,
      List<MasterPorts> masters,
      boolean testTuning,
      boolean domainSockets,
      String ssdQuota,
      Map<String, String> overrides) {
    this.dir = dir;
    this.masters = List.copyOf(masters);
    this.testTuning = testTuning;
    this.domainSockets = domainSockets;
    this.ssdQuota = ssdQuota;
    this.overrides = Map.copyOf(overrides);
  }

  public Path dir() {
    return dir;
  }

  public List<MasterPorts> masters() {
    return masters;
  }

  public Path ufsRoot() {
    return dir.resolve("ufs");
  }

  public Path ssdDir(int worker) {
    return dir.resolve("worker-" + worker + "-ssd");
  }

  public Path journalFolder(MasterPorts master) {
    return dir.resolve("journal-" + master.journal());
  }

  public Path stateFolder(int worker) {
    return dir.resolve("worker-" + worker + "-state");
  }

  public Path domainSocket(int worker) {
    return dir.resolve("worker-" + worker + ".sock");
  }

  /** What every process and client of the cluster shares. */
  public Map<String, String> client() {
    Map<String, String> conf = new LinkedHashMap<>();
    put(conf, CommonKeys.HOME, dir.toString());
    put(conf, CommonKeys.LOGS_DIR, dir.toString());
    put(conf, CommonKeys.MASTER_HOSTNAME, LOOPBACK);
    put(conf, CommonKeys.MASTER_RPC_ADDRESSES, addresses(masters, 0));
    put(conf, FuseKeys.BIND_HOST, LOOPBACK);
    put(conf, FuseKeys.WEB_PORT, "0");
    // A test's or bench's cluster is its run's alone: NONE, unless the overrides say TOKEN.
    put(conf, SecurityKeys.MODE, "NONE");
    if (testTuning) {
      put(conf, UserKeys.RPC_RETRY_MAX_DURATION, "30s");
      put(conf, UserKeys.RPC_TIMEOUT, "5s");
    }
    conf.putAll(overrides);
    return conf;
  }

  /** Master {@code i} of this cluster. */
  public Map<String, String> master(int i) {
    return master(i, masters);
  }

  /**
   * Master {@code i} of a group of these masters (one joining later, or a stray of another group).
   */
  public Map<String, String> master(int i, List<MasterPorts> group) {
    MasterPorts own = group.get(i);
    Map<String, String> conf = client();
    put(conf, CommonKeys.MASTER_RPC_ADDRESSES, addresses(group, 0));
    put(conf, MasterKeys.JOURNAL_ADDRESSES, addresses(group, 1));
    put(conf, CommonKeys.MASTER_RPC_PORT, String.valueOf(own.rpc()));
    put(conf, MasterKeys.JOURNAL_PORT, String.valueOf(own.journal()));
    put(conf, MasterKeys.WEB_PORT, String.valueOf(own.web()));
    put(conf, MasterKeys.BIND_HOST, LOOPBACK);
    put(conf, MasterKeys.JOURNAL_FOLDER, journalFolder(own).toString());
    put(conf, MasterKeys.ROOT_UFS, ufsRoot().toString());
    conf.putAll(overrides);
    return conf;
  }

  /** Worker {@code j}, listening on {@code ports}. */
  public Map<String, String> worker(int j, WorkerPorts ports) {
    Map<String, String> conf = client();
    put(conf, WorkerKeys.HOSTNAME, LOOPBACK);
    put(conf, WorkerKeys.BIND_HOST, LOOPBACK);
    put(conf, WorkerKeys.RPC_PORT, String.valueOf(ports.rpc()));
    put(conf, WorkerKeys.DATA_PORT, String.valueOf(ports.data()));
    put(conf, WorkerKeys.WEB_PORT, String.valueOf(ports.web()));
    put(conf, WorkerKeys.STATE_FOLDER, stateFolder(j).toString());
    if (testTuning) {
      put(conf, WorkerKeys.MEM_SIZE, "64MiB");
      put(conf, WorkerKeys.HEARTBEAT_INTERVAL, "100ms");
      put(conf, WorkerKeys.DATA_READER_THREADS, "8");
      put(conf, WorkerKeys.RPC_THREADS, "8");
    }
    if (domainSockets) {
      put(conf, WorkerKeys.DOMAIN_SOCKET, domainSocket(j).toString());
    }
    if (ssdQuota != null) {
      put(conf, WorkerKeys.PAGE_STORE_DIRS, ssdDir(j) + ":" + ssdQuota);
    }
    conf.putAll(overrides);
    return conf;
  }

  /** A process's settings as a configuration of this JVM. */
  public static Configuration configuration(Map<String, String> settings) {
    Configuration conf = new Configuration();
    settings.forEach((k, v) -> conf.set(KeyRegistry.require(k, "a cluster layout"), v));
    return conf;
  }

  private static void put(Map<String, String> conf, ConfKey<?> key, String value) {
    conf.put(key.name(), value);
  }

  private static String addresses(List<MasterPorts> group, int which) {
    return String.join(
        ",",
        group.stream().map(p -> LOOPBACK + ":" + (which == 0 ? p.rpc() : p.journal())).toList());
  }
}
