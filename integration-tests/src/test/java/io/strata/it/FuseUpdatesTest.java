package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.strata.fuse.FuseProcess;
import io.strata.testkit.MiniCluster;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files opened for update on a mount of a local folder (issue 24): random writes, truncates and
 * reads checked against a model of the bytes; and SQLite, whose database changed by a few thousand
 * transactions, each committed with its journal and fsync, passes SQLite's own integrity check and
 * holds what was committed, read back through the mount, through a new mount, and in the
 * under-storage directly.
 */
class FuseUpdatesTest {
  private static final int TRANSACTIONS = 2000;

  @TempDir Path dir;

  @Test
  void aDatabaseChangedByThousandsOfTransactions_passesItsIntegrityCheck() throws Exception {
    FuseHost.assumeMountable();
    assumeThat(FuseHost.onPath("sqlite3"))
        .as("this test needs the sqlite3 shell (apt-get install sqlite3)")
        .isTrue();
    Path script = dir.resolve("changes.sql");
    long expectedSum = writeScript(script, new Random(24), TRANSACTIONS);
    try (MiniCluster cluster = MiniCluster.builder().start()) {
      Files.createDirectories(cluster.ufsRoot().resolve("db"));
      Path mnt = Files.createDirectories(dir.resolve("mnt"));
      try (FuseProcess fuse = mount(cluster, mnt)) {
        assertThat(fuse.notReadyReason()).isEmpty();
        String out = sqlite(mnt.resolve("t.db"), ".read " + script);
        assertThat(out).as("the script's own output").isEmpty();
        assertThat(sqlite(mnt.resolve("t.db"), "PRAGMA integrity_check;")).isEqualTo("ok\n");
        assertThat(sqlite(mnt.resolve("t.db"), "SELECT sum(v) FROM t;"))
            .isEqualTo(expectedSum + "\n");
      }
      // A new mount: what it reads was in the under-storage, not in the last one's memory.
      try (FuseProcess fuse = mount(cluster, mnt)) {
        assertThat(fuse.notReadyReason()).isEmpty();
        assertThat(sqlite(mnt.resolve("t.db"), "PRAGMA integrity_check;")).isEqualTo("ok\n");
        assertThat(sqlite(mnt.resolve("t.db"), "SELECT sum(v) FROM t;"))
            .isEqualTo(expectedSum + "\n");
      }
      Path inStore = cluster.ufsRoot().resolve("db/t.db");
      assertThat(sqlite(inStore, "PRAGMA integrity_check;")).isEqualTo("ok\n");
      assertThat(sqlite(inStore, "SELECT sum(v) FROM t;")).isEqualTo(expectedSum + "\n");
      assertThat(cluster.ufsRoot().resolve("db/t.db-journal")).doesNotExist();
    }
  }

  @Test
  void randomWritesTruncatesAndReads_matchAModelOfTheBytes() throws Exception {
    FuseHost.assumeMountable();
    try (MiniCluster cluster = MiniCluster.builder().start()) {
      Files.createDirectories(cluster.ufsRoot().resolve("db"));
      Path mnt = Files.createDirectories(dir.resolve("mnt"));
      try (FuseProcess fuse = mount(cluster, mnt)) {
        assertThat(fuse.notReadyReason()).isEmpty();
        for (long seed = 1; seed <= 3; seed++) {
          assertThat(RandomWrites.run(mnt.resolve("r" + seed), seed, 400)).isGreaterThan(100);
        }
        // A shared writable mapping: its stores land in the file.
        Path mapped = mnt.resolve("mapped.bin");
        Files.write(mapped, new byte[1 << 16]);
        try (FileChannel ch =
            FileChannel.open(mapped, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
          MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 1 << 16);
          map.put(40_000, (byte) 7).put(100, (byte) 9);
          map.force();
        }
        byte[] back = Files.readAllBytes(cluster.ufsRoot().resolve("db/mapped.bin"));
        assertThat(back[40_000]).isEqualTo((byte) 7);
        assertThat(back[100]).isEqualTo((byte) 9);
      }
    }
  }

  private static FuseProcess mount(MiniCluster cluster, Path mnt) throws Exception {
    return FuseHost.mount(cluster.clientConf(), mnt, "/db");
  }

  /**
   * Inserts, updates and deletes over 200 keys, one transaction each; returns the sum of the values
   * left, as a model of the table computes it.
   */
  static long writeScript(Path script, Random r, int transactions) throws Exception {
    long[] model = new long[200];
    boolean[] present = new boolean[200];
    StringBuilder sql =
        new StringBuilder("CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER, pad);\n");
    for (int i = 0; i < transactions; i++) {
      int k = r.nextInt(model.length);
      long v = r.nextInt(1_000_000);
      sql.append("BEGIN;\n");
      if (r.nextInt(5) == 0) {
        sql.append("DELETE FROM t WHERE k = ").append(k).append(";\n");
        present[k] = false;
      } else {
        sql.append("INSERT OR REPLACE INTO t VALUES (")
            .append(k)
            .append(", ")
            .append(v)
            .append(", randomblob(")
            .append(r.nextInt(2000))
            .append("));\n");
        model[k] = v;
        present[k] = true;
      }
      sql.append("COMMIT;\n");
    }
    Files.writeString(script, sql, StandardCharsets.UTF_8);
    long sum = 0;
    for (int k = 0; k < model.length; k++) {
      sum += present[k] ? model[k] : 0;
    }
    return sum;
  }

  static String sqlite(Path db, String command) throws Exception {
    Path log = Files.createTempFile("sqlite", ".log");
    try {
      Process p =
          new ProcessBuilder("sqlite3", "-bail", db.toString(), command)
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionError("sqlite3 " + command + " did not finish within 5 minutes");
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as("sqlite3 %s: %s", List.of(db, command), out).isZero();
      return out;
    } finally {
      Files.deleteIfExists(log);
    }
  }
}
