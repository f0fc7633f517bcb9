package io.strata.core.ufs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.junit.jupiter.api.io.TempDir;

/** The under-storage contract on a local folder. */
class LocalUnderFileSystemContractTest extends UnderFileSystemContract {
  @TempDir Path root;

  @Override
  protected UnderFileSystem open() {
    return new LocalUnderFileSystem(root);
  }

  /** As another program replaces a file: a new one renamed over it. */
  @Override
  protected void putBehindStrata(String path, byte[] bytes) throws Exception {
    Path target = root.resolve(path.substring(1));
    Files.createDirectories(target.getParent());
    Path temp = Files.createTempFile(target.getParent(), "other-", ".part");
    Files.write(temp, bytes);
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
