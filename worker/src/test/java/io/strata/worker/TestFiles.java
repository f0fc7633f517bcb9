package io.strata.worker;

import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.path.StrataPath;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.core.ufs.UfsFactory;
import io.strata.worker.page.PageStore;
import io.strata.worker.ufs.UfsManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;

/** A worker's UFS view with / mounted from a test folder. */
public final class TestFiles {
  private TestFiles() {}

  /**
   * A page store of {@code memBytes} in memory, and SSD folders {@code dirs} (folder:quota) if any.
   */
  public static PageStore pageStore(long memBytes, MeterRegistry registry, String... dirs) {
    Configuration conf = new Configuration();
    conf.set(WorkerKeys.MEM_SIZE, String.valueOf(memBytes));
    conf.set(WorkerKeys.PAGE_STORE_DIRS, String.join(",", dirs));
    conf.set(WorkerKeys.SEGMENT_SIZE, "1MiB");
    conf.set(WorkerKeys.WHOLE_FILE_SHARE, "50");
    try {
      return PageStore.create(conf, PooledByteBufAllocator.DEFAULT, registry, System::nanoTime);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static UfsManager ufsAt(Path root) {
    UfsManager m = new UfsManager();
    m.update(
        new MountTable(
            List.of(new Mount(StrataPath.ROOT, UfsFactory.normalize(root.toString()), false)), 1));
    return m;
  }
}
