package io.strata.testkit;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/** A real HDFS (one NameNode, one DataNode) in this JVM, on loopback, for tests and benchmarks. */
public final class MiniHdfs implements AutoCloseable {
  private final MiniDFSCluster cluster;

  public MiniHdfs(Path dir) throws IOException {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.toString());
    conf.set("dfs.namenode.rpc-bind-host", "127.0.0.1");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    // Its clients ask whether a closed file's block arrived after 2 ms, not 400: the tests write
    // thousands of small files.
    conf.set("dfs.client.block.write.locateFollowingBlock.initial.delay.ms", "2");
    // ...and ask more often before giving up (5 times by default): with other test JVMs on the
    // cores, the DataNode's report of a block can come later than 5 doublings of 2 ms allow
    // ("Unable to close file because the last block ... does not have enough number of replicas").
    conf.set("dfs.client.block.write.locateFollowingBlock.retries", "12");
    cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    cluster.waitActive();
  }

  /** {@code hdfs://localhost:PORT}. */
  public String uri() {
    return cluster.getURI().toString();
  }

  /** A client of its own, as another program writing into HDFS would have. */
  public FileSystem client() throws IOException {
    return cluster.getFileSystem();
  }

  public MiniDFSCluster cluster() {
    return cluster;
  }

  @Override
  public void close() {
    cluster.shutdown(true);
  }
}
