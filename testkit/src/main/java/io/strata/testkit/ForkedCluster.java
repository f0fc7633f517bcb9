package io.strata.testkit;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.strata.core.conf.Configuration;
import io.strata.core.net.HostPort;
import io.strata.core.proto.GetMasterStatusRequest;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.proto.MasterStatus;
import io.strata.core.rpc.Channels;
import io.strata.core.security.Credentials;
import io.strata.testkit.ClusterLayout.MasterPorts;
import io.strata.testkit.ClusterLayout.WorkerPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Real masters and workers, each in its own JVM, on 127.0.0.1: what fault tests kill with SIGKILL
 * and what {@code strata bench} measures. Every port is chosen before start and kept across
 * restarts, so a restarted process comes back at the same address (a worker keeps its identity).
 * The UFS is a folder of the work directory, {@link #ufsRoot()}.
 */
public final class ForkedCluster implements AutoCloseable {
  public static final String MASTER_MAIN = "io.strata.master.MasterProcess";
  public static final String WORKER_MAIN = "io.strata.worker.WorkerProcess";
  public static final String FUSE_MAIN = "io.strata.fuse.FuseProcess";

  /**
   * Added to a master's JVM options whatever the builder was given, as {@code
   * bin/strata-process.sh} starts masters: the C1 compiler only. A master coordinates and serves no
   * bytes; C2 would spend more CPU compiling its code than running it, beside the workers it
   * coordinates (operations.md).
   */
  public static final List<String> MASTER_JVM_OPTIONS = List.of("-XX:TieredStopAtLevel=1");

  private final Builder spec;
  private final ClusterLayout layout;
  private final List<ForkedProcess> masters = new ArrayList<>();
  private final List<WorkerPorts> workerPorts = new ArrayList<>();
  private final List<ForkedProcess> workers = new ArrayList<>();

  /** Every process made: masters, workers and the callers' own ({@link #process}). */
  private final List<ForkedProcess> processes = new java.util.concurrent.CopyOnWriteArrayList<>();

  private final Map<HostPort, ManagedChannel> channels = new LinkedHashMap<>();

  /**
   * Kills every process of the cluster when this JVM ends without closing it (a bench stopped with
   * Ctrl-C or SIGTERM): they would otherwise live on, holding their ports, memory and folders.
   */
  private final Thread orphanGuard = new Thread(this::killAll, "forked-cluster-orphan-guard");

  private ForkedCluster(Builder spec) throws IOException {
    this.spec = spec;
    Path dir = spec.dir != null ? spec.dir : Files.createTempDirectory("strata-forked");
    List<MasterPorts> ports = new ArrayList<>();
    for (int i = 0; i < spec.masters; i++) {
      ports.add(MasterPorts.free());
    }
    this.layout =
        new ClusterLayout(dir, ports, true, spec.domainSockets, spec.ssdQuota, spec.overrides);
    Files.createDirectories(layout.ufsRoot());
    for (int i = 0; i < spec.masters; i++) {
      masters.add(
          process("master-" + i, MASTER_MAIN, layout.master(i), List.of(), MASTER_JVM_OPTIONS));
    }
    List<String> workerLauncher =
        spec.workerAccount == null ? List.of() : openTo(spec.workerAccount);
    for (int j = 0; j < spec.workers; j++) {
      WorkerPorts p = WorkerPorts.free();
      workerPorts.add(p);
      if (spec.workerAccount != null) {
        for (Path own : List.of(layout.stateFolder(j), layout.ssdDir(j))) {
          Files.createDirectories(own);
          chown(own, spec.workerAccount);
        }
      }
      workers.add(
          register(
              new ForkedProcess(
                  "worker-" + j,
                  WORKER_MAIN,
                  spec.classpath,
                  spec.jvmOptions,
                  layout.worker(j, p),
                  layout.dir(),
                  List.of(),
                  workerLauncher)));
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The configuration of master {@code i} of a group of masters on {@code ports}. */
  public Map<String, String> masterConf(int i, List<MasterPorts> ports) {
    return layout.master(i, ports);
  }

  /** A configuration for clients of this cluster. */
  public Configuration clientConf() {
    return ClusterLayout.configuration(layout.client());
  }

  /** The -D settings a client process of this cluster needs. */
  public Map<String, String> clientProperties() {
    return layout.client();
  }

  private ForkedCluster startAll() throws IOException, InterruptedException {
    Runtime.getRuntime().addShutdownHook(orphanGuard);
    try {
      for (ForkedProcess m : masters) {
        m.start();
      }
      for (ForkedProcess m : masters) {
        m.awaitReady(spec.startTimeout);
      }
      for (ForkedProcess w : workers) {
        w.start();
      }
      for (ForkedProcess w : workers) {
        w.awaitReady(spec.startTimeout);
      }
      return this;
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    }
  }

  public Path dir() {
    return layout.dir();
  }

  public Path ufsRoot() {
    return layout.ufsRoot();
  }

  public int masterCount() {
    return masters.size();
  }

  public ForkedProcess master(int i) {
    return masters.get(i);
  }

  /** The ports of every master, in order. */
  public List<MasterPorts> masterPorts() {
    return layout.masters();
  }

  public HostPort masterRpc(int i) {
    return new HostPort("127.0.0.1", masterPorts().get(i).rpc());
  }

  public HostPort masterJournal(int i) {
    return new HostPort("127.0.0.1", masterPorts().get(i).journal());
  }

  public int masterWebPort(int i) {
    return masterPorts().get(i).web();
  }

  public ForkedProcess worker(int j) {
    return workers.get(j);
  }

  /** The worker's identity in the cluster, "host:rpcPort". */
  public String workerId(int j) {
    return "127.0.0.1:" + workerPorts.get(j).rpc();
  }

  public int workerCount() {
    return workers.size();
  }

  public int workerDataPort(int j) {
    return workerPorts.get(j).data();
  }

  public int workerWebPort(int j) {
    return workerPorts.get(j).web();
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
      ch = channels.computeIfAbsent(a, t -> Channels.open(t, Credentials.of(clientConf())));
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
    return process(name, mainClass, conf, args, List.of());
  }

  /**
   * Like {@link #process(String, String, Map, List)}, with JVM options of its own after the
   * cluster's (a process whose scripts give it other defaults: the S3 endpoint's collector).
   */
  public ForkedProcess process(
      String name,
      String mainClass,
      Map<String, String> conf,
      List<String> args,
      List<String> moreJvmOptions) {
    List<String> jvm = new ArrayList<>(spec.jvmOptions);
    jvm.addAll(moreJvmOptions);
    return register(
        new ForkedProcess(name, mainClass, spec.classpath, jvm, conf, layout.dir(), args));
  }

  private ForkedProcess register(ForkedProcess p) {
    processes.add(p);
    return p;
  }

  /**
   * Opens the work folder to {@code account} (sticky and open to all, as /tmp: it writes its ready
   * file, log and socket there) and returns what runs a process as it.
   */
  private List<String> openTo(Account account) throws IOException {
    Files.setAttribute(layout.dir(), "unix:mode", 01777);
    return List.of(
        "setpriv", "--reuid=" + account.uid(), "--regid=" + account.gid(), "--clear-groups");
  }

  private static void chown(Path p, Account account) throws IOException {
    Files.setAttribute(p, "unix:uid", account.uid());
    Files.setAttribute(p, "unix:gid", account.gid());
  }

  /** A host account: a uid and its primary gid. */
  public record Account(int uid, int gid) {}

  /**
   * A FUSE mount of {@code folder} at {@code mountPoint}, in a process of its own, started and
   * ready; fails with the process's last words if it cannot mount (no libfuse 2 or fusermount,
   * say).
   */
  public ForkedProcess mountFuse(Path mountPoint, String folder)
      throws IOException, InterruptedException {
    return mountFuse(mountPoint, folder, Map.of());
  }

  /** Like {@link #mountFuse(Path, String)}, with client keys of the mount's own on top. */
  public ForkedProcess mountFuse(Path mountPoint, String folder, Map<String, String> conf)
      throws IOException, InterruptedException {
    return mountFuse("fuse", mountPoint, folder, conf, "");
  }

  /**
   * Like {@link #mountFuse(Path, String, Map)}: a mount process named {@code name} (its files in
   * the cluster's folder are named after it), with mount options as {@code -o} takes them (none if
   * empty), e.g. {@code ro,attr_timeout=60}.
   */
  public ForkedProcess mountFuse(
      String name, Path mountPoint, String folder, Map<String, String> conf, String options)
      throws IOException, InterruptedException {
    Map<String, String> all = new LinkedHashMap<>(clientProperties());
    all.putAll(conf);
    List<String> args = new ArrayList<>(List.of(mountPoint.toString(), folder));
    if (!options.isEmpty()) {
      args.addAll(List.of("-o", options));
    }
    ForkedProcess fuse = process(name, FUSE_MAIN, all, args);
    restart(fuse);
    return fuse;
  }

  /**
   * The thread dumps of every running process of the cluster ({@link ForkedProcess#threadDump}).
   */
  public String threadDumps() throws IOException, InterruptedException {
    StringBuilder out = new StringBuilder();
    for (ForkedProcess p : processes) {
      out.append(p.threadDump());
    }
    return out.toString();
  }

  private void killAll() {
    for (ForkedProcess p : processes) {
      try {
        p.kill();
      } catch (InterruptedException | RuntimeException e) {
        // The JVM is going down: the others still get their SIGKILL.
      }
    }
  }

  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(orphanGuard);
    } catch (IllegalStateException e) {
      // Closed by another shutdown hook while the JVM goes down: the guard runs anyway.
    }
    processes.forEach(ForkedProcess::retire);
    workers.forEach(ForkedCluster::stopQuietly);
    masters.forEach(ForkedCluster::stopQuietly);
    processes.forEach(ForkedCluster::stopQuietly);
    synchronized (channels) {
      channels.values().forEach(Channels::close);
      channels.clear();
    }
    if (spec.dir == null && !spec.keep) {
      Folders.deleteTree(layout.dir());
    }
  }

  private static void stopQuietly(ForkedProcess p) {
    try {
      p.stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** What to start, and how. */
  public static final class Builder extends ClusterBuilder<Builder> {
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
    private Account workerAccount;
    private Duration startTimeout = Duration.ofSeconds(60);

    private Builder() {}

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

    /**
     * Runs the workers as {@code account} (setpriv), as a worker installed under an account of its
     * own runs: the class path must be one that account can read (lib/ of the checkout, not a Maven
     * repository in root's 0700 home), and the work folder is opened to it.
     */
    public Builder workerAccount(Account account) {
      this.workerAccount = account;
      return this;
    }

    public Builder startTimeout(Duration timeout) {
      this.startTimeout = timeout;
      return this;
    }

    /**
     * Starts the cluster; when a process finds a port picked for it taken, starts it again on other
     * ports, up to {@value #START_ATTEMPTS} times in all.
     */
    public ForkedCluster start() throws IOException, InterruptedException {
      for (int attempt = 1; ; attempt++) {
        ForkedCluster cluster = new ForkedCluster(this);
        try {
          return cluster.startAll();
        } catch (ForkedProcess.PortTaken e) {
          String holders = cluster.listenersOnItsPorts();
          if (attempt == START_ATTEMPTS) {
            throw new ForkedProcess.PortTaken(e.getMessage() + "\nsockets on its ports:" + holders);
          }
          // Who took it, for the next look at a run's output: the kernel's view, as it stands.
          System.err.printf(
              "ForkedCluster: a port was taken (attempt %d of %d), starting on others;"
                  + " sockets on its ports:%s%n",
              attempt, START_ATTEMPTS, holders);
          cluster.forgetState();
        }
      }
    }
  }

  private static final int START_ATTEMPTS = 3;

  /** The kernel's sockets on any port of this cluster's processes. */
  private String listenersOnItsPorts() {
    List<Integer> ports = new ArrayList<>();
    for (MasterPorts m : layout.masters()) {
      ports.addAll(List.of(m.rpc(), m.journal(), m.web()));
    }
    for (WorkerPorts w : workerPorts) {
      ports.addAll(List.of(w.rpc(), w.data(), w.web()));
    }
    return PortHolders.of(ports);
  }

  /**
   * Deletes what the processes of a start that failed wrote in a work folder the caller keeps:
   * journals and worker state tied to ports the next start does not use.
   */
  private void forgetState() {
    for (MasterPorts m : layout.masters()) {
      Folders.deleteTree(layout.journalFolder(m));
    }
    for (int j = 0; j < workers.size(); j++) {
      Folders.deleteTree(layout.stateFolder(j));
      Folders.deleteTree(layout.ssdDir(j));
    }
  }
}
