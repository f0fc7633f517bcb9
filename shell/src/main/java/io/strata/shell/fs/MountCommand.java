package io.strata.shell.fs;

import io.strata.core.conf.UserKeys;
import io.strata.core.proto.ListMountsRequest;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountRequest;
import io.strata.core.proto.MountTableView;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs mount [/PATH URI [--option k=v]... [--readonly] [--shared]]}. */
@Command(
    name = "mount",
    mixinStandardHelpOptions = true,
    description = {
      "Attach an under-storage (a folder, s3://bucket/prefix) at a Strata path on the running "
          + "cluster; with no arguments, list the mounts (credentials redacted).",
      "Example: strata fs mount /datasets s3://bucket/datasets --option s3.region=eu-west-1"
    })
final class MountCommand implements Runnable {
  private static final Duration STORE_CHECK = Duration.ofMinutes(2);

  private final ShellContext ctx;

  @Parameters(index = "0", arity = "0..1", paramLabel = "/PATH", description = "Strata path.")
  String path;

  @Parameters(index = "1", arity = "0..1", paramLabel = "URI", description = "Under-storage.")
  String uri;

  @Option(
      names = "--option",
      paramLabel = "KEY=VALUE",
      description = "An under-storage setting, e.g. s3.endpoint=http://host:9000 (repeatable).")
  List<String> options = List.of();

  @Option(
      names = {"--readonly", "--read-only"},
      description = "Refuse every change through Strata.")
  boolean readOnly;

  @Option(names = "--shared", description = "Open to every user.")
  boolean shared;

  MountCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  /**
   * The command, whose help ends with the under-storages and their options: rendered only when help
   * is asked for, since it loads the drivers' jars.
   */
  static CommandLine line(ShellContext ctx) {
    CommandLine line = new CommandLine(new MountCommand(ctx));
    String home = System.getProperty("strata.home");
    line.getHelpSectionMap()
        .put(
            CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER,
            help -> DriverHelp.render(home == null ? null : Path.of(home)));
    return line;
  }

  @Override
  public void run() {
    if (path == null) {
      MountTableView view =
          ctx.master()
              .call("listMounts", s -> s.listMounts(ListMountsRequest.getDefaultInstance()));
      MountLines.print(ctx.out(), view.getMountsList());
      return;
    }
    if (uri == null) {
      throw StrataException.invalidArgument(
          "expected /PATH URI, e.g. strata fs mount /data s3://bucket/data; nothing mounted");
    }
    MountPoint mount =
        MountPoint.newBuilder()
            .setPath(path)
            .setUfsUri(uri)
            .setReadOnly(readOnly)
            .setShared(shared)
            .putAllOptions(parse(options))
            .build();
    // The master checks the store before it mounts it: a slow or distant one may take up to the
    // S3 driver's retry budget (2 min), past the control plane's deadline (seen at 5 s in tests).
    long deadline =
        Math.max(STORE_CHECK.toMillis(), ctx.conf().get(UserKeys.RPC_TIMEOUT).toMillis());
    MountTableView view =
        ctx.master()
            .call(
                "mount",
                s ->
                    s.withDeadlineAfter(deadline, TimeUnit.MILLISECONDS)
                        .mount(MountRequest.newBuilder().setMount(mount).build()));
    ctx.out().println("mounted " + uri + " at " + path + MountLines.lag(view));
  }

  private static Map<String, String> parse(List<String> options) {
    Map<String, String> parsed = new LinkedHashMap<>();
    for (String o : options) {
      int eq = o.indexOf('=');
      if (eq <= 0) {
        throw StrataException.invalidArgument(
            "expected --option KEY=VALUE, got '" + o + "'; nothing mounted");
      }
      parsed.put(o.substring(0, eq).trim(), o.substring(eq + 1).trim());
    }
    return parsed;
  }
}
