package io.strata.it;

import static io.strata.it.Commands.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.strata.fuse.FuseProcess;
import io.strata.it.Commands.Run;
import io.strata.testkit.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FUSE mount as a process of its own, with its direct memory bounded, under many concurrent
 * readers: what a pool that grows with the load would break. Skips where the machine cannot mount
 * FUSE.
 */
class FuseMemoryBoundTest {
  private static MiniCluster cluster;

  @TempDir Path dir;

  @BeforeAll
  static void startCluster() throws Exception {
    FuseHost.assumeMountable();
    cluster = MiniCluster.builder().start();
    byte[] big = new byte[24 << 20];
    new Random(3).nextBytes(big);
    Path data = Files.createDirectories(cluster.ufsRoot().resolve("data"));
    Files.write(data.resolve("big.bin"), big);
  }

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void manyConcurrentReaders_ofSmallAndLargeFiles_withinTheProcesssDirectMemoryBound()
      throws Exception {
    Path small = cluster.ufsRoot().resolve("data/small");
    Files.createDirectories(small);
    Random r = new Random(11);
    for (int i = 0; i < 200; i++) {
      byte[] b = new byte[1000 + r.nextInt(100_000)];
      r.nextBytes(b);
      Files.write(small.resolve("s" + i), b);
    }
    // The mount is a process of its own with 64 MiB of direct memory: connection and buffer pools
    // that grew with the load would make it fail (reads with EIO), not just use more.
    Path mnt = Files.createDirectories(dir.resolve("mnt"));
    Process forked = forkFuse(mnt, "-XX:MaxDirectMemorySize=64m");
    try {
      // 64 threads read small files whole, 8 read the large one at random places, each checking
      // every byte against the UFS, for 25 s: over 100,000 reads here, enough for a pool that grows
      // with them to pass 64 MiB.
      Run run =
          ok(
              "timeout",
              "180",
              "python3",
              "-c",
              String.join(
                  "\n",
                  "import os, random, threading, time",
                  "ufs, mnt = '" + cluster.ufsRoot().resolve("data") + "', '" + mnt + "'",
                  "names = sorted(os.listdir(ufs + '/small'))",
                  "src = {n: open(ufs + '/small/' + n, 'rb').read() for n in names}",
                  "big = open(ufs + '/big.bin', 'rb').read()",
                  "errors, reads = [], [0]",
                  "end = time.time() + 25",
                  "def guarded(body, seed):",
                  "    try: body(seed)",
                  "    except OSError as e: errors.append(str(e))",
                  "def small(seed):",
                  "    rnd = random.Random(seed)",
                  "    while time.time() < end:",
                  "        n = rnd.choice(names)",
                  "        with open(mnt + '/small/' + n, 'rb') as f:",
                  "            if f.read() != src[n]: errors.append(n)",
                  "        reads[0] += 1",
                  "def large(seed):",
                  "    rnd = random.Random(seed)",
                  "    with open(mnt + '/big.bin', 'rb') as f:",
                  "        while time.time() < end:",
                  "            off, n = rnd.randrange(len(big)), rnd.randrange(1, 1 << 20)",
                  "            f.seek(off)",
                  "            if f.read(n) != big[off:off + n]: errors.append(off)",
                  "            reads[0] += 1",
                  "ts = [threading.Thread(target=guarded, args=(small, i)) for i in range(64)]",
                  "ts += [threading.Thread(target=guarded, args=(large, i)) for i in range(8)]",
                  "[t.start() for t in ts]",
                  "[t.join() for t in ts]",
                  "print('reads', reads[0], 'errors', len(errors), errors[:3])"));
      System.out.println(run.out());
      assertThat(run.out()).containsPattern("reads [1-9][0-9]* errors 0");
      assertThat(forked.isAlive()).as("the FUSE process survived").isTrue();
    } finally {
      forked.destroy();
      assertThat(forked.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(Files.readString(Path.of("/proc/mounts"))).doesNotContain(mnt.toString());
  }

  /**
   * Starts a FUSE process of its own (this JVM's class path, the cluster's client configuration).
   */
  private Process forkFuse(Path mountPoint, String... jvmOptions) throws Exception {
    List<String> cmd =
        new java.util.ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m"));
    cmd.addAll(List.of(jvmOptions));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path")));
    var conf = cluster.clientConf();
    for (var key : io.strata.core.conf.KeyRegistry.all()) {
      if (conf.source(key) != io.strata.core.conf.Source.DEFAULT) {
        cmd.add("-D" + key.name() + "=" + conf.getText(key));
      }
    }
    Path ready = dir.resolve("fuse.ready");
    cmd.addAll(
        List.of(
            FuseProcess.class.getName(),
            "--ready-file",
            ready.toString(),
            mountPoint.toString(),
            "/data"));
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("fuse.out").toFile())
            .start();
    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(ready) || !p.isAlive());
    assertThat(p.isAlive())
        .as(
            "FUSE process started: %s",
            Files.exists(dir.resolve("fuse.out")) ? Files.readString(dir.resolve("fuse.out")) : "")
        .isTrue();
    return p;
  }
}
