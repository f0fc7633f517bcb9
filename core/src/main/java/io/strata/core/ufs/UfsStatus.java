package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;

/**
 * What the under-storage says of one file or directory.
 *
 * @param fingerprint identifies this version of the file's bytes (for a local file: length, mtime
 *     in ns and inode); a file rewritten or replaced gets a different fingerprint
 */
public record UfsStatus(
    String name,
    boolean directory,
    long length,
    long mtimeMs,
    int mode,
    String owner,
    String group,
    String fingerprint) {

  /**
   * The status Strata shows for this entry at {@code path}, whose full under-storage URI is {@code
   * ufsUri}.
   */
  public FileStatus toProto(StrataPath path, String ufsUri) {
    return FileStatus.newBuilder()
        .setPath(path.toString())
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
