package io.strata.core.util;

import com.google.common.base.Splitter;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * This host's mounts as the kernel lists them (/proc/mounts), and the unmounting of a FUSE mount:
 * what the FUSE launcher checks before it mounts and what the shell lists and clears.
 */
public final class HostMounts {
  /** The file system type of Strata's FUSE mounts. */
  public static final String STRATA_FS_TYPE = "fuse.strata";

  private HostMounts() {}

  /** One line of /proc/mounts. */
  public record Mount(String source, Path target, String type, String options) {
    public boolean readOnly() {
      return Splitter.on(',').splitToList(options).contains("ro");
    }

    public boolean isStrata() {
      return type.equals(STRATA_FS_TYPE);
    }

    /**
     * How the mount answers statfs, which the kernel always sends to its process (a stat could be
     * answered from the attribute cache), within {@code patience}: {@link State#GONE} for one whose
     * process died (every call fails with ENOTCONN), {@link State#SILENT} for one that does not
     * answer in time. Any other failure (a mount this user may not enter) is an answer. The look
     * runs on a thread of its own: a call into a mount nobody serves waits until the connection is
     * aborted.
     */
    public State state(Duration patience) {
      CompletableFuture<State> answer = new CompletableFuture<>();
      DaemonThreads.factory("mount-check").newThread(() -> answer.complete(statfs())).start();
      try {
        return answer.get(patience.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        return State.SILENT;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return State.SILENT;
      } catch (ExecutionException e) {
        return State.ANSWERS;
      }
    }

    private State statfs() {
      try {
        Files.getFileStore(target).getTotalSpace();
        return State.ANSWERS;
      } catch (FileSystemException e) {
        return String.valueOf(e.getReason()).contains("not connected") ? State.GONE : State.ANSWERS;
      } catch (IOException e) {
        return State.ANSWERS;
      }
    }
  }

  /** How a mount answers ({@link Mount#state}). */
  public enum State {
    /** Its process answered. */
    ANSWERS,
    /** Its process died and the kernel knows: every call fails with ENOTCONN. */
    GONE,
    /**
     * No answer in time: its process is stuck, or it died while the kernel held it (a thread of the
     * process blocked in the kernel keeps the connection open); only aborting the connection
     * ({@link FuseConnections#abort}) frees the callers waiting on it.
     */
    SILENT
  }

  /** Every mount, in the kernel's order. */
  public static List<Mount> all() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/mounts"), StandardCharsets.UTF_8)) {
      return lines
          .map(l -> Splitter.on(' ').splitToList(l))
          .filter(f -> f.size() >= 3)
          .map(
              f ->
                  new Mount(
                      unescape(f.get(0)),
                      Path.of(unescape(f.get(1))),
                      f.get(2),
                      f.size() > 3 ? f.get(3) : ""))
          .toList();
    } catch (IOException e) {
      throw StrataException.unavailable("cannot read /proc/mounts: " + e.getMessage(), e);
    }
  }

  /** Every Strata mount on this host. */
  public static List<Mount> strata() {
    return all().stream().filter(Mount::isStrata).toList();
  }

  /** The mount in effect on {@code path} (the last one listed there), if any. */
  public static Optional<Mount> at(Path path) {
    List<Mount> all = all();
    for (int i = all.size() - 1; i >= 0; i--) {
      if (all.get(i).target().equals(path)) {
        return Optional.of(all.get(i));
      }
    }
    return Optional.empty();
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

  /** /proc/mounts writes space, tab, newline and backslash as octal escapes. */
  static String unescape(String s) {
    return s.replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\");
  }
}
