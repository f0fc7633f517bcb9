package io.strata.hadoop;

import io.strata.testkit.MiniCluster;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

/**
 * Hadoop's FileSystem contract, bound to {@code strata://} on one cluster (a master and a worker in
 * this JVM over a local folder) shared by every contract test class of the run.
 */
public class StrataContract extends AbstractFSContract {
  private static MiniCluster cluster;
  private static URI uri;

  public StrataContract(Configuration conf) {
    super(conf);
    addConfResource("contract/strata.xml");
  }

  private static synchronized URI cluster(Configuration conf) throws IOException {
    if (cluster == null) {
      try {
        cluster = MiniCluster.builder().masters(1).workers(1).start();
      } catch (Exception e) {
        throw new IOException("the test cluster did not start", e);
      }
      MiniCluster started = cluster;
      Runtime.getRuntime().addShutdownHook(new Thread(started::close));
      String masters =
          String.join(
              ",", started.clientConf().get(io.strata.core.conf.CommonKeys.MASTER_RPC_ADDRESSES));
      uri = URI.create("strata://" + masters + "/");
    }
    started(conf);
    return uri;
  }

  /** The shared cluster, started if it was not; for the tests beyond the contract. */
  static synchronized MiniCluster sharedCluster(Configuration conf) throws IOException {
    cluster(conf);
    return cluster;
  }

  /** The URI of the shared cluster's root, with {@code conf} given its client settings. */
  static URI sharedUri(Configuration conf) throws IOException {
    return cluster(conf);
  }

  /** The cluster's client settings (ports, socket paths) as a core-site.xml would carry them. */
  private static void started(Configuration conf) {
    cluster
        .clientConf()
        .explicitSettings()
        .forEach((name, setting) -> conf.set(name, setting.value()));
  }

  @Override
  public void init() throws IOException {
    super.init();
    cluster(getConf());
  }

  @Override
  public FileSystem getTestFileSystem() throws IOException {
    return FileSystem.get(cluster(getConf()), getConf());
  }

  @Override
  public String getScheme() {
    return StrataHadoopFileSystem.SCHEME;
  }

  @Override
  public Path getTestPath() {
    return new Path("/test");
  }
}
