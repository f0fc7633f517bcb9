package io.strata.it.hdfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UfsStatus;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.ufs.hdfs.HdfsSettings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSNNTopology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An HA pair of NameNodes (a real MiniDFSCluster, shared edits): a mount names the nameservice and
 * the hdfs-site.xml that describes it, as an operator's would, and goes on reading across a
 * failover; a mount that names a standby NameNode itself fails in one line that says what to do.
 */
class HdfsHaTest {
  private static final String NAMESERVICE = "strata-ha";

  @TempDir static Path dir;
  private static MiniDFSCluster cluster;
  private static Path confDir;

  @BeforeAll
  static void startHa() throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.resolve("hdfs").toString());
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", "2");
    cluster =
        new MiniDFSCluster.Builder(conf)
            .nnTopology(MiniDFSNNTopology.simpleHATopology())
            .numDataNodes(1)
            .build();
    cluster.waitActive();
    cluster.transitionToActive(0);
    confDir = Files.createDirectories(dir.resolve("conf"));
    Files.writeString(confDir.resolve("hdfs-site.xml"), hdfsSite());
  }

  /** What an operator's hdfs-site.xml says of the pair: its name, its NameNodes, the failover. */
  private static String hdfsSite() {
    StringBuilder xml = new StringBuilder("<?xml version=\"1.0\"?>\n<configuration>\n");
    property(xml, "dfs.nameservices", NAMESERVICE);
    property(xml, "dfs.ha.namenodes." + NAMESERVICE, "nn1,nn2");
    for (int i = 0; i < 2; i++) {
      property(
          xml,
          "dfs.namenode.rpc-address." + NAMESERVICE + ".nn" + (i + 1),
          "127.0.0.1:" + cluster.getNameNodePort(i));
    }
    property(
        xml,
        "dfs.client.failover.proxy.provider." + NAMESERVICE,
        "org.apache.hadoop.hdfs.server.namenode.ha.ConfiguredFailoverProxyProvider");
    return xml.append("</configuration>\n").toString();
  }

  private static void property(StringBuilder xml, String name, String value) {
    xml.append("  <property><name>")
        .append(name)
        .append("</name><value>")
        .append(value)
        .append("</value></property>\n");
  }

  @AfterAll
  static void stopHa() {
    if (cluster != null) {
      cluster.shutdown(true);
    }
  }

  /** Writes {@code text} at {@code path} through whichever NameNode is active. */
  private static void put(String path, String text) throws Exception {
    Configuration conf = new Configuration();
    conf.addResource(new org.apache.hadoop.fs.Path(confDir.resolve("hdfs-site.xml").toUri()));
    try (FileSystem fs =
            FileSystem.newInstance(java.net.URI.create("hdfs://" + NAMESERVICE), conf);
        FSDataOutputStream out = fs.create(new org.apache.hadoop.fs.Path(path), true)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static String read(UnderFileSystem ufs, String path) throws Exception {
    UfsStatus s = ufs.getStatus(StrataPath.of(path));
    ByteBuffer b = ByteBuffer.allocate((int) s.length());
    try (UfsReader r = ufs.openVersion(StrataPath.of(path), s.fingerprint())) {
      r.readFully(0, b);
    }
    return new String(b.array(), StandardCharsets.UTF_8);
  }

  @Test
  void aMountOfTheNameservice_readsOnAcrossAFailover_andOneOfTheStandbyFailsInOneLine()
      throws Exception {
    put("/ha/before.txt", "written before the failover");
    try (UnderFileSystem ufs =
        UfsFactory.open(
            "hdfs://" + NAMESERVICE + "/ha",
            Map.of(HdfsSettings.CONF_DIR, confDir.toString()),
            Duration.ofHours(1))) {
      assertThat(read(ufs, "/before.txt")).isEqualTo("written before the failover");

      cluster.transitionToStandby(0);
      cluster.transitionToActive(1);
      put("/ha/after.txt", "written after it");

      assertThat(read(ufs, "/after.txt")).isEqualTo("written after it");
      assertThat(read(ufs, "/before.txt")).isEqualTo("written before the failover");
      try (Stream<UfsStatus> listed = ufs.list(StrataPath.ROOT)) {
        assertThat(listed).hasSize(2);
      }
    }

    // The first NameNode, now a standby, named directly.
    try (UnderFileSystem standby =
        UfsFactory.open(
            "hdfs://127.0.0.1:" + cluster.getNameNodePort(0) + "/ha",
            Map.of(),
            Duration.ofHours(1))) {
      assertThatThrownBy(() -> standby.getStatus(StrataPath.of("/before.txt")))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> {
                assertThat(e.code()).isEqualTo(StatusCode.UNAVAILABLE);
                assertThat(e.getMessage())
                    .contains("is a standby", "nameservice")
                    .doesNotContain("\n");
              });
    }
  }
}
