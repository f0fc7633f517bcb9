package io.strata.client;

import io.strata.core.conf.Configuration;
import io.strata.core.proto.FileType;
import io.strata.core.proto.TimeChange;
import io.strata.core.security.Credentials;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Strata's file system API. Paths are absolute Strata paths ("/data/x"); malformed paths and
 * failures raise {@link io.strata.core.status.StrataException} with a code and a one-line message.
 *
 * <p>Implementations are thread-safe; one instance should be shared by a whole program, and closed
 * when it ends.
 */
public interface FileSystem extends AutoCloseable {
  /** A client calling with the credentials {@code conf} and this host give its user. */
  static FileSystem create(Configuration conf) {
    return create(conf, Credentials.of(conf));
  }

  /**
   * A client calling with {@code credentials} (made for {@code conf}'s TLS): a process serving
   * several users (the S3 endpoint) holds one per user, so that the cluster checks each one's
   * rights and no status one may see is cached for another.
   */
  static FileSystem create(Configuration conf, Credentials credentials) {
    return new StrataFileSystem(conf, credentials);
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

  /**
   * The children of a directory, sorted by name, fetched {@code pageSize} at a time as the caller
   * reads on (a call each), so that a folder too large to hold is never held whole here. Not
   * cached.
   */
  default Iterator<FileInfo> listStatusPaged(String path, int pageSize) {
    return listStatusPaged(path, "", pageSize);
  }

  /**
   * As {@link #listStatusPaged(String, int)}, from the children whose names sort after {@code
   * startAfter} ("" from the first): a listing resumed in the middle of a large folder asks for no
   * page before it.
   */
  Iterator<FileInfo> listStatusPaged(String path, String startAfter, int pageSize);

  FileInStream open(String path);

  /**
   * Opens exactly this version of a file (as a status this client returned names it): its bytes, or
   * FAILED_PRECONDITION when they can no longer be had (the file changed in the under-storage and
   * the cache no longer holds them). For readers that already told someone the file's size.
   */
  FileInStream open(FileInfo version);

  /**
   * The name under which the worker on this host keeps exactly this version whole, for FUSE
   * passthrough (the kernel reads it itself); empty when its owner is not on this host or lets this
   * process read none of its files (short-circuit off). Computed, not looked up: the name may not
   * exist, and the worker's account owns its folder. Open it without following a link, check that
   * it is a plain file of the version's length, and rely only on what is open: the worker may evict
   * it at any time, and what is open stays readable.
   */
  Optional<java.nio.file.Path> wholeFile(FileInfo version);

  /**
   * Has the worker on this host keep this version whole under its {@link #wholeFile} name, reading
   * it from the under-storage first if it keeps none yet: a cold open then reads the under-storage
   * once, and the kernel serves the rest from the file. Blocks while the worker reads; true once it
   * is sealed. False without asking when the owner is not on this host, or the version is shorter
   * than the least the worker keeps whole or longer than {@code maxLength}; false too when the
   * worker does not keep it (no room, a failure to read it).
   */
  boolean keepWhole(FileInfo version, long maxLength);

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

  /** mkdir with the creator's mode and owner (where the under-storage keeps them). */
  void mkdir(String path, boolean parents, NewEntry entry);

  /**
   * A symbolic link at {@code path} to {@code target}, kept as given (never resolved by Strata);
   * refused with NOT_PERMITTED where the under-storage cannot hold one.
   */
  void createSymlink(String path, String target, NewEntry entry);

  /** A hard link at {@code path} to the file {@code existing}, where the under-storage has them. */
  void createHardLink(String existing, String path);

  /** A FIFO, socket or device node ({@code rdev}: its device number), where the store has them. */
  void createSpecial(String path, FileType type, long rdev, NewEntry entry);

  void delete(String path, boolean recursive);

  /** Renames; fails if {@code dst} exists. */
  void rename(String src, String dst);

  /**
   * Renames as rename(2) does: an existing file, or an empty folder in place of a folder, is
   * replaced in one step where the under-storage can; elsewhere an existing {@code dst} fails.
   */
  void renameReplacing(String src, String dst);

  /**
   * The workers that serve {@code path}, as {@code host:port} worker ids: its owner first, then
   * those reads and look-ups fail over to, in order.
   */
  List<String> owners(String path);

  /** chmod: sets the permission bits (07777: setuid, setgid and sticky too) of {@code path}. */
  void setMode(String path, int mode);

  /**
   * lchown: sets the numeric owner and/or group ({@code -1}: unchanged) of the entry itself, where
   * the under-storage keeps numeric owners.
   */
  void setOwnerIds(String path, long uid, long gid);

  /**
   * utimensat: sets the access and modification times of the entry itself (a value not set leaves
   * that time as it is). A new modification time is a new version of the file.
   */
  void setTimes(String path, TimeChange atime, TimeChange mtime);

  /** chown: sets owner and/or group by name (empty: unchanged). */
  void setOwner(String path, String owner, String group);

  /** touch: sets the modification time; pages cached of the file before are not served again. */
  void setModificationTime(String path, long epochMs);

  /**
   * The extended attributes of the user namespace of the entry itself, by full name ({@code
   * user.NAME}); none where the under-storage keeps none.
   */
  Map<String, byte[]> xattrs(String path);

  /**
   * setxattr / removexattr: sets attribute {@code name} ({@code user.NAME}, at most 255 bytes) of
   * the entry itself to {@code value} (at most 64 KiB), or removes it ({@code value} null).
   */
  void setXattr(String path, String name, byte[] value);

  /**
   * What the workers say changed through other clients or in the under-storage, as a watched
   * metadata cache hears it ({@code strata.user.metadata.cache.watch}): a FUSE mount tells the
   * kernel. Called on the watch's threads, after the cache dropped what the event names.
   */
  interface ChangesElsewhere {
    /** {@code paths} changed (and, {@code recursive}, all below them). */
    void changed(List<String> paths, boolean recursive);

    /** Anything may have changed (a watch broke, a mount went). */
    void changedAll();
  }

  /** Tells {@code listener} of changes made elsewhere, from now on (nothing if not watched). */
  void onChangesElsewhere(ChangesElsewhere listener);

  @Override
  void close();
}
