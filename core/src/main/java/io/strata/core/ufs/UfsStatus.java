package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.PosixAttributes;

/**
 * What the under-storage says of one file or directory.
 *
 * @param fingerprint identifies this version of the file's bytes (for a local file: length, mtime
 *     in ns and inode); a file rewritten or replaced gets a different fingerprint
 * @param posix what a POSIX store says beyond the rest (type, numeric owner, links, times in ns);
 *     null for other stores
 */
public record UfsStatus(
    String name,
    boolean directory,
    long length,
    long mtimeMs,
    int mode,
    String owner,
    String group,
    String fingerprint,
    PosixAttributes posix) {

  /** The status of a store that keeps no POSIX attributes. */
  public UfsStatus(
      String name,
      boolean directory,
      long length,
      long mtimeMs,
      int mode,
      String owner,
      String group,
      String fingerprint) {
    this(name, directory, length, mtimeMs, mode, owner, group, fingerprint, null);
  }

  /**
   * The status Strata shows for this entry at {@code path}, whose full under-storage URI is {@code
   * ufsUri}.
   */
  public FileStatus toProto(StrataPath path, String ufsUri) {
    return toProto(path, ufsUri, false);
  }

  /**
   * As {@link #toProto(StrataPath, String)}, for an entry of a listing that {@code listedOnly}
   * leaves attributes out of ({@link UnderFileSystem#listsAttributes}).
   */
  public FileStatus toProto(StrataPath path, String ufsUri, boolean listedOnly) {
    FileStatus.Builder b = FileStatus.newBuilder().setListedOnly(listedOnly);
    if (posix != null) {
      b.setPosix(posix);
    }
    return b.setPath(path.toString())
        .setName(path.name())
        .setDirectory(directory)
        .setLength(length)
        .setMtimeMs(mtimeMs)
        .setMode(mode)
        .setOwner(owner)
        .setGroup(group)
        .setFingerprint(fingerprint)
        .setUfsPath(ufsUri)
        .setCachedBytes(-1)
        .build();
  }
}
