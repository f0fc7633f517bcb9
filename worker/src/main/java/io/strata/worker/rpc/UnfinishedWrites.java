package io.strata.worker.rpc;

import io.strata.core.path.StrataPath;
import io.strata.core.ufs.Mount;
import io.strata.core.util.OwnerOnly;
import io.strata.worker.ufs.UfsManager;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
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
  Path begun(Mount mount, String token) {
    try {
      OwnerOnly.folder(folder);
      Path marker = folder.resolve(UUID.randomUUID().toString());
      // The mount by path and URI, not its options: credentials are not written here.
      Files.writeString(
          marker, mount.path() + "\n" + mount.ufsUri() + "\n" + token, StandardCharsets.UTF_8);
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

  /**
   * Once the mount table is known after a start: discards what every write the previous run left
   * unfinished left behind, through the mount's under-storage (if it is still mounted).
   */
  int discardAll(UfsManager ufs) {
    if (!Files.isDirectory(folder)) {
      return 0;
    }
    int discarded = 0;
    try (Stream<Path> markers = Files.list(folder)) {
      for (Path marker : markers.toList()) {
        List<String> lines = Files.readAllLines(marker, StandardCharsets.UTF_8);
        Optional<Mount> mount =
            lines.size() == 3
                ? ufs.mountAt(StrataPath.of(lines.get(0)), lines.get(1))
                : Optional.empty();
        if (mount.isPresent()) {
          try {
            ufs.ufsOf(mount.get()).discard(lines.get(2));
            discarded++;
          } catch (RuntimeException e) {
            LOG.warn("cannot discard the unfinished write {}: {}", lines, e.toString());
          }
        } else {
          LOG.info("the mount of the unfinished write {} is gone; nothing to discard", lines);
        }
        Files.deleteIfExists(marker);
      }
    } catch (IOException e) {
      LOG.warn("cannot read the unfinished writes in {}: {}", folder, e.toString());
    }
    return discarded;
  }
}
