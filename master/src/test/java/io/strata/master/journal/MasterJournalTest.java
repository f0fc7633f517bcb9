package io.strata.master.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.ufs.Mount;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real single-peer Ratis group on loopback, restarted from its own journal folder. */
class MasterJournalTest {
  @TempDir Path folder;

  private Configuration conf(int port) {
    Configuration c = new Configuration();
    c.set(CommonKeys.MASTER_HOSTNAME, "127.0.0.1");
    c.set(MasterKeys.BIND_HOST, "127.0.0.1");
    c.set(MasterKeys.JOURNAL_PORT, String.valueOf(port));
    c.set(MasterKeys.JOURNAL_FOLDER, folder.toString());
    c.set(MasterKeys.CHECKPOINT_PERIOD_ENTRIES, "5");
    return c;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static MasterJournal start(Configuration conf) throws IOException {
    MasterJournal j = new MasterJournal(conf, MasterPeers.fromConf(conf), new MasterStateMachine());
    j.start();
    await().atMost(Duration.ofSeconds(30)).until(j::isLeaderReady);
    return j;
  }

  @Test
  void restart_restoresStateFromSnapshotAndLog() throws Exception {
    int port = freePort();
    String digest;
    ClusterView view;
    try (MasterJournal j = start(conf(port))) {
      j.submit(new MasterCommand.AddMount(new Mount(StrataPath.ROOT, "file:///srv", false), false))
          .orThrow();
      for (int i = 1; i <= 12; i++) {
        WorkerAddress a = WorkerAddress.newBuilder().setHost("w").setRpcPort(i).build();
        j.submit(new MasterCommand.RegisterWorker(a, i)).orThrow();
      }
      j.submit(new MasterCommand.WorkerLost("w:3", 99)).orThrow();
      view = j.readView();
      digest = j.stateMachine().read(s -> s.digest()).toString();
      assertThat(view.getWorkersCount()).isEqualTo(12);
    }
    try (Stream<Path> files = Files.walk(folder)) {
      List<String> names = files.map(p -> p.getFileName().toString()).toList();
      assertThat(names).anyMatch(n -> n.matches("snapshot\\.\\d+_\\d+"));
      assertThat(names).anyMatch(n -> n.matches("snapshot\\.\\d+_\\d+\\.md5"));
    }
    try (MasterJournal j = start(conf(port))) {
      String restored = j.stateMachine().read(s -> s.digest());
      assertThat(restored).isEqualTo(digest);
      assertThat(j.readView()).isEqualTo(view);
    }
  }

  @Test
  void aDamagedNewestSnapshot_isSetAside_andTheOlderOnePlusTheLogRestoreTheState()
      throws Exception {
    int port = freePort();
    String digest = journalWithSnapshots(port);
    List<Path> snapshots = snapshotsOldestFirst();
    assertThat(snapshots).as("an older snapshot is kept").hasSizeGreaterThanOrEqualTo(2);
    Path newest = snapshots.get(snapshots.size() - 1);
    byte[] bytes = Files.readAllBytes(newest);
    bytes[bytes.length / 2] ^= 0x5A;
    Files.write(newest, bytes);
    try (MasterJournal j = start(conf(port))) {
      String restored = j.stateMachine().read(s -> s.digest());
      assertThat(restored).isEqualTo(digest);
    }
    assertThat(newest.resolveSibling(newest.getFileName() + ".corrupt")).exists();
  }

  /**
   * What a master killed while snapshotting leaves, at each step of {@link SnapshotFiles#write}: a
   * half-written temporary file (killed while writing), and a newest snapshot without its MD5 (as
   * earlier versions, which saved the MD5 after the rename, left it). It starts from the good
   * snapshot before them, replays the log, and removes the half-written file.
   */
  @Test
  void aMasterKilledWhileSnapshotting_startsFromAGoodSnapshot_andClearsWhatWasHalfWritten()
      throws Exception {
    int port = freePort();
    String digest = journalWithSnapshots(port);
    List<Path> snapshots = snapshotsOldestFirst();
    Path newest = snapshots.get(snapshots.size() - 1);
    Files.delete(newest.resolveSibling(newest.getFileName() + ".md5"));
    Path halfWritten = newest.resolveSibling("snapshot.1_99999.tmp");
    Files.write(halfWritten, java.util.Arrays.copyOf(Files.readAllBytes(newest), 7));
    Path halfWrittenMd5 = newest.resolveSibling("snapshot.1_99998.md5.tmp");
    Files.writeString(halfWrittenMd5, "0123");
    try (MasterJournal j = start(conf(port))) {
      String restored = j.stateMachine().read(s -> s.digest());
      assertThat(restored).isEqualTo(digest);
    }
    assertThat(halfWritten).doesNotExist();
    assertThat(halfWrittenMd5).doesNotExist();
  }

  /**
   * While a master runs, Ratis' log appenders ask for the latest snapshot whenever none is known,
   * racing the master writing one: what does not verify is skipped, never moved away. (A leader
   * once set aside the snapshot it was finishing and had nothing to send a joining master.)
   */
  @Test
  void aSnapshotThatDoesNotVerifyYet_isSkippedButLeftInPlace_whileTheMasterRuns() throws Exception {
    try (MasterJournal j = start(conf(freePort()))) {
      for (int i = 1; i <= 12; i++) {
        WorkerAddress a = WorkerAddress.newBuilder().setHost("w").setRpcPort(i).build();
        j.submit(new MasterCommand.RegisterWorker(a, i)).orThrow();
      }
      List<Path> snapshots = snapshotsOldestFirst();
      Path newest = snapshots.get(snapshots.size() - 1);
      Path beingWritten = newest.resolveSibling("snapshot.1_99999");
      Files.copy(newest, beingWritten);

      var latest = j.stateMachine().getStateMachineStorage();
      var found = ((VerifiedSnapshotStorage) latest).loadLatestSnapshot();

      // The newest that verifies: the one listed above, or one the master wrote since.
      assertThat(found.getFile().getPath()).isNotEqualTo(beingWritten).exists();
      assertThat(found.getIndex()).isGreaterThanOrEqualTo(indexOf(newest));
      assertThat(beingWritten).exists();
      assertThat(beingWritten.resolveSibling("snapshot.1_99999.corrupt")).doesNotExist();
    }
  }

  private static long indexOf(Path snapshot) {
    String name = snapshot.getFileName().toString();
    return Long.parseLong(name.substring(name.lastIndexOf('_') + 1));
  }

  /**
   * Journals 23 workers (with a snapshot every 5 entries, several snapshots) on a master that then
   * stops; the digest of its state.
   */
  private String journalWithSnapshots(int port) throws IOException {
    try (MasterJournal j = start(conf(port))) {
      for (int i = 1; i <= 23; i++) {
        WorkerAddress a = WorkerAddress.newBuilder().setHost("w").setRpcPort(i).build();
        j.submit(new MasterCommand.RegisterWorker(a, i)).orThrow();
      }
      return j.stateMachine().read(s -> s.digest()).toString();
    }
  }

  private List<Path> snapshotsOldestFirst() throws IOException {
    try (Stream<Path> files = Files.walk(folder)) {
      return files
          .filter(p -> p.getFileName().toString().matches("snapshot\\.\\d+_\\d+"))
          .sorted(
              java.util.Comparator.comparingLong(
                  p -> Long.parseLong(p.getFileName().toString().replaceAll(".*_", ""))))
          .toList();
    }
  }

  @Test
  void snapshots_boundTheJournal() throws Exception {
    Configuration c = conf(freePort());
    c.set(MasterKeys.CHECKPOINT_PERIOD_ENTRIES, "20");
    c.set(MasterKeys.LOG_SEGMENT_SIZE, "16KiB");
    try (MasterJournal j = start(c)) {
      WorkerAddress a = WorkerAddress.newBuilder().setHost("w").setRpcPort(1).build();
      j.submit(new MasterCommand.RegisterWorker(a, 0)).orThrow();
      for (int i = 0; i < 600; i++) {
        MasterCommand change =
            i % 2 == 0
                ? new MasterCommand.DecommissionWorker("w:1", i)
                : new MasterCommand.RecommissionWorker("w:1", i);
        j.submit(change).orThrow();
      }
    }
    long bytes;
    try (Stream<Path> files = Files.walk(folder)) {
      bytes = files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
    // Unpurged, 600 entries take about 36 KiB.
    assertThat(bytes).isLessThan(20 * 1024);
  }

  @Test
  void refusedCommand_changesNothingAndSaysWhy() throws Exception {
    try (MasterJournal j = start(conf(freePort()))) {
      var result = j.submit(new MasterCommand.RemoveMount("/"));
      assertThat(result.ok()).isFalse();
      assertThat(result.message()).contains("root mount cannot be removed");
      assertThat(j.readView().getMountsCount()).isZero();
      assertThat(j.leaderRpcAddress()).contains("127.0.0.1:7700");
    }
  }
}
