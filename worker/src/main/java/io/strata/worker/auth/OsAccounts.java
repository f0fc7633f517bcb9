package io.strata.worker.auth;

import com.github.benmanes.caffeine.cache.Cache;
import io.strata.core.util.Caches;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A user's numeric ids on this host ({@code id}'s uid, primary gid and groups), so that what a user
 * makes in a store that keeps numeric owners (a local or NFS folder, S3 as s3fs keeps it) is that
 * user's. A user name that is a number and no account's is that uid, in the group of the same
 * number (a token may name users by uid where workers share no user database). Cached for a few
 * minutes.
 */
public final class OsAccounts implements Function<String, Optional<OsAccounts.Ids>> {
  /** A uid, a primary gid and the supplementary groups. */
  public record Ids(long uid, long gid, List<Long> groups) {
    public Ids {
      groups = List.copyOf(groups);
    }

    /** Only the primary group. */
    public Ids(long uid, long gid) {
      this(uid, gid, List.of(gid));
    }
  }

  private static final Duration TTL = Duration.ofMinutes(5);
  private static final long LOOKUP_TIMEOUT_MS = 2000;
  private static final Pattern IDS =
      Pattern.compile("uid=(\\d+)\\S* gid=(\\d+)\\S*(?: groups=(\\S+))?");
  private static final Pattern GROUP = Pattern.compile("(\\d+)(?:\\([^)]*\\))?");
  private static final Pattern NUMBER = Pattern.compile("\\d{1,9}");

  private final Cache<String, Optional<Ids>> cache =
      Caches.builder().expireAfterWrite(TTL).maximumSize(10_000).build();

  @Override
  public Optional<Ids> apply(String user) {
    return cache.get(user, OsAccounts::lookUp);
  }

  private static Optional<Ids> lookUp(String user) {
    Optional<Ids> account = ask(user);
    if (account.isEmpty() && NUMBER.matcher(user).matches()) {
      long id = Long.parseLong(user);
      account = Optional.of(new Ids(id, id));
    }
    // A token may name root ("root", "0", or another name of uid 0): a checked user is never
    // given the superuser's ids to act as or to own with (issue 78); such a user is nobody here.
    return account.filter(ids -> ids.uid() != 0);
  }

  /** {@code id}'s "1000(alice),27(sudo)". */
  private static List<Long> groups(String list) {
    List<Long> ids = new ArrayList<>();
    Matcher m = GROUP.matcher(list);
    while (m.find()) {
      ids.add(Long.parseLong(m.group(1)));
    }
    return ids;
  }

  private static Optional<Ids> ask(String user) {
    try {
      Process p = new ProcessBuilder("id", "--", user).start();
      p.getOutputStream().close();
      if (!p.waitFor(LOOKUP_TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        return Optional.empty();
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      Matcher m = IDS.matcher(out);
      if (p.exitValue() != 0 || !m.find()) {
        return Optional.empty();
      }
      long uid = Long.parseLong(m.group(1));
      long gid = Long.parseLong(m.group(2));
      return Optional.of(new Ids(uid, gid, m.group(3) == null ? List.of(gid) : groups(m.group(3))));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
