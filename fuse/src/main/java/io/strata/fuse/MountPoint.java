package io.strata.fuse;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.Commands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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
  public static final String FS_TYPE = "fuse.strata";

  /** One line of /proc/mounts. */
  public record Mount(String source, Path target, String type, String options) {
    public boolean readOnly() {
      return List.of(options.split(",")).contains("ro");
    }

    /**
     * Whether the mount answers: false only for one whose process died, which fails every call with
     * ENOTCONN. Asks statfs, which the kernel always sends to the process (a stat could be answered
     * from its attribute cache); any other failure (a mount this user may not enter) is not death.
     */
    public boolean alive() {
      try {
        Files.getFileStore(target).getTotalSpace();
        return true;
      } catch (FileSystemException e) {
        return !String.valueOf(e.getReason()).contains("not connected");
      } catch (IOException e) {
        return true;
      }
    }
  }

  private final Path path;

  MountPoint(Path path) {
    this.path = path.toAbsolutePath().normalize();
  }

  Path path() {
    return path;
  }

  /** Every Strata mount on this host. */
  public static List<Mount> strataMounts() {
    return mounts().stream().filter(m -> m.type().equals(FS_TYPE)).toList();
  }

  static List<Mount> mounts() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/mounts"), StandardCharsets.UTF_8)) {
      return lines
          .map(l -> l.split(" "))
          .filter(f -> f.length >= 3)
          .map(
              f ->
                  new Mount(
                      unescape(f[0]), Path.of(unescape(f[1])), f[2], f.length > 3 ? f[3] : ""))
          .toList();
    } catch (IOException e) {
      throw StrataException.unavailable("cannot read /proc/mounts: " + e.getMessage(), e);
    }
  }

  /** /proc/mounts writes space, tab, newline and backslash as octal escapes. */
  private static String unescape(String s) {
    return s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\");
  }

  Optional<Mount> current() {
    List<Mount> all = mounts();
    // The last mount on a path is the one in effect.
    for (int i = all.size() - 1; i >= 0; i--) {
      if (all.get(i).target().equals(path)) {
        return Optional.of(all.get(i));
      }
    }
    return Optional.empty();
  }

  /** Refuses a missing, busy or non-empty folder; unmounts a Strata mount whose process is gone. */
  void prepare() {
    Optional<Mount> existing = current();
    if (existing.isPresent() && existing.get().type().equals(FS_TYPE)) {
      if (existing.get().alive()) {
        throw new StrataException(StatusCode.ALREADY_EXISTS, path + " is already a Strata mount");
      }
      LOG.warn("{} is a Strata mount left by a process that died; unmounting it", path);
      unmount(path, true);
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
    return current().map(m -> m.type().equals(FS_TYPE)).orElse(false);
  }

  /** fusermount -u (-z: lazily, for a mount still in use or whose process is gone). */
  public static void unmount(Path target, boolean lazy) {
    List<String> cmd =
        lazy
            ? List.of("fusermount", "-u", "-z", target.toString())
            : List.of("fusermount", "-u", target.toString());
    Commands.Result r =
        Commands.run(cmd, Duration.ofSeconds(30), "fusermount (apt-get install fuse)");
    if (!r.ok()) {
      throw StrataException.unavailable("cannot unmount " + target + ": " + r.output(), null);
    }
  }
}
