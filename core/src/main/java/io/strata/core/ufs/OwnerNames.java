package io.strata.core.ufs;

import com.github.benmanes.caffeine.cache.Cache;
import io.strata.core.util.Caches;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.time.Duration;

/**
 * The names of local users and groups by id, kept for a minute. The JDK names a file's owner and
 * group by calling getpwuid_r and getgrgid_r for every status it reads, and without a name service
 * cache glibc opens and parses /etc/passwd and /etc/group each time: 0.2 ms of a cold file's
 * look-up, and of every child of a listing. A user renamed or recreated shows under its new name
 * within the minute. Thread-safe.
 */
final class OwnerNames {
  private static final Duration KEPT = Duration.ofMinutes(1);
  private static final Cache<Integer, String> USERS =
      Caches.builder().expireAfterWrite(KEPT).maximumSize(10_000).build();
  private static final Cache<Integer, String> GROUPS =
      Caches.builder().expireAfterWrite(KEPT).maximumSize(10_000).build();

  private OwnerNames() {}

  /** The name of user {@code uid}, the owner of {@code p} (asked of the system if not kept). */
  static String user(int uid, Path p) throws IOException {
    try {
      return USERS.get(uid, k -> attributes(p).owner().getName());
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** The name of group {@code gid}, the group of {@code p}. */
  static String group(int gid, Path p) throws IOException {
    try {
      return GROUPS.get(gid, k -> attributes(p).group().getName());
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  private static PosixFileAttributeView owners(Path p) {
    return Files.getFileAttributeView(p, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
  }

  private static java.nio.file.attribute.PosixFileAttributes attributes(Path p) {
    try {
      return owners(p).readAttributes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
