package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.PathPolicy;
import io.strata.shell.Formats;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs location PATH}: which workers serve a path, and what its owner caches. */
@Command(
    name = "location",
    mixinStandardHelpOptions = true,
    description =
        "Show which worker owns a path (consistent hashing) and how much of it that worker "
            + "caches, the workers reads fail over to, and its pin and TTL.")
final class LocationCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(paramLabel = "PATH", description = "Strata path.")
  String path;

  LocationCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    FileInfo f = ctx.fs().getStatusWithCacheInfo(path);
    List<String> owners = ctx.fs().owners(path);
    ctx.out().println(f.path());
    List<PathPolicy> policies =
        ctx.master()
            .call(
                "getClusterView", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()))
            .getPoliciesList();
    PathPolicyCalls.describe(policies, f.path())
        .ifPresent(d -> ctx.out().println("  policy:    " + d));
    if (owners.isEmpty()) {
      ctx.out().println("  no live worker");
      return;
    }
    String cached =
        f.directory()
            ? "a folder (its files have owners of their own)"
            : "caches "
                + Formats.bytes(f.cachedBytes())
                + " of "
                + Formats.bytes(f.length())
                + " ("
                + Formats.percent(f.cachedBytes(), f.length())
                + ")";
    ctx.out().println("  owner:     " + owners.get(0) + "  " + cached);
    for (String next : owners.subList(1, owners.size())) {
      ctx.out().println("  failover:  " + next);
    }
  }
}
