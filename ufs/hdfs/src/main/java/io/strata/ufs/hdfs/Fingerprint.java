package io.strata.ufs.hdfs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;

/**
 * A file version as the fingerprint {@code hdfs:INODE:LENGTH:MTIME[:CHECKSUM]} names it. The inode
 * id changes when a file is replaced (ids are never reused), length and time when it is appended to
 * or truncated.
 */
record Fingerprint(long fileId, long length, long mtime) {
  private static final String PREFIX = "hdfs:";

  static String of(long fileId, long length, long mtime) {
    return PREFIX + fileId + ":" + length + ":" + mtime;
  }

  static Fingerprint parse(StrataPath path, String fingerprint) {
    String[] parts = fingerprint.split(":", -1);
    if ((parts.length == 4 || parts.length == 5) && fingerprint.startsWith(PREFIX)) {
      try {
        long length = Long.parseLong(parts[2]);
        if (length >= 0) {
          return new Fingerprint(Long.parseLong(parts[1]), length, Long.parseLong(parts[3]));
        }
      } catch (NumberFormatException e) {
        // Refused below, as any other malformed one.
      }
    }
    throw new StrataException(
        StatusCode.FAILED_PRECONDITION, path + " has no HDFS version '" + fingerprint + "'");
  }
}
