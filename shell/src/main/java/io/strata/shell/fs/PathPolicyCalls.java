package io.strata.shell.fs;

import io.strata.core.proto.PathPolicies;
import io.strata.core.proto.PathPolicy;
import io.strata.core.proto.SetPathPolicyRequest;
import io.strata.shell.ShellContext;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What {@code fs pin}, {@code unpin}, {@code setTtl} and {@code unsetTtl} share: the path is
 * checked to exist (pinning a typo would protect nothing, silently), then the master journals the
 * change and every worker applies it.
 */
final class PathPolicyCalls {
  private PathPolicyCalls() {}

  static PathPolicies set(ShellContext ctx, String path, Boolean pinned, Long ttlMs) {
    String normalized = ctx.fs().getStatus(path).path();
    SetPathPolicyRequest.Builder req = SetPathPolicyRequest.newBuilder().setPath(normalized);
    if (pinned != null) {
      req.setPinned(pinned);
    }
    if (ttlMs != null) {
      req.setTtlMs(ttlMs);
    }
    PathPolicies now = ctx.master().call("setPathPolicy", s -> s.setPathPolicy(req.build()));
    int behind = now.getWorkersBehind();
    if (behind > 0) {
      ctx.err()
          .println(
              "strata: note: "
                  + behind
                  + (behind == 1 ? " worker has" : " workers have")
                  + " not applied it yet; they will with their next heartbeat");
    }
    return now;
  }

  /** The policies that apply to {@code path}: its own and its folders', nearest last. */
  static List<PathPolicy> applying(List<PathPolicy> all, String path) {
    return all.stream()
        .filter(
            p ->
                p.getPath().equals("/")
                    || path.equals(p.getPath())
                    || path.startsWith(p.getPath() + "/"))
        .toList();
  }

  /** "pinned", "TTL 1h", or both, of what applies to {@code path}; empty if nothing does. */
  static Optional<String> describe(List<PathPolicy> all, String path) {
    List<PathPolicy> applying = applying(all, path);
    Optional<PathPolicy> pin = applying.stream().filter(PathPolicy::getPinned).findFirst();
    Optional<PathPolicy> ttl =
        applying.stream().filter(p -> p.getTtlMs() > 0).reduce((first, nearer) -> nearer);
    StringBuilder s = new StringBuilder();
    pin.ifPresent(p -> s.append("pinned").append(from(p, path)));
    ttl.ifPresent(
        p ->
            s.append(s.length() > 0 ? ", " : "")
                .append("freed from the cache ")
                .append(duration(p.getTtlMs()))
                .append(" after it is cached")
                .append(from(p, path)));
    return s.length() == 0 ? Optional.empty() : Optional.of(s.toString());
  }

  private static String from(PathPolicy p, String path) {
    return p.getPath().equals(path) ? "" : " (set on " + p.getPath() + ")";
  }

  static String duration(long ms) {
    Duration d = Duration.ofMillis(ms);
    if (ms % 86_400_000 == 0) {
      return d.toDays() + "d";
    }
    if (ms % 3_600_000 == 0) {
      return d.toHours() + "h";
    }
    if (ms % 60_000 == 0) {
      return d.toMinutes() + "min";
    }
    return ms % 1000 == 0 ? d.toSeconds() + "s" : ms + "ms";
  }
}
