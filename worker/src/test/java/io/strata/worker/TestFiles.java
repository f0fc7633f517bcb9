package io.strata.worker;

import io.strata.core.path.StrataPath;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.core.ufs.UfsFactory;
import io.strata.worker.ufs.UfsManager;
import java.nio.file.Path;
import java.util.List;

/** A worker's UFS view with / mounted from a test folder. */
public final class TestFiles {
  private TestFiles() {}

  public static UfsManager ufsAt(Path root) {
    UfsManager m = new UfsManager();
    m.update(new MountTable(List.of(new Mount(StrataPath.ROOT, UfsFactory.normalize(root.toString()), false)), 1));
    return m;
  }
}
