package io.strata.bench.cluster;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.ConfKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.net.HostPort;
import io.strata.core.proto.GetMasterStatusRequest;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.proto.MasterStatus;
import io.strata.core.rpc.Channels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Real masters and workers, each in its own JVM, on 127.0.0.1: what fault tests kill with SIGKILL
 * and what `strata bench` measures. Every port is chosen before start and kept across restarts, so
 * a restarted process comes back at the same address (a worker keeps its identity). The UFS is a
 * folder of the work directory, {@link #ufsRoot()}.
 */
public final class ForkedCluster implements AutoCloseable {
  public static final String MASTER_MAIN = "io.strata.master.MasterProcess";
  public static final String WORKER_MAIN = "io.strata.worker.WorkerProcess";

  private final Builder spec;
  private final Path dir;
  private final List<Slot> masters = new ArrayList<>();
  private final List<Slot> workers = new ArrayList<>();
  private final Map<HostPort, ManagedChannel> channels = new LinkedHashMap<>();

  /** One process's place: its ports (rpc, journal or data, web) and its process. */
  private record Slot(String name, int rpc, int second, int web, ForkedProcess process) {}

  private ForkedCluster(Builder spec) throws IOException {
    this.spec = spec;
    this.dir = spec.dir != null ? spec.dir : Files.createTempDirectory("strata-forked");
    Files.createDirectories(dir.resolve("ufs"));
    List<int[]> masterPorts = new ArrayList<>();
    for (int i = 0; i < spec.masters; i++) {
      masterPorts.add(new int[] {freePort(), freePort(), freePort()});
    }
    for (int i = 0; i < spec.masters; i++) {
      int[] p = masterPorts.get(i);
      masters.add(
          new Slot(
              "master-" + i,
              p[0],
              p[1],
              p[2],
              new ForkedProcess(
                  "master-" + i,
                  MASTER_MAIN,
                  spec.classpath,
                  spec.jvmOptions,
                  masterConf(i, masterPorts),
                  dir)));
    }
    for (int j = 0; j < spec.workers; j++) {
      workers.add(newWorkerSlot(j));
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  private Slot newWorkerSlot(int j) {
    int rpc = freePort();
    int data = freePort();
    int web = freePort();
    Map<String, String> conf = commonConf();
    conf.put(WorkerKeys.HOSTNAME.name(), "127.0.0.1");
    conf.put(WorkerKeys.BIND_HOST.name(), "127.0.0.1");
    conf.put(WorkerKeys.RPC_PORT.name(), String.valueOf(rpc));
    conf.put(WorkerKeys.DATA_PORT.name(), String.valueOf(data));
    conf.put(WorkerKeys.WEB_PORT.name(), String.valueOf(web));
    conf.put(WorkerKeys.MEM_SIZE.name(), "64MiB");
    conf.put(WorkerKeys.STATE_FOLDER.name(), dir.resolve("worker-" + j + "-state").toString());
    conf.put(WorkerKeys.HEARTBEAT_INTERVAL.name(), "200ms");
    conf.put(WorkerKeys.DATA_READER_THREADS.name(), "8");
    conf.put(WorkerKeys.RPC_THREADS.name(), "8");
    if (spec.domainSockets) {
      conf.put(WorkerKeys.DOMAIN_SOCKET.name(), dir.resolve("worker-" + j + ".sock").toString());
    }
    if (spec.ssdQuota != null) {
      conf.put(
          WorkerKeys.PAGE_STORE_DIRS.name(),
          dir.resolve("worker-" + j + "-ssd") + ":" + spec.ssdQuota);
    }
    conf.putAll(spec.conf);
    String name = "worker-" + j;
    return new Slot(
        name,
        rpc,
        data,
        web,
        new ForkedProcess(name, WORKER_MAIN, spec.classpath, spec.jvmOptions, conf, dir));
  }

  /** The configuration of master {@code i} in a group whose ports are {@code ports}. */
  public Map<String, String> masterConf(int i, List<int[]> ports) {
    Map<String, String> conf = commonConf();
    conf.put(CommonKeys.MASTER_RPC_ADDRESSES.name(), join(ports, 0));
    conf.put(MasterKeys.JOURNAL_ADDRESSES.name(), join(ports, 1));
    conf.put(CommonKeys.MASTER_RPC_PORT.name(), String.valueOf(ports.get(i)[0]));
    conf.put(MasterKeys.JOURNAL_PORT.name(), String.valueOf(ports.get(i)[1]));
    conf.put(MasterKeys.WEB_PORT.name(), String.valueOf(ports.get(i)[2]));
    conf.put(MasterKeys.BIND_HOST.name(), "127.0.0.1");
    conf.put(
        MasterKeys.JOURNAL_FOLDER.name(), dir.resolve("journal-" + ports.get(i)[1]).toString());
    conf.put(MasterKeys.ROOT_UFS.name(), ufsRoot().toString());
    conf.putAll(spec.conf);
    return conf;
  }

  private Map<String, String> commonConf() {
    Map<String, String> conf = new LinkedHashMap<>();
    conf.put(CommonKeys.HOME.name(), dir.toString());
    conf.put(CommonKeys.LOGS_DIR.name(), dir.toString());
    conf.put(CommonKeys.MASTER_HOSTNAME.name(), "127.0.0.1");
    conf.put(CommonKeys.MASTER_RPC_ADDRESSES.name(), masterRpcAddresses());
    return conf;
  }

  private static String join(List<int[]> ports, int which) {
    return String.join(",", ports.stream().map(p -> "127.0.0.1:" + p[which]).toList());
  }

  private String masterRpcAddresses() {
    return String.join(",", masters.stream().map(m -> "127.0.0.1:" + m.rpc()).toList());
  }

  /** A configuration for clients of this cluster. */
  public Configuration clientConf() {
    Configuration conf = new Configuration();
    conf.set(CommonKeys.HOME, dir.toString());
    conf.set(CommonKeys.MASTER_RPC_ADDRESSES, masterRpcAddresses());
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "30s");
    conf.set(UserKeys.RPC_TIMEOUT, "5s");
    return conf;
  }

  private ForkedCluster startAll() throws IOException, InterruptedException {
    try {
      for (Slot m : masters) {
        m.process().start();
      }
      for (Slot m : masters) {
        m.process().awaitReady(spec.startTimeout);
      }
      for (Slot w : workers) {
        w.process().start();
      }
      for (Slot w : workers) {
        w.process().awaitReady(spec.startTimeout);
      }
      return this;
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  public Path dir() {
    return dir;
  }

  public Path ufsRoot() {
    return dir.resolve("ufs");
  }

  public int masterCount() {
    return masters.size();
  }

  public ForkedProcess master(int i) {
    return masters.get(i).process();
  }

  public HostPort masterRpc(int i) {
    return new HostPort("127.0.0.1", masters.get(i).rpc());
  }

  public HostPort masterJournal(int i) {
    return new HostPort("127.0.0.1", masters.get(i).second());
  }

  public int masterWebPort(int i) {
    return masters.get(i).web();
  }

  public ForkedProcess worker(int j) {
    return workers.get(j).process();
  }

  /** The worker's identity in the cluster, "host:rpcPort". */
  public String workerId(int j) {
    return "127.0.0.1:" + workers.get(j).rpc();
  }

  public int workerWebPort(int j) {
    return workers.get(j).web();
  }

  /** Restarts (or starts) a process with its own configuration and waits until it is ready. */
  public void restart(ForkedProcess p) throws IOException, InterruptedException {
    p.start();
    p.awaitReady(spec.startTimeout);
  }

  /** What master {@code i} says of itself, if it answers. */
  public Optional<MasterStatus> status(int i) {
    HostPort a = masterRpc(i);
    ManagedChannel ch;
    synchronized (channels) {
      ch = channels.computeIfAbsent(a, Channels::open);
    }
    try {
      return Optional.of(
          MasterServiceGrpc.newBlockingStub(ch)
              .withDeadlineAfter(2, TimeUnit.SECONDS)
              .getMasterStatus(GetMasterStatusRequest.getDefaultInstance()));
    } catch (StatusRuntimeException e) {
      return Optional.empty();
    }
  }

  /** The index of the leading master, waiting for one to be elected. */
  public int awaitLeader(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      for (int i = 0; i < masters.size(); i++) {
        if (master(i).isAlive() && status(i).map(s -> s.getRole().equals("LEADER")).orElse(false)) {
          return i;
        }
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("no master leads after " + timeout);
  }

  /**
   * A process in this cluster's folder, with this cluster's classpath and JVM options, not started.
   */
  public ForkedProcess process(String name, String mainClass, Map<String, String> conf) {
    return process(name, mainClass, conf, List.of());
  }

  /** Like {@link #process(String, String, Map)}, with arguments of the process's own. */
  public ForkedProcess process(
      String name, String mainClass, Map<String, String> conf, List<String> args) {
    return new ForkedProcess(name, mainClass, spec.classpath, spec.jvmOptions, conf, dir, args);
  }

  /** The -D settings a client process of this cluster needs. */
  public Map<String, String> clientProperties() {
    Map<String, String> props = new java.util.LinkedHashMap<>();
    clientConf().explicitSettings().forEach((k, v) -> props.put(k, v.value()));
    return props;
  }

  /** Ports for one more master: rpc, journal, web. */
  public static int[] newMasterPorts() {
    return new int[] {freePort(), freePort(), freePort()};
  }

  /** The ports of every master, in order: rpc, journal, web. */
  public List<int[]> masterPorts() {
    return masters.stream().map(m -> new int[] {m.rpc(), m.second(), m.web()}).toList();
  }

  @Override
  public void close() {
    for (Slot s : workers) {
      stopQuietly(s.process());
    }
    for (Slot s : masters) {
      stopQuietly(s.process());
    }
    synchronized (channels) {
      channels.values().forEach(Channels::close);
      channels.clear();
    }
    if (spec.dir == null && !spec.keep) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static void stopQuietly(ForkedProcess p) {
    try {
      p.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static int freePort() {
    return FreePorts.next();
  }

  /** What to start. */
  public static final class Builder {
    private int masters = 1;
    private int workers = 1;
    private String classpath = System.getProperty("java.class.path");
    private List<String> jvmOptions =
        List.of(
            "-Xmx256m",
            "-XX:MaxDirectMemorySize=256m",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Xshare:auto");
    private Path dir;
    private boolean keep;
    private Duration startTimeout = Duration.ofSeconds(60);
    private boolean domainSockets;
    private String ssdQuota;
    private final Map<String, String> conf = new LinkedHashMap<>();

    public Builder masters(int n) {
      this.masters = n;
      return this;
    }

    public Builder workers(int n) {
      this.workers = n;
      return this;
    }

    /** The JVMs' classpath; by default this JVM's. */
    public Builder classpath(String cp) {
      this.classpath = cp;
      return this;
    }

    public Builder jvmOptions(List<String> options) {
      this.jvmOptions = List.copyOf(options);
      return this;
    }

    /** Logs go to {@code <name>.log} in the work folder, as this log4j2 configuration says. */
    public Builder log4jConfig(Path config) {
      List<String> options = new ArrayList<>(jvmOptions);
      options.add("-Dlog4j2.configurationFile=" + config.toAbsolutePath());
      this.jvmOptions = List.copyOf(options);
      return this;
    }

    /** Work folder (kept after close); by default a temporary folder, deleted on close. */
    public Builder dir(Path d) {
      this.dir = d;
      return this;
    }

    /** Keep the temporary folder (logs, journals) after close, for a post-mortem. */
    public Builder keep(boolean k) {
      this.keep = k;
      return this;
    }

    public Builder property(ConfKey<?> key, String value) {
      conf.put(key.name(), value);
      return this;
    }

    /** Every worker also serves on a domain socket of its own in the work folder. */
    public Builder domainSockets() {
      this.domainSockets = true;
      return this;
    }

    /** Every worker gets an SSD cache folder of its own in the work folder, with this quota. */
    public Builder ssd(String quota) {
      this.ssdQuota = quota;
      return this;
    }

    public ForkedCluster start() throws IOException, InterruptedException {
      return new ForkedCluster(this).startAll();
    }
  }
}
