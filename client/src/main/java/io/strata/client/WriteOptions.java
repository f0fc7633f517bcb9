package io.strata.client;

import io.strata.core.conf.UserKeys.WriteType;

/**
 * How to create a file.
 *
 * @param writeType null uses strata.user.write.type
 * @param mode permission bits, 0 for the UFS default
 * @param uid the new file's numeric owner where the UFS keeps one; -1: the worker's
 * @param gid likewise its group
 * @param inPlace rewrite the existing file itself where the under-storage can (a local folder: the
 *     same inode, links, mode and owner; not atomic, a reader of the folder may see it part
 *     written); other stores replace it whole
 * @param createdAtMs when the writer began the file (ms since the epoch): its times where the
 *     under-storage keeps times it is given (S3); -1: when the worker begins it
 */
public record WriteOptions(
    boolean overwrite,
    WriteType writeType,
    int mode,
    long uid,
    long gid,
    boolean inPlace,
    long createdAtMs) {
  public static final WriteOptions DEFAULT = new WriteOptions(false, null, 0);

  public WriteOptions(boolean overwrite, WriteType writeType, int mode) {
    this(overwrite, writeType, mode, -1, -1);
  }

  public WriteOptions(boolean overwrite, WriteType writeType, int mode, long uid, long gid) {
    this(overwrite, writeType, mode, uid, gid, false, -1);
  }

  /** These options, rewriting an existing file in place. */
  public WriteOptions rewritingInPlace() {
    return new WriteOptions(true, writeType, mode, uid, gid, true, createdAtMs);
  }

  /** These options, for a file its writer began at {@code ms} (since the epoch). */
  public WriteOptions createdAt(long ms) {
    return new WriteOptions(overwrite, writeType, mode, uid, gid, inPlace, ms);
  }

  public static WriteOptions overwriting() {
    return new WriteOptions(true, null, 0);
  }
}
