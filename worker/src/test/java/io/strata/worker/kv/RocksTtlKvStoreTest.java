package io.strata.worker.kv;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The worker's metadata store is RocksDB's TTL database: it passes the same contract. */
class RocksTtlKvStoreTest extends KvStoreContract {
  @TempDir Path dir;

  @Override
  KvStore open() {
    return RocksKvStore.openWithTtl(dir.resolve("db"), 1 << 20, 3600);
  }
}
