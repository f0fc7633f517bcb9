package io.strata.testkit;

import static org.awaitility.Awaitility.await;

import io.strata.client.FileSystem;
import io.strata.core.conf.Configuration;
import io.strata.master.MasterProcess;
import io.strata.worker.WorkerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Real masters and workers in this JVM, on 127.0.0.1 with ephemeral ports and temporary folders:
 * {@code try (var cluster = MiniCluster.builder().workers(2).start()) { ... }}. The UFS is a
 * temporary folder, {@link #ufsRoot()}.
 */
public final class MiniCluster implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final ClusterLayout layout;
  private final List<MasterProcess> masters = new ArrayList<>();
  private final List<WorkerProcess> workers = new ArrayList<>();

  private MiniCluster(Builder b) throws IOException {
    Path dir = Files.createTempDirectory("strata-minicluster");
    List<ClusterLayout.MasterPorts> ports = new ArrayList<>();
    for (int i = 0; i < b.masters; i++) {
      // Raft peers list each other: their ports are chosen now; web ports can be any.
      ports.add(new ClusterLayout.MasterPorts(FreePorts.next(), FreePorts.next(), 0));
    }
    this.layout = new ClusterLayout(dir, ports, true, b.domainSockets, b.ssdQuota, b.overrides);
    Files.createDirectories(layout.ufsRoot());
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Configuration for clients of this cluster. */
  public Configuration clientConf() {
    return ClusterLayout.configuration(layout.client());
  }

  private MiniCluster startAll(int workerCount) throws Exception {
    try {
      for (int i = 0; i < layout.masters().size(); i++) {
        MasterProcess m = new MasterProcess(ClusterLayout.configuration(layout.master(i)));
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
    Configuration conf =
        ClusterLayout.configuration(layout.worker(workers.size(), ClusterLayout.WorkerPorts.ANY));
    WorkerProcess w = new WorkerProcess(conf);
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
    return layout.ssdDir(i);
  }

  /** The domain socket of worker {@code i} (see {@link Builder#domainSockets}). */
  public Path domainSocket(int i) {
    return layout.domainSocket(i);
  }

  public Path ufsRoot() {
    return layout.ufsRoot();
  }

  /** The Raft port of master {@code i}. */
  public int journalPort(int i) {
    return layout.masters().get(i).journal();
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
    Folders.deleteTree(layout.dir());
  }

  /** How many masters and workers, and configuration every process gets. */
  public static final class Builder extends ClusterBuilder<Builder> {
    private Builder() {}

    public MiniCluster start() throws Exception {
      return new MiniCluster(this).startAll(workers);
    }
  }
}
