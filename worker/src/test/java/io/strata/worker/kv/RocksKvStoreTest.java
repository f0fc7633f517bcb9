package io.strata.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RocksKvStoreTest extends KvStoreContract {
  @TempDir Path dir;

  @Override
  KvStore open() {
    return RocksKvStore.open(dir.resolve("db"), 1 << 20);
  }

  @Test
  void reopened_keepsWhatWasWritten_andASecondOpenerIsRefused() {
    Path other = dir.resolve("other");
    try (RocksKvStore s = RocksKvStore.open(other, 1 << 20)) {
      s.put(new byte[] {1}, new byte[] {2});
      assertThatThrownBy(() -> RocksKvStore.open(other, 1 << 20))
          .hasMessageContaining("is another worker using this folder?");
    }
    try (RocksKvStore s = RocksKvStore.open(other, 1 << 20)) {
      assertThat(s.get(new byte[] {1})).containsExactly(2);
      assertThat(s.sizeOnDisk()).isPositive();
    }
  }
}
