package io.strata.core.util;

import com.google.common.base.Splitter;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The kernel's control files of FUSE connections (fusectl, {@code /sys/fs/fuse/connections}): the
 * way out of a mount nobody answers. A FUSE process killed while one of its threads was blocked in
 * the kernel on its own mount (writing an entry invalidation, which waits for the folder's lock
 * that a caller holds while it waits for the process) cannot finish dying, so its descriptor stays
 * open, the connection is never ended, and every caller of the mount waits for good. Aborting the
 * connection fails those calls with ENOTCONN, and the process ends. Root only.
 */
public final class FuseConnections {
  private static final Path CONTROL = Path.of("/sys/fs/fuse/connections");

  private FuseConnections() {}

  /** Aborts the FUSE connection of the mount on {@code target}. */
  public static void abort(Path target) {
    List<String> mountInfo;
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/mountinfo"))) {
      mountInfo = lines.toList();
    } catch (IOException e) {
      throw StrataException.unavailable("cannot read /proc/self/mountinfo: " + e.getMessage(), e);
    }
    long id =
        connectionOf(mountInfo, target)
            .orElseThrow(() -> StrataException.notFound(target + " is not a mount"));
    Path dir = CONTROL.resolve(Long.toString(id));
    if (!Files.isDirectory(dir)) {
      // fusectl is not mounted everywhere (systemd mounts it; a container may not).
      Commands.run(
          List.of("mount", "-t", "fusectl", "none", CONTROL.toString()),
          Duration.ofSeconds(10),
          "mount (util-linux)");
    }
    try {
      Files.writeString(dir.resolve("abort"), "1", StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw StrataException.unavailable(
          "cannot abort the FUSE connection of " + target + " (" + dir + "): " + e, e);
    }
  }

  /**
   * The connection number of the mount on {@code target} in {@code mountInfo}'s lines (the last
   * mount there): its device, as the kernel names the connection's folder.
   */
  static OptionalLong connectionOf(List<String> mountInfo, Path target) {
    OptionalLong found = OptionalLong.empty();
    for (String line : mountInfo) {
      List<String> f = Splitter.on(' ').splitToList(line);
      if (f.size() > 4 && Path.of(HostMounts.unescape(f.get(4))).equals(target)) {
        List<String> device = Splitter.on(':').splitToList(f.get(2));
        found =
            OptionalLong.of(encode(Long.parseLong(device.get(0)), Long.parseLong(device.get(1))));
      }
    }
    return found;
  }

  /** A device number as the kernel writes it out (new_encode_dev). */
  static long encode(long major, long minor) {
    return (minor & 0xff) | (major << 8) | ((minor & ~0xffL) << 12);
  }
}
