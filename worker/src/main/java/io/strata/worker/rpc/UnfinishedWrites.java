package io.strata.worker.rpc;

import io.strata.core.ufs.UnderFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes this worker has under way, each a small marker file in its state folder naming the
 * mount and what the write leaves in the under-storage until it ends ({@code
 * UfsOutputStream.token}). A write that ends removes its marker; a worker killed mid-write finds
 * the markers at its next start and discards what they name, so killed writes leave no temporary
 * files behind. Thread-safe.
 */
final class UnfinishedWrites {
  private static final Logger LOG = LoggerFactory.getLogger(UnfinishedWrites.class);

  private final Path folder;

  UnfinishedWrites(Path folder) {
    this.folder = folder;
  }

  /** Notes a write that has begun; returns its marker, or null if it cannot be noted. */
  Path begun(String mountUri, String token) {
    try {
      Files.createDirectories(folder);
      Path marker = folder.resolve(UUID.randomUUID().toString());
      Files.writeString(marker, mountUri + "\n" + token, StandardCharsets.UTF_8);
      return marker;
    } catch (IOException e) {
      // Cleanup by age still removes what a killed write leaves.
      LOG.warn("cannot note a write under way in {}: {}", folder, e.toString());
      return null;
    }
  }

  /** The write of {@code marker} ended, published or discarded. */
  void ended(Path marker) {
    if (marker == null) {
      return;
    }
    try {
      Files.deleteIfExists(marker);
    } catch (IOException e) {
      LOG.warn("cannot remove {}: {}", marker, e.toString());
    }
  }

  /** At start: discards what every write left unfinished by the previous run left behind. */
  int discardAll(Function<String, UnderFileSystem> opener) {
    if (!Files.isDirectory(folder)) {
      return 0;
    }
    int discarded = 0;
    try (Stream<Path> markers = Files.list(folder)) {
      for (Path marker : markers.toList()) {
        List<String> lines = Files.readAllLines(marker, StandardCharsets.UTF_8);
        if (lines.size() == 2) {
          try (UnderFileSystem ufs = opener.apply(lines.get(0))) {
            ufs.discard(lines.get(1));
            discarded++;
          } catch (RuntimeException e) {
            LOG.warn("cannot discard the unfinished write {}: {}", lines, e.toString());
          }
        }
        Files.deleteIfExists(marker);
      }
    } catch (IOException e) {
      LOG.warn("cannot read the unfinished writes in {}: {}", folder, e.toString());
    }
    return discarded;
  }
}
