package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.fuse.FuseProcess;
import io.strata.testkit.MiniCluster;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closes through the mount. A program that writes a file and meanwhile starts others: every start
 * closes, in the child, the descriptors it inherited, and the kernel tells the mount of each of
 * those closes. They publish nothing while the opener holds the file; a child the file was handed
 * to publishes it when it exits. A reader's close costs the mount no request at all.
 */
class FuseSpawnTest {
  private static MiniCluster cluster;

  @TempDir static Path dir;
  private static FuseProcess fuse;
  private static Path mnt;

  @BeforeAll
  static void mount() throws Exception {
    FuseHost.assumeMountable();
    cluster = MiniCluster.builder().start();
    Files.createDirectories(cluster.ufsRoot().resolve("w"));
    mnt = Files.createDirectories(dir.resolve("mnt"));
    fuse = FuseHost.mount(cluster.clientConf(), mnt, "/w");
  }

  @AfterAll
  static void unmount() {
    if (fuse != null) {
      fuse.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void aProgramStartedWhileAFileIsWritten_doesNotPublishItHalfWritten() throws Exception {
    byte[] half = new byte[300_000];
    Arrays.fill(half, (byte) 'a');
    Path inStore = cluster.ufsRoot().resolve("w/spawning.bin");
    try (OutputStream out = Files.newOutputStream(mnt.resolve("spawning.bin"))) {
      out.write(half);
      // The JVM's spawn closes this descriptor in the child before it runs the program.
      Process child = new ProcessBuilder("true").start();
      assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(inStore).as("published by the child's close").doesNotExist();
      out.write(half);
    }
    byte[] whole = Files.readAllBytes(inStore);
    assertThat(whole).hasSize(2 * half.length);
    assertThat(Files.readAllBytes(mnt.resolve("spawning.bin"))).isEqualTo(whole);
  }

  @Test
  void aFileHandedToAChild_isPublishedWhenTheChildExits() throws Exception {
    Path inStore = cluster.ufsRoot().resolve("w/handed.txt");
    String out =
        FuseHost.python(
            "import subprocess",
            "f = open('" + mnt.resolve("handed.txt") + "', 'wb')",
            "p = subprocess.Popen(['sh', '-c', 'sleep 0.3; echo handed'], stdout=f)",
            "f.close()",
            "p.wait()",
            "print(open('" + inStore + "').read(), end='')");
    assertThat(out).as("the under-storage's file once the child exited").isEqualTo("handed\n");
  }

  @Test
  void aFileKeptOpenWhileAChildWritesToIt_isPublishedWholeAtItsOpenersClose() throws Exception {
    Path inStore = cluster.ufsRoot().resolve("w/kept.txt");
    String out =
        FuseHost.python(
            "import os, subprocess",
            "with open('" + mnt.resolve("kept.txt") + "', 'wb') as f:",
            "    f.write(b'parent\\n'); f.flush()",
            "    subprocess.run(['echo', 'child'], stdout=f)",
            "    f.write(b'parent again\\n')",
            "print(open('" + inStore + "').read(), end='')");
    assertThat(out).isEqualTo("parent\nchild\nparent again\n");
  }

  @Test
  void readersCloseWithoutAFlush_writersCloseWithOne() throws Exception {
    Files.writeString(cluster.ufsRoot().resolve("w/read.txt"), "read me\n");
    double before = flushes();
    for (int i = 0; i < 20; i++) {
      assertThat(Files.readString(mnt.resolve("read.txt"))).isEqualTo("read me\n");
    }
    assertThat(flushes()).as("FLUSH requests for 20 reads").isEqualTo(before);

    Files.writeString(mnt.resolve("written.txt"), "written\n");
    assertThat(cluster.ufsRoot().resolve("w/written.txt"))
        .as("published by its close")
        .hasContent("written");
    assertThat(flushes()).as("FLUSH requests after a write").isGreaterThan(before);
  }

  private static double flushes() throws Exception {
    return Scrape.value(
        fuse.webPort(), "strata_fuse_requests_seconds_count{op=\"flush\",process=\"fuse\"}");
  }
}
