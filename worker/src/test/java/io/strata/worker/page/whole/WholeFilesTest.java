package io.strata.worker.page.whole;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.strata.core.cache.VersionKey;
import io.strata.worker.kv.KvStore;
import io.strata.worker.kv.RocksKvStore;
import io.strata.worker.page.PageId;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WholeFilesTest {
  private static final int PAGE = 4096;

  @TempDir Path dir;

  /**
   * A co-located client finds a whole file by name, from the folders the worker announces and the
   * version's key alone: the name must be exactly where the worker sealed it, in any folder.
   */
  @Test
  void aSealedVersion_isWhereItsKeyNamesIt_inTheFoldersAnnounced() throws Exception {
    List<KvStore> indexes = new ArrayList<>();
    List<WholeFileArea> areas = new ArrayList<>();
    List<LongSupplier> limits = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Path ssd = Files.createDirectories(dir.resolve("ssd" + i));
      KvStore index = RocksKvStore.open(ssd.resolve("index"), 1 << 20);
      indexes.add(index);
      areas.add(WholeFileArea.open(ssd, index, System::nanoTime));
      limits.add(() -> 1L << 30);
    }
    try (WholeFiles whole = new WholeFiles(areas, new WholeFiles.Rules(1, limits), null)) {
      List<Path> folders = whole.folders();
      assertThat(folders).hasSize(3);
      java.util.Set<Integer> used = new java.util.HashSet<>();
      for (int v = 0; v < 12; v++) {
        VersionKey key = VersionKey.of("file:///data/f" + v, "fp" + v, PAGE);
        PageId.FileKey fileKey = PageId.FileKey.of("file:///data/f" + v, "fp" + v, PAGE);
        assertThat(fileKey.version()).isEqualTo(key);
        byte[] bytes = new byte[PAGE + 1 + v];
        WholeFileWriter w = whole.begin(fileKey, bytes.length, PAGE, Long.MAX_VALUE);
        assertThat(w).isNotNull();
        try (w) {
          assertThat(w.write(0, Unpooled.wrappedBuffer(bytes, 0, PAGE))).isTrue();
          assertThat(w.write(1, Unpooled.wrappedBuffer(bytes, PAGE, 1 + v))).isTrue();
          WholeFile sealed = w.seal().orElseThrow();
          assertThat(key.wholeFile(folders)).contains(sealed.path());
          assertThat(Files.size(sealed.path())).isEqualTo(bytes.length);
        }
        used.add(key.folder(folders.size()));
      }
      assertThat(used).as("folders the 12 versions went to").hasSizeGreaterThan(1);
    } finally {
      for (KvStore index : indexes) {
        index.close();
      }
    }
  }
}
