package io.strata.core.ufs;

/**
 * How to create a file.
 *
 * @param mode permission bits; 0 leaves them to the UFS's default (umask)
 * @param sync make the bytes durable before the file is published under its final name, so that a
 *     power loss never leaves a file there without its bytes (off only for stores that need not)
 * @param uid the new file's numeric owner where the store keeps one; -1: the writing process's
 * @param gid likewise its group
 * @param inPlace rewrite an existing file itself where the store can (see {@link
 *     UnderFileSystem#create})
 * @param createdAtMs the new file's times (ms since the epoch) where the store keeps times it is
 *     given (S3's metadata; a file system's own clock sets them otherwise); -1: now
 */
public record CreateOptions(
    boolean overwrite,
    boolean createParents,
    int mode,
    boolean sync,
    long uid,
    long gid,
    boolean inPlace,
    long createdAtMs) {
  public static final CreateOptions DEFAULT = new CreateOptions(false, true, 0, true);

  public CreateOptions(boolean overwrite, boolean createParents, int mode) {
    this(overwrite, createParents, mode, true);
  }

  public CreateOptions(boolean overwrite, boolean createParents, int mode, boolean sync) {
    this(overwrite, createParents, mode, sync, -1, -1);
  }

  public CreateOptions(
      boolean overwrite, boolean createParents, int mode, boolean sync, long uid, long gid) {
    this(overwrite, createParents, mode, sync, uid, gid, false, -1);
  }

  /** These options, rewriting an existing file itself where the store can. */
  public CreateOptions rewritingInPlace() {
    return new CreateOptions(overwrite, createParents, mode, sync, uid, gid, true, createdAtMs);
  }
}
