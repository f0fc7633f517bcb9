package io.strata.core.ufs.hdfs;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * Which URI schemes the Hadoop client on the class path can open: {@code hdfs}, {@code webhdfs},
 * {@code viewfs} and whatever other connectors are there. {@code file} and {@code s3} are Strata's
 * own under-storages and never taken from Hadoop.
 */
public final class HadoopSchemes {
  private HadoopSchemes() {}

  public static boolean known(String scheme) {
    if (scheme.equals("file") || scheme.equals("s3")) {
      return false;
    }
    try {
      return FileSystem.getFileSystemClass(scheme, new Configuration()) != null;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
