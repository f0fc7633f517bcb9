package io.strata.client;

import io.strata.core.conf.Configuration;
import java.util.List;
import java.util.Optional;

/**
 * Strata's file system API. Paths are absolute Strata paths ("/data/x"); malformed paths and
 * failures raise {@link io.strata.core.status.StrataException} with a code and a one-line message.
 *
 * <p>Implementations are thread-safe; one instance should be shared by a whole program, and closed
 * when it ends.
 */
public interface FileSystem extends AutoCloseable {
  static FileSystem create(Configuration conf) {
    return new StrataFileSystem(conf);
  }

  /** This client's live configuration: what it was created with, plus the cluster's overrides. */
  Configuration conf();

  FileInfo getStatus(String path);

  /** The status, with how much of the file is cached ({@link FileInfo#cachedBytes()}). */
  FileInfo getStatusWithCacheInfo(String path);

  /** The status, or empty when nothing is at {@code path}. */
  Optional<FileInfo> findStatus(String path);

  default boolean exists(String path) {
    return findStatus(path).isPresent();
  }

  /** The children of a directory, sorted by name. */
  List<FileInfo> listStatus(String path);

  FileInStream open(String path);

  /**
   * Opens exactly this version of a file (as a status this client returned names it): its bytes, or
   * FAILED_PRECONDITION when they can no longer be had (the file changed in the under-storage and
   * the cache no longer holds them). For readers that already told someone the file's size.
   */
  FileInStream open(FileInfo version);

  FileOutStream create(String path, WriteOptions options);

  /**
   * Drops the cached pages of a file, or of every file below a directory; returns the bytes
   * dropped.
   */
  long free(String path);

  /**
   * Makes every worker forget what it caches of {@code path} (with {@code recursive}, of everything
   * under it too), so that the next look-up reads the under-storage and a changed file is seen at
   * once; returns how many workers were told.
   */
  int invalidate(String path, boolean recursive);

  void mkdir(String path, boolean parents);

  void delete(String path, boolean recursive);

  /** Renames; fails if {@code dst} exists. */
  void rename(String src, String dst);

  /**
   * The workers that serve {@code path}, as {@code host:port} worker ids: its owner first, then
   * those reads and look-ups fail over to, in order.
   */
  List<String> owners(String path);

  /** chmod: sets the permission bits (0777) of {@code path}. */
  void setMode(String path, int mode);

  /** chown: sets owner and/or group by name (empty: unchanged). */
  void setOwner(String path, String owner, String group);

  /** touch: sets the modification time; pages cached of the file before are not served again. */
  void setModificationTime(String path, long epochMs);

  @Override
  void close();
}
