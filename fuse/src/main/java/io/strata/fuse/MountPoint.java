package io.strata.fuse;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.FuseConnections;
import io.strata.core.util.HostMounts;
import io.strata.core.util.HostMounts.Mount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A folder to mount on, as the kernel sees it (/proc/mounts): checked before mounting, with a stale
 * Strata mount (its process died) cleaned away first. Thread-safe.
 */
public final class MountPoint {
  private static final Logger LOG = LoggerFactory.getLogger(MountPoint.class);

  /** How long a Strata mount already on the folder has to answer before it is taken away. */
  private static final Duration PATIENCE = Duration.ofSeconds(5);

  private final Path path;

  MountPoint(Path path) {
    this.path = path.toAbsolutePath().normalize();
  }

  Path path() {
    return path;
  }

  Optional<Mount> current() {
    return HostMounts.at(path);
  }

  /**
   * Refuses a missing, busy or non-empty folder; unmounts a Strata mount whose process is gone, or
   * that does not answer in {@link #PATIENCE} (its connection aborted first: see {@link
   * FuseConnections}).
   */
  void prepare() {
    Optional<Mount> existing = current();
    if (existing.isPresent() && existing.get().isStrata()) {
      switch (existing.get().state(PATIENCE)) {
        case ANSWERS ->
            throw new StrataException(
                StatusCode.ALREADY_EXISTS, path + " is already a Strata mount");
        case GONE ->
            LOG.warn("{} is a Strata mount left by a process that died; unmounting it", path);
        case SILENT -> {
          LOG.warn(
              "{} is a Strata mount that did not answer in {} s: its process is stuck, or was"
                  + " killed while the kernel held it; aborting its FUSE connection and unmounting"
                  + " it",
              path,
              PATIENCE.toSeconds());
          FuseConnections.abort(path);
        }
      }
      HostMounts.unmount(path, true);
    } else if (existing.isPresent()) {
      throw new StrataException(
          StatusCode.ALREADY_EXISTS,
          path
              + " is already a mount point ("
              + existing.get().type()
              + "); choose an empty folder");
    }
    if (!Files.isDirectory(path)) {
      throw StrataException.notFound("mount point " + path + " does not exist or is not a folder");
    }
    try (Stream<Path> children = Files.list(path)) {
      if (children.findAny().isPresent()) {
        throw StrataException.invalidArgument("mount point " + path + " is not empty");
      }
    } catch (IOException e) {
      throw StrataException.invalidArgument(
          "cannot read mount point " + path + ": " + e.getMessage());
    }
  }

  boolean mounted() {
    return current().map(Mount::isStrata).orElse(false);
  }
}
