package io.strata.testkit.integrity;

import io.strata.client.FileSystem;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.proto.UpdateConfRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.core.util.FuseConnections;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntSupplier;

/**
 * What the integrity checker does to the cluster while it reads and writes: kills (SIGKILL) and
 * restarts workers and the master, drops cached pages, changes page-store and metadata keys on the
 * running cluster, sends workers hostile READs ({@link HostileReads}), and kills and restarts the
 * FUSE mounts it is given (the restart clears the dead mount the kill left). One step at a time, a
 * moment apart.
 */
public final class Chaos {
  private final ForkedCluster cluster;
  private final FileSystem fs;
  private final List<String> paths;
  private final MasterClient master;
  private final HostileReads hostile;
  private final IntSupplier pauseMillis;
  private final Map<ForkedProcess, Path> mounts;
  private final List<Integer> deck = new ArrayList<>();

  /**
   * @param pauseMillis how long to wait before each step
   */
  public Chaos(ForkedCluster cluster, FileSystem fs, List<String> paths, IntSupplier pauseMillis) {
    this(cluster, fs, paths, pauseMillis, Map.of());
  }

  /**
   * Like {@link #Chaos(ForkedCluster, FileSystem, List, IntSupplier)}, with the cluster's FUSE
   * {@code mounts} (processes of {@link ForkedCluster#mountFuse}, by mount point) killed and
   * restarted too.
   */
  public Chaos(
      ForkedCluster cluster,
      FileSystem fs,
      List<String> paths,
      IntSupplier pauseMillis,
      Map<ForkedProcess, Path> mounts) {
    this.cluster = cluster;
    this.fs = fs;
    this.paths = paths;
    this.master = new MasterClient(fs.conf());
    this.hostile = new HostileReads(cluster);
    this.pauseMillis = pauseMillis;
    this.mounts = new LinkedHashMap<>(mounts);
  }

  /** How many kinds of step there are: each comes at least once in any run of this many steps. */
  public int kinds() {
    return mounts.isEmpty() ? 6 : 7;
  }

  void step(Random r, Report report) throws Exception {
    Thread.sleep(pauseMillis.getAsInt());
    String path = paths.get(r.nextInt(paths.size()));
    if (deck.isEmpty()) {
      // Every kind once in each round of kinds() steps, in a seeded order: a short run still does
      // them all.
      for (int kind = 0; kind < kinds(); kind++) {
        deck.add(kind);
      }
      Collections.shuffle(deck, r);
    }
    switch (deck.remove(deck.size() - 1)) {
      case 0 -> restart(cluster.worker(r.nextInt(cluster.workerCount())), r);
      case 1 -> restart(cluster.master(r.nextInt(cluster.masterCount())), r);
      case 2 -> fs.free(path);
      case 3 -> updateConf(WorkerKeys.ADMISSION.name(), r.nextBoolean() ? "ALWAYS" : "SECOND_MISS");
      case 4 -> updateConf(WorkerKeys.METADATA_TTL.name(), (1 + r.nextInt(5)) + "s");
      case 5 -> hostile.send(r, fs.getStatus(path), r.nextInt(cluster.workerCount()));
      default -> restartMount(new ArrayList<>(mounts.keySet()).get(r.nextInt(mounts.size())), r);
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

  /**
   * A FUSE mount's process killed, then started again on its mount point. One killed while a thread
   * of it was blocked in the kernel on the mount (an entry invalidation waiting for a folder's lock
   * that a caller of the mount holds) cannot end, nor its mount answer, until the connection is
   * aborted: what the new mount does on its own after 5 s (MountPoint); done here first, as an
   * operator's {@code strata fuse unmount} would, so that the old process is gone before the same
   * process object starts again.
   */
  private void restartMount(ForkedProcess p, Random r) throws Exception {
    if (!p.killWithin(Duration.ofSeconds(5))) {
      FuseConnections.abort(mounts.get(p));
      p.kill();
    }
    Thread.sleep(200 + r.nextInt(800));
    cluster.restart(p);
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
