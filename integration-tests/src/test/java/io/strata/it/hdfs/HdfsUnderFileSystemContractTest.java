package io.strata.it.hdfs;

import io.strata.core.ufs.UnderFileSystem;
import io.strata.core.ufs.UnderFileSystemContract;
import io.strata.testkit.MiniHdfs;
import io.strata.ufs.hdfs.HdfsSettings;
import io.strata.ufs.hdfs.HdfsUnderFileSystem;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/** The under-storage contract on a real HDFS (MiniDFSCluster), mounted at a folder of its own. */
class HdfsUnderFileSystemContractTest extends UnderFileSystemContract {
  private static final AtomicInteger FOLDERS = new AtomicInteger();
  @TempDir static Path dir;
  private static MiniHdfs hdfs;
  private String folder;

  @BeforeAll
  static void startHdfs() throws Exception {
    hdfs = new MiniHdfs(dir);
  }

  @AfterAll
  static void stopHdfs() {
    hdfs.close();
  }

  @Override
  protected UnderFileSystem open() throws Exception {
    folder = "/contract-" + FOLDERS.incrementAndGet() + "/mounted/here";
    hdfs.client().mkdirs(new org.apache.hadoop.fs.Path(folder));
    return new HdfsUnderFileSystem(hdfs.uri() + folder, HdfsSettings.of(Map.of()));
  }

  @Override
  protected void putBehindStrata(String path, byte[] bytes) throws Exception {
    try (FSDataOutputStream out =
        hdfs.client().create(new org.apache.hadoop.fs.Path(folder + path), true)) {
      out.write(bytes);
    }
  }
}
