package io.strata.worker.auth;

import com.github.benmanes.caffeine.cache.Cache;
import io.strata.core.util.Caches;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The groups of a user as this host's user database has them ({@code id -Gn}), as HDFS's default
 * group mapping finds them on its NameNode; none for a user the host does not know. Cached for a
 * few minutes, so a check costs a look-up once per user.
 */
final class OsGroups implements Function<String, Set<String>> {
  private static final Duration TTL = Duration.ofMinutes(5);
  private static final long LOOKUP_TIMEOUT_MS = 2000;

  private final Cache<String, Set<String>> cache =
      Caches.builder().expireAfterWrite(TTL).maximumSize(10_000).build();

  @Override
  public Set<String> apply(String user) {
    return cache.get(user, OsGroups::lookUp);
  }

  private static Set<String> lookUp(String user) {
    try {
      Process p = new ProcessBuilder("id", "-Gn", "--", user).redirectErrorStream(false).start();
      p.getOutputStream().close();
      if (!p.waitFor(LOOKUP_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return Set.of();
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return p.exitValue() == 0 && !out.isEmpty() ? Set.of(out.split("\\s+", -1)) : Set.of();
    } catch (IOException e) {
      return Set.of();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Set.of();
    }
  }
}
