package io.strata.testkit.integrity;

import io.strata.client.FileSystem;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.UpdateConfRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.IntSupplier;

/**
 * What the integrity checker does to the cluster while it reads and writes: kills (SIGKILL) and
 * restarts workers and the master, drops cached pages, changes page-store and metadata keys on the
 * running cluster, and sends workers hostile READs ({@link HostileReads}). One step at a time, a
 * moment apart.
 */
public final class Chaos {
  private final ForkedCluster cluster;
  private final FileSystem fs;
  private final List<String> paths;
  private final MasterClient master;
  private final HostileReads hostile;
  private final IntSupplier pauseMillis;
  private final List<Integer> deck = new ArrayList<>();

  /**
   * @param pauseMillis how long to wait before each step
   */
  public Chaos(ForkedCluster cluster, FileSystem fs, List<String> paths, IntSupplier pauseMillis) {
    this.cluster = cluster;
    this.fs = fs;
    this.paths = paths;
    this.master = new MasterClient(fs.conf());
    this.hostile = new HostileReads(cluster);
    this.pauseMillis = pauseMillis;
  }

  void step(Random r, Report report) throws Exception {
    Thread.sleep(pauseMillis.getAsInt());
    String path = paths.get(r.nextInt(paths.size()));
    if (deck.isEmpty()) {
      // Every kind once in each six steps, in a seeded order: a short run still does them all.
      deck.addAll(List.of(0, 1, 2, 3, 4, 5));
      Collections.shuffle(deck, r);
    }
    switch (deck.remove(deck.size() - 1)) {
      case 0 -> restart(cluster.worker(r.nextInt(cluster.workerCount())), r);
      case 1 -> restart(cluster.master(r.nextInt(cluster.masterCount())), r);
      case 2 -> fs.free(path);
      case 3 -> updateConf(WorkerKeys.ADMISSION.name(), r.nextBoolean() ? "ALWAYS" : "SECOND_MISS");
      case 4 -> updateConf(WorkerKeys.METADATA_TTL.name(), (1 + r.nextInt(5)) + "s");
      default -> hostile.send(r, fs.getStatus(path), r.nextInt(cluster.workerCount()));
    }
    report.chaos();
  }

  /** What every process of the cluster is doing (for a run whose threads did not stop). */
  String threadDumps() {
    try {
      return cluster.threadDumps();
    } catch (java.io.IOException e) {
      return "(no thread dumps: " + e + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(no thread dumps: interrupted)";
    }
  }

  /** SIGKILL, a moment down, then the same process again at the same address. */
  private void restart(ForkedProcess p, Random r) throws Exception {
    p.kill();
    Thread.sleep(200 + r.nextInt(800));
    cluster.restart(p);
  }

  private void updateConf(String key, String value) {
    master.call(
        "updateConf",
        stub -> stub.updateConf(UpdateConfRequest.newBuilder().putValues(key, value).build()));
  }
}
