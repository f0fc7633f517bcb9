package io.strata.ufs.s3;

import io.strata.core.proto.FileType;
import io.strata.core.proto.PosixAttributes;
import io.strata.core.ufs.PosixModes;
import io.strata.core.ufs.UfsStatus;
import io.strata.core.ufs.UnderFileSystem;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * What S3 cannot hold natively, kept in an object's user metadata with the keys s3fs-fuse and
 * rclone use, so that a bucket written by either shows the same owners, modes and times through
 * Strata and the other way round: {@code x-amz-meta-mode} (st_mode in decimal, type bits included,
 * as s3fs writes it), {@code -uid}, {@code -gid}, and {@code -mtime}, {@code -atime}, {@code
 * -ctime} in seconds since the epoch (a fraction allowed: rclone writes one; s3fs reads the whole
 * seconds).
 *
 * <p>An object with a mode is a POSIX entry (its status carries {@link PosixAttributes}); an object
 * with only a time (rclone's) shows that time; other objects show what S3 itself says.
 */
final class S3Metadata {
  static final String MODE = "mode";
  static final String UID = "uid";
  static final String GID = "gid";
  static final String MTIME = "mtime";
  static final String ATIME = "atime";
  static final String CTIME = "ctime";
  static final String RDEV = "rdev";

  static final int S_IFREG = 0100000;
  static final int S_IFDIR = 0040000;
  static final int S_IFLNK = 0120000;
  private static final int S_IFMT = 0170000;
  private static final long NS = 1_000_000_000L;

  private S3Metadata() {}

  /**
   * The metadata of a new entry of type bits {@code type}: its mode (permission bits 0: {@code
   * defaultPerm}), owner and group where known (-1: not), and its times {@code timesNs} (-1: now).
   * A plain write (mode 0, no owner) gets none: objects written by S3 tools through Strata stay as
   * they would be.
   */
  static Map<String, String> ofNew(
      int type, int perm, long uid, long gid, int defaultPerm, long timesNs) {
    Map<String, String> m = new HashMap<>();
    if (perm == 0 && uid < 0 && gid < 0) {
      return m;
    }
    m.put(MODE, Integer.toString(type | (perm == 0 ? defaultPerm : perm & 07777)));
    if (uid >= 0) {
      m.put(UID, Long.toString(uid));
    }
    if (gid >= 0) {
      m.put(GID, Long.toString(gid));
    }
    String times = seconds(timesNs < 0 ? nowNs() : timesNs);
    m.put(MTIME, times);
    m.put(CTIME, times);
    return m;
  }

  /**
   * The metadata of a new folder's marker: its mode (0755, as s3fs writes it) and its times now to
   * the nanosecond: without them its times would be the marker's Last-Modified, whole seconds,
   * older than what was done in the folder's parent in the same second.
   */
  static Map<String, String> ofFolder() {
    return ofNew(S_IFDIR, S3Bucket.FOLDER_MODE, -1, -1, S3Bucket.FOLDER_MODE, -1);
  }

  /**
   * The metadata of a new link, FIFO, socket or device ({@code type} bits): exactly {@code mode},
   * the device number {@code rdev} (0: none), and its times now.
   */
  static Map<String, String> ofNode(int type, int mode, long rdev) {
    Map<String, String> m = new HashMap<>();
    m.put(MODE, Integer.toString(type | (mode & 07777)));
    if (rdev != 0) {
      m.put(RDEV, Long.toString(rdev));
    }
    String now = seconds(nowNs());
    m.put(MTIME, now);
    m.put(CTIME, now);
    return m;
  }

  /** {@code old} with the permission bits {@code perm}, keeping the type bits of {@code type}. */
  static Map<String, String> withMode(Map<String, String> old, int type, int perm) {
    Map<String, String> m = changed(old);
    m.put(MODE, Integer.toString(typeBits(old, type) | (perm & 07777)));
    return m;
  }

  /**
   * {@code old} with a new owner and group (-1: unchanged). As Linux does, a change of either
   * clears the setuid bit of a file and its setgid bit where group execution is on.
   */
  static Map<String, String> withOwner(
      Map<String, String> old, int type, int defaultPerm, long uid, long gid) {
    Map<String, String> m = changed(old);
    if (uid >= 0) {
      m.put(UID, Long.toString(uid));
    }
    if (gid >= 0) {
      m.put(GID, Long.toString(gid));
    }
    int mode = mode(old, type | defaultPerm);
    if ((mode & S_IFMT) != S_IFDIR && (uid >= 0 || gid >= 0)) {
      mode &= ~04000;
      if ((mode & 0010) != 0) {
        mode &= ~02000;
      }
    }
    m.put(MODE, Integer.toString(mode));
    return m;
  }

  /**
   * {@code old} with new access and modification times in ns ({@link UnderFileSystem#TIME_NOW},
   * {@link UnderFileSystem#TIME_OMIT} as utimensat(2) has them).
   */
  static Map<String, String> withTimes(Map<String, String> old, long atimeNs, long mtimeNs) {
    Map<String, String> m = changed(old);
    long now = nowNs();
    if (atimeNs != UnderFileSystem.TIME_OMIT) {
      m.put(ATIME, seconds(atimeNs == UnderFileSystem.TIME_NOW ? now : atimeNs));
    }
    if (mtimeNs != UnderFileSystem.TIME_OMIT) {
      m.put(MTIME, seconds(mtimeNs == UnderFileSystem.TIME_NOW ? now : mtimeNs));
    }
    return m;
  }

  /** A copy of {@code old} whose change time is now, as any change of attributes sets it. */
  private static Map<String, String> changed(Map<String, String> old) {
    Map<String, String> m = new HashMap<>(old);
    m.put(CTIME, seconds(nowNs()));
    return m;
  }

  /** The type bits of the entry's own mode, else {@code type}. */
  private static int typeBits(Map<String, String> m, int type) {
    int mode = mode(m, -1);
    return mode < 0 || (mode & S_IFMT) == 0 ? type : mode & S_IFMT;
  }

  /** The file type the metadata names; REGULAR for an object without a mode. */
  static FileType type(Map<String, String> m) {
    int mode = mode(m, -1);
    return mode < 0 ? FileType.REGULAR : PosixModes.type(mode);
  }

  /**
   * {@code plain}, the status S3 itself gives an object or folder marker, with what its metadata
   * adds; {@code symlinkTarget} is read only for a symbolic link.
   */
  static UfsStatus apply(
      UfsStatus plain, Map<String, String> m, java.util.function.Supplier<String> symlinkTarget) {
    long modifiedNs = plain.mtimeMs() * 1_000_000;
    long mtimeNs = timeNs(m.get(MTIME), modifiedNs);
    int mode = mode(m, -1);
    if (mode < 0) {
      return mtimeNs == modifiedNs ? plain : withTime(plain, mtimeNs);
    }
    FileType type = plain.directory() ? FileType.DIRECTORY : PosixModes.type(mode);
    if (type == FileType.DIRECTORY && !plain.directory()) {
      // An object (no "/" at its end) that calls itself a folder, as old s3fs versions wrote
      // them: its key is a file's here, and it shows as one.
      type = FileType.REGULAR;
    }
    PosixAttributes.Builder posix =
        PosixAttributes.newBuilder()
            .setType(type)
            .setMode(mode & 07777)
            .setUid((int) number(m.get(UID), 0))
            .setGid((int) number(m.get(GID), 0))
            .setNlink(plain.directory() ? 2 : 1)
            .setMtimeNs(mtimeNs)
            .setAtimeNs(timeNs(m.get(ATIME), mtimeNs))
            .setCtimeNs(timeNs(m.get(CTIME), modifiedNs))
            .setRdev(number(m.get(RDEV), 0));
    long length = plain.length();
    if (type == FileType.SYMLINK) {
      String target = symlinkTarget.get();
      posix.setSymlinkTarget(target);
      length = target.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
    }
    return new UfsStatus(
        plain.name(),
        plain.directory(),
        length,
        mtimeNs / 1_000_000,
        mode & 0777,
        plain.owner(),
        plain.group(),
        plain.fingerprint(),
        posix.build());
  }

  private static UfsStatus withTime(UfsStatus s, long mtimeNs) {
    return new UfsStatus(
        s.name(),
        s.directory(),
        s.length(),
        mtimeNs / 1_000_000,
        s.mode(),
        s.owner(),
        s.group(),
        s.fingerprint(),
        s.posix());
  }

  private static int mode(Map<String, String> m, int otherwise) {
    long mode = number(m.get(MODE), otherwise);
    return mode < 0 || mode > 0177777 ? otherwise : (int) mode;
  }

  /** A decimal number, or {@code otherwise} if absent or not one (written by some other tool). */
  private static long number(String s, long otherwise) {
    if (s == null) {
      return otherwise;
    }
    try {
      long n = Long.parseLong(s.trim());
      return n < 0 || n > 0xffffffffL ? otherwise : n;
    } catch (NumberFormatException e) {
      return otherwise;
    }
  }

  /** Seconds since the epoch, whole or with a fraction, in ns; {@code otherwise} if not that. */
  static long timeNs(String s, long otherwise) {
    if (s == null) {
      return otherwise;
    }
    try {
      BigDecimal seconds = new BigDecimal(s.trim());
      return seconds.movePointRight(9).setScale(0, RoundingMode.FLOOR).longValueExact();
    } catch (NumberFormatException | ArithmeticException e) {
      return otherwise;
    }
  }

  /** {@code ns} as seconds: whole where it is (as s3fs writes), else with nine decimals. */
  static String seconds(long ns) {
    return ns % NS == 0 ? Long.toString(ns / NS) : BigDecimal.valueOf(ns, 9).toPlainString();
  }

  private static long nowNs() {
    Instant now = Instant.now();
    return now.getEpochSecond() * NS + now.getNano();
  }
}
