package io.strata.worker.page.whole;

import io.strata.core.util.FileChannels;
import io.strata.worker.kv.KeyLayout;
import io.strata.worker.kv.KvStore;
import io.strata.worker.page.PageId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * What a whole-file area holds after a start, from its index and its folder: a file without an
 * entry (a seal cut short, or one whose entry a crash lost) is deleted; an entry without its file,
 * or whose file has another length, is dropped; a file the last sync did not cover is read back
 * against its crcs and kept only if every page matches (then marked synced, after an fsync). What
 * is kept can be served: no torn file survives a crash.
 */
final class WholeFileRecovery {
  private final Path dir;
  private final KvStore index;

  record Result(List<WholeFile> files, int rechecked, int dropped, long millis) {}

  WholeFileRecovery(Path dir, KvStore index) {
    this.dir = dir;
    this.index = index;
  }

  Result run() throws IOException {
    long start = System.nanoTime();
    Map<String, WholeFile.Entry> entries = new HashMap<>();
    KvStore.Batch dropped = new KvStore.Batch();
    int[] droppedCount = {0};
    index.scan(
        KeyLayout.prefix(KeyLayout.WHOLE_FILE),
        (k, v) -> {
          PageId.FileKey key = k.length == 17 ? KeyLayout.fileKeyOf(k) : null;
          String name = key == null ? null : WholeFileArea.name(key);
          WholeFile.Entry e = key == null ? null : WholeFile.decode(key, dir.resolve(name), v);
          if (e == null) {
            dropped.delete(k);
            droppedCount[0]++;
          } else {
            entries.put(name, e);
          }
        });
    Set<String> present = new HashSet<>();
    try (Stream<Path> names = Files.list(dir)) {
      for (Path p : (Iterable<Path>) names::iterator) {
        String name = p.getFileName().toString();
        if (entries.containsKey(name) && Files.isRegularFile(p)) {
          present.add(name);
        } else {
          delete(p);
        }
      }
    }
    List<WholeFile> kept = new ArrayList<>();
    int rechecked = 0;
    for (Map.Entry<String, WholeFile.Entry> e : entries.entrySet()) {
      WholeFile f = e.getValue().file();
      boolean keep = present.contains(e.getKey()) && Files.size(f.path()) == f.length();
      if (keep && !e.getValue().synced()) {
        rechecked++;
        keep = intact(f);
        if (keep) {
          try (FileChannel c = FileChannel.open(f.path(), StandardOpenOption.READ)) {
            c.force(true);
          }
          index.put(KeyLayout.wholeFileKey(f.key()), f.encode(true));
        }
      }
      if (keep) {
        kept.add(f);
      } else {
        dropped.delete(KeyLayout.wholeFileKey(f.key()));
        droppedCount[0]++;
        delete(f.path());
      }
    }
    index.write(dropped);
    return new Result(kept, rechecked, droppedCount[0], (System.nanoTime() - start) / 1_000_000);
  }

  /** Whether every page of {@code f} on disk matches its crc (a missing or short file does not). */
  static boolean intact(WholeFile f) throws IOException {
    try (FileChannel c = FileChannel.open(f.path(), StandardOpenOption.READ)) {
      if (c.size() != f.length()) {
        return false;
      }
      ByteBuffer buf = ByteBuffer.allocateDirect(f.pageSize());
      for (int i = 0; i < f.pages(); i++) {
        buf.clear().limit(f.pageLength(i));
        if (FileChannels.readFully(c, f.offset(i), buf) != f.pageLength(i)) {
          return false;
        }
        CRC32C crc = new CRC32C();
        crc.update(buf.flip());
        if ((int) crc.getValue() != f.crc(i)) {
          return false;
        }
      }
      return true;
    } catch (NoSuchFileException gone) {
      return false;
    }
  }

  private static void delete(Path p) throws IOException {
    if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      // Nothing of ours is a folder; leave what someone else put here and say nothing of it.
      return;
    }
    Files.deleteIfExists(p);
  }
}
