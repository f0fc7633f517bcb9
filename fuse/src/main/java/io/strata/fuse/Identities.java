package io.strata.fuse;

import io.strata.core.status.StrataException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jnr.posix.Group;
import jnr.posix.POSIX;
import jnr.posix.POSIXFactory;
import jnr.posix.Passwd;

/**
 * Local uid and gid for the owner and group names the UFS reports: a fixed user or group when
 * configured (strata.fuse.user, strata.fuse.group); else the local account of the same name; else
 * the user running the mount. Look-ups are remembered.
 */
final class Identities {
  private final POSIX posix = POSIXFactory.getNativePOSIX();
  private final long fixedUid;
  private final long fixedGid;
  private final long ownUid;
  private final long ownGid;
  private final Map<String, Long> uids = new ConcurrentHashMap<>();
  private final Map<String, Long> gids = new ConcurrentHashMap<>();

  Identities(String user, String group) {
    ownUid = posix.getuid();
    ownGid = posix.getgid();
    fixedUid = user.isEmpty() ? -1 : uid(user, true);
    fixedGid = group.isEmpty() ? -1 : gid(group, true);
  }

  long uid(String owner) {
    return fixedUid >= 0 ? fixedUid : uids.computeIfAbsent(owner, o -> uid(o, false));
  }

  /** A numeric owner as the under-storage keeps it, unless a fixed user is configured. */
  long uid(long uid) {
    return fixedUid >= 0 ? fixedUid : uid;
  }

  long gid(long gid) {
    return fixedGid >= 0 ? fixedGid : gid;
  }

  long gid(String group) {
    return fixedGid >= 0 ? fixedGid : gids.computeIfAbsent(group, g -> gid(g, false));
  }

  /** The local user name of {@code uid} (for chown). */
  String userName(long uid) {
    Passwd p = posix.getpwuid((int) uid);
    if (p == null) {
      throw StrataException.invalidArgument("no local user has uid " + uid);
    }
    return p.getLoginName();
  }

  String groupName(long gid) {
    Group g = posix.getgrgid((int) gid);
    if (g == null) {
      throw StrataException.invalidArgument("no local group has gid " + gid);
    }
    return g.getName();
  }

  private long uid(String name, boolean required) {
    Passwd p = name.isEmpty() ? null : posix.getpwnam(name);
    if (p == null && required) {
      throw new IllegalArgumentException("strata.fuse.user: no local user " + name);
    }
    return p == null ? ownUid : p.getUID();
  }

  private long gid(String name, boolean required) {
    Group g = name.isEmpty() ? null : posix.getgrnam(name);
    if (g == null && required) {
      throw new IllegalArgumentException("strata.fuse.group: no local group " + name);
    }
    return g == null ? ownGid : g.getGID();
  }
}
