package io.strata.ufs.hdfs;

import io.strata.core.ufs.UfsOption;
import io.strata.core.ufs.UnderFileSystem;
import io.strata.core.ufs.UnderFileSystemProvider;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The HDFS driver: HDFS itself and every other store a Hadoop FileSystem on its class path opens
 * (Google Cloud Storage's gs://, Azure's abfs://, with their connectors' jars beside it).
 */
public final class HdfsUnderFileSystemProvider implements UnderFileSystemProvider {
  @Override
  public String name() {
    return "hdfs";
  }

  @Override
  public Set<String> schemes() {
    return Set.of("hdfs", "webhdfs", "viewfs");
  }

  @Override
  public boolean opensOther(String scheme) {
    return HadoopSchemes.known(scheme);
  }

  @Override
  public String describe() {
    return "hdfs://namenode:port/path and other Hadoop file systems on its class path";
  }

  @Override
  public List<UfsOption> options() {
    return HdfsSettings.OPTIONS;
  }

  @Override
  public UnderFileSystem open(String uri, Map<String, String> options, Duration tempMaxAge) {
    return new HdfsUnderFileSystem(uri, HdfsSettings.of(options));
  }

  @Override
  public String normalize(String uri) {
    return HdfsUnderFileSystem.normalize(uri);
  }
}
