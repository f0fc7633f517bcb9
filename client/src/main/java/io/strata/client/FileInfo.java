package io.strata.client;

import io.strata.core.proto.FileStatus;

/**
 * What Strata knows of a file or directory.
 *
 * @param fingerprint identifies this version of the file; reads return bytes of this version only
 * @param cachedBytes bytes of this version in the owning worker's cache, or -1 if not asked for
 */
public record FileInfo(
    String path,
    String name,
    boolean directory,
    long length,
    long mtimeMs,
    int mode,
    String owner,
    String group,
    String fingerprint,
    String ufsPath,
    long cachedBytes) {

  static FileInfo fromProto(FileStatus s) {
    return new FileInfo(
        s.getPath(),
        s.getName(),
        s.getDirectory(),
        s.getLength(),
        s.getMtimeMs(),
        s.getMode(),
        s.getOwner(),
        s.getGroup(),
        s.getFingerprint(),
        s.getUfsPath(),
        s.getCachedBytes());
  }
}
