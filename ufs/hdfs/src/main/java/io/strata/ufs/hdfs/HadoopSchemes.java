package io.strata.ufs.hdfs;

import java.io.IOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;

/**
 * Which URI schemes the Hadoop client on the class path can open: {@code hdfs}, {@code webhdfs},
 * {@code viewfs} and whatever other connectors are there ({@code gs}, {@code abfs}...). Schemes
 * another driver declares ({@code file}, {@code s3}) are never asked about (UfsFactory).
 */
final class HadoopSchemes {
  private HadoopSchemes() {}

  static boolean known(String scheme) {
    try {
      return FileSystem.getFileSystemClass(scheme, new Configuration()) != null;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
