package io.strata.client;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FileType;
import io.strata.core.proto.PosixAttributes;

/**
 * What Strata knows of a file or directory.
 *
 * @param fingerprint identifies this version of the file; reads return bytes of this version only
 * @param cachedBytes bytes of this version in the owning worker's cache, or -1 if not asked for
 * @param listedOnly an entry of a listing that leaves out what the store keeps per object (S3's
 *     mode, owner, times and type are in each object's metadata): its name, length and fingerprint
 *     are the file's, the rest are defaults, and {@link FileSystem#getStatus} gives them
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
    long cachedBytes,
    PosixAttributes posix,
    boolean listedOnly) {

  /** A status without POSIX attributes (a store that keeps none). */
  public FileInfo(
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
    this(
        path,
        name,
        directory,
        length,
        mtimeMs,
        mode,
        owner,
        group,
        fingerprint,
        ufsPath,
        cachedBytes,
        null,
        false);
  }

  /** The entry's type: from the POSIX attributes where the store keeps them. */
  public FileType type() {
    if (posix != null && posix.getType() != FileType.FILE_TYPE_UNSPECIFIED) {
      return posix.getType();
    }
    return directory ? FileType.DIRECTORY : FileType.REGULAR;
  }

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
        s.getCachedBytes(),
        s.hasPosix() ? s.getPosix() : null,
        s.getListedOnly());
  }
}
