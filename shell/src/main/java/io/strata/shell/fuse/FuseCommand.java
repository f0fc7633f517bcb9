package io.strata.shell.fuse;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.Commands;
import io.strata.core.util.HostMounts;
import io.strata.shell.CommandTree;
import io.strata.shell.ShellContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code strata fuse}: FUSE mounts of this host. A mount is a process of its own, started and
 * stopped by {@code bin/strata-start.sh fuse} and {@code bin/strata-stop.sh fuse}, which these
 * commands run, so that either way leaves the same pid files and logs.
 */
@Command(
    name = "fuse",
    mixinStandardHelpOptions = true,
    description = "Mount Strata as a local file system.")
public final class FuseCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static CommandLine build(ShellContext ctx, List<String> words) {
    return new CommandTree()
        .leaf(MountCommand.class, () -> new MountCommand(ctx))
        .leaf(UnmountCommand.class, () -> new UnmountCommand(ctx))
        .leaf(ListCommand.class, () -> new ListCommand(ctx))
        .leaf(FuseStatCommand.class, () -> new FuseStatCommand(ctx))
        .build(new FuseCommand(), words);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * Runs a script of bin/, passing its output on; a failure ends the command with the script's last
   * line.
   */
  static void script(ShellContext ctx, String name, List<String> args) {
    String home = System.getProperty("strata.home");
    if (home == null) {
      throw StrataException.invalidArgument(
          "strata fuse needs an installation: run it as bin/strata fuse ...");
    }
    List<String> cmd = new ArrayList<>(List.of(Path.of(home, "bin", name).toString()));
    cmd.addAll(args);
    Commands.Result r = Commands.run(cmd, Duration.ofMinutes(5), name);
    if (!r.ok()) {
      // The process's own one-line error ("strata fuse: ...") says why; else the script's last
      // line.
      String why =
          r.output()
              .lines()
              .filter(l -> l.startsWith("strata "))
              .reduce((a, b) -> b)
              .or(() -> r.output().lines().reduce((a, b) -> b))
              .orElse(name + " failed");
      throw withItsCode(why.replaceFirst("^strata[^:]*: ", ""));
    }
    if (!r.output().isEmpty()) {
      ctx.out().println(r.output());
    }
  }

  /** "NOT_FOUND: text" keeps its code; any other line fails as FAILED_PRECONDITION. */
  private static StrataException withItsCode(String line) {
    int colon = line.indexOf(": ");
    if (colon > 0) {
      try {
        return new StrataException(
            StatusCode.valueOf(line.substring(0, colon)), line.substring(colon + 2));
      } catch (IllegalArgumentException notACode) {
        // Plain text.
      }
    }
    return new StrataException(StatusCode.FAILED_PRECONDITION, line);
  }

  @Command(
      name = "mount",
      mixinStandardHelpOptions = true,
      description = "Mount a Strata folder on an empty local folder, in a process of its own.")
  static final class MountCommand implements Runnable {
    private final ShellContext ctx;

    @Parameters(index = "0", paramLabel = "MOUNT_POINT", description = "An empty local folder.")
    Path mountPoint;

    @Parameters(
        index = "1",
        arity = "0..1",
        paramLabel = "STRATA_FOLDER",
        defaultValue = "/",
        description = "The folder to mount (default: /).")
    String folder;

    @Option(
        names = {"--read-only", "--readonly"},
        description = "Refuse every change (EROFS).")
    boolean readOnly;

    @Option(
        names = "-o",
        paramLabel = "OPTIONS",
        description =
            "Mount options, comma-separated, as FUSE file systems take them: ro, "
                + "attr_timeout=SECONDS, entry_timeout=SECONDS, allow_other, immutable (trust "
                + "attributes until a change through Strata or fs invalidate), threads=N, nosuid, "
                + "nodev, noexec, noatime, or any client key as strata.KEY=VALUE.")
    List<String> options = new ArrayList<>();

    MountCommand(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      List<String> args = new ArrayList<>(List.of("fuse", mountPoint.toString(), folder));
      if (readOnly) {
        args.add("--read-only");
      }
      if (!options.isEmpty()) {
        args.add("-o");
        args.add(String.join(",", options));
      }
      script(ctx, "strata-start.sh", args);
    }
  }

  @Command(
      name = "unmount",
      aliases = "umount",
      mixinStandardHelpOptions = true,
      description = "Unmount: stops the mount's process; readers still inside get an error.")
  static final class UnmountCommand implements Runnable {
    private final ShellContext ctx;

    @Parameters(paramLabel = "MOUNT_POINT")
    Path mountPoint;

    UnmountCommand(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      // The script also takes away a mount whose process died, and fails on a folder that is not
      // a Strata mount.
      script(ctx, "strata-stop.sh", List.of("fuse", mountPoint.toAbsolutePath().toString()));
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "The Strata mounts of this host.")
  static final class ListCommand implements Runnable {
    private final ShellContext ctx;

    ListCommand(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      List<HostMounts.Mount> mounts = HostMounts.strata();
      if (mounts.isEmpty()) {
        ctx.out().println("no Strata mounts");
        return;
      }
      ctx.out().printf("%-40s %-24s %-5s %s%n", "MOUNT POINT", "SOURCE", "MODE", "STATE");
      for (HostMounts.Mount m : mounts) {
        ctx.out()
            .printf(
                "%-40s %-24s %-5s %s%n",
                m.target(),
                m.source(),
                m.readOnly() ? "ro" : "rw",
                switch (m.state(Duration.ofSeconds(2))) {
                  case ANSWERS -> "ok";
                  case GONE -> "stale (its process is gone; 'strata fuse unmount' clears it)";
                  case SILENT ->
                      "not answering (its process is stuck, or was killed while the"
                          + " kernel held it; 'strata fuse unmount' clears it)";
                });
      }
    }
  }
}
