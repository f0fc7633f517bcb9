package io.strata.it;

import static org.awaitility.Awaitility.await;

import io.strata.client.FileSystem;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.ConfKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.master.MasterProcess;
import io.strata.worker.WorkerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Real masters and workers in this JVM, on 127.0.0.1 with ephemeral ports and temporary folders:
 * {@code try (var cluster = MiniCluster.builder().workers(2).start()) { ... }}. The UFS is a
 * temporary folder, {@link #ufsRoot()}.
 */
public final class MiniCluster implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Path base;
  private final Path ufsRoot;
  private final List<Integer> rpcPorts = new ArrayList<>();
  private final List<Integer> journalPorts = new ArrayList<>();
  private final List<MasterProcess> masters = new ArrayList<>();
  private final List<WorkerProcess> workers = new ArrayList<>();
  private final Map<ConfKey<?>, String> overrides;
  private final boolean domainSockets;
  private final String ssdQuota;

  private MiniCluster(Builder b) throws IOException {
    this.base = Files.createTempDirectory("strata-minicluster");
    this.ufsRoot = Files.createDirectories(base.resolve("ufs"));
    this.overrides = Map.copyOf(b.overrides);
    this.domainSockets = b.domainSockets;
    this.ssdQuota = b.ssdQuota;
    for (int i = 0; i < b.masters; i++) {
      rpcPorts.add(Ports.free());
      journalPorts.add(Ports.free());
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configuration every process and client of this cluster shares. */
  public Configuration clientConf() {
    Configuration conf = new Configuration();
    conf.set(CommonKeys.HOME, base.toString());
    conf.set(CommonKeys.MASTER_HOSTNAME, "127.0.0.1");
    conf.set(
        CommonKeys.MASTER_RPC_ADDRESSES,
        String.join(",", rpcPorts.stream().map(p -> "127.0.0.1:" + p).toList()));
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "20s");
    conf.set(FuseKeys.BIND_HOST, "127.0.0.1");
    conf.set(FuseKeys.WEB_PORT, "0");
    overrides.forEach((k, v) -> conf.set(k, v));
    return conf;
  }

  private Configuration masterConf(int i) {
    Configuration conf = clientConf();
    conf.set(MasterKeys.BIND_HOST, "127.0.0.1");
    conf.set(CommonKeys.MASTER_RPC_PORT, String.valueOf(rpcPorts.get(i)));
    conf.set(MasterKeys.JOURNAL_PORT, String.valueOf(journalPorts.get(i)));
    conf.set(
        MasterKeys.JOURNAL_ADDRESSES,
        String.join(",", journalPorts.stream().map(p -> "127.0.0.1:" + p).toList()));
    conf.set(MasterKeys.WEB_PORT, "0");
    conf.set(MasterKeys.JOURNAL_FOLDER, base.resolve("journal-" + i).toString());
    conf.set(MasterKeys.ROOT_UFS, ufsRoot.toString());
    overrides.forEach((k, v) -> conf.set(k, v));
    return conf;
  }

  private Configuration workerConf() {
    Configuration conf = clientConf();
    conf.set(WorkerKeys.STATE_FOLDER, base.resolve("worker-" + workers.size()).toString());
    conf.set(WorkerKeys.HOSTNAME, "127.0.0.1");
    conf.set(WorkerKeys.BIND_HOST, "127.0.0.1");
    conf.set(WorkerKeys.RPC_PORT, "0");
    conf.set(WorkerKeys.DATA_PORT, "0");
    conf.set(WorkerKeys.WEB_PORT, "0");
    conf.set(WorkerKeys.MEM_SIZE, "64MiB");
    conf.set(WorkerKeys.HEARTBEAT_INTERVAL, "100ms");
    conf.set(WorkerKeys.DATA_READER_THREADS, "8");
    conf.set(WorkerKeys.RPC_THREADS, "8");
    if (domainSockets) {
      conf.set(
          WorkerKeys.DOMAIN_SOCKET, base.resolve("worker-" + workers.size() + ".sock").toString());
    }
    if (ssdQuota != null) {
      conf.set(WorkerKeys.PAGE_STORE_DIRS, ssdDir(workers.size()) + ":" + ssdQuota);
    }
    overrides.forEach((k, v) -> conf.set(k, v));
    return conf;
  }

  private MiniCluster startAll(int workerCount) throws Exception {
    try {
      for (int i = 0; i < rpcPorts.size(); i++) {
        MasterProcess m = new MasterProcess(masterConf(i));
        masters.add(m);
        m.start();
      }
      await()
          .atMost(START_TIMEOUT)
          .until(() -> masters.stream().allMatch(m -> m.notReadyReason().isEmpty()));
      for (int i = 0; i < workerCount; i++) {
        startWorker();
      }
      return this;
    } catch (Exception | Error e) {
      close();
      throw e;
    }
  }

  /** Starts one more worker and waits until it is registered. */
  public WorkerProcess startWorker() throws Exception {
    WorkerProcess w = new WorkerProcess(workerConf());
    workers.add(w);
    w.start();
    await().atMost(START_TIMEOUT).until(() -> w.notReadyReason().isEmpty());
    return w;
  }

  public FileSystem fileSystem() {
    return FileSystem.create(clientConf());
  }

  /** The SSD cache folder of worker {@code i} (see {@link Builder#ssd}). */
  public Path ssdDir(int i) {
    return base.resolve("worker-" + i + "-ssd");
  }

  public Path ufsRoot() {
    return ufsRoot;
  }

  public MasterProcess master(int i) {
    return masters.get(i);
  }

  public WorkerProcess worker(int i) {
    return workers.get(i);
  }

  public List<WorkerProcess> workers() {
    return workers;
  }

  @Override
  public void close() {
    workers.forEach(WorkerProcess::close);
    masters.forEach(MasterProcess::close);
    try (Stream<Path> files = Files.walk(base)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How many masters and workers, and configuration every process gets. */
  public static final class Builder {
    private int masters = 1;
    private int workers = 1;
    private final Map<ConfKey<?>, String> overrides = new HashMap<>();
    private boolean domainSockets;
    private String ssdQuota;

    /** Every worker also serves on a domain socket of its own. */
    public Builder domainSockets() {
      this.domainSockets = true;
      return this;
    }

    /** Every worker gets an SSD cache folder of its own with this quota. */
    public Builder ssd(String quota) {
      this.ssdQuota = quota;
      return this;
    }

    public Builder masters(int n) {
      this.masters = n;
      return this;
    }

    public Builder workers(int n) {
      this.workers = n;
      return this;
    }

    public Builder property(ConfKey<?> key, String value) {
      overrides.put(key, value);
      return this;
    }

    public MiniCluster start() throws Exception {
      return new MiniCluster(this).startAll(workers);
    }
  }
}
