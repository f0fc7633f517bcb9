package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileType;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.Closeable;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * One under-storage (a local or NFS folder, an S3 bucket, HDFS or another Hadoop-compatible store)
 * seen from its root. Paths are relative to that root, already normalized ({@link StrataPath}
 * cannot climb above it); implementations additionally refuse to follow links out of the root.
 *
 * <p>Failures are {@link io.strata.core.status.StrataException}s with the path in the message.
 * Implementations are thread-safe.
 */
public interface UnderFileSystem extends Closeable {
  /** For {@link #setTimes}: the current time. */
  long TIME_NOW = Long.MIN_VALUE;

  /** For {@link #setTimes}: leave this time as it is. */
  long TIME_OMIT = Long.MIN_VALUE + 1;

  /** The root, as a URI such as {@code file:///data}. */
  String uri();

  UfsStatus getStatus(StrataPath path);

  /**
   * The children of a directory; the caller closes the stream. A path that is a file fails with
   * NOT_A_DIRECTORY (never lists the file itself): {@code strata fs ls} relies on it to show a
   * file.
   */
  Stream<UfsStatus> list(StrataPath path);

  /**
   * Whether {@link #list} gives each entry's whole status. False for a store that keeps attributes
   * in per-object metadata its listings leave out (S3): an entry's mode, owner, times and type are
   * then the defaults, and {@link #getStatus} of the entry gives them.
   */
  default boolean listsAttributes() {
    return true;
  }

  /**
   * One page of every file under folder {@code dir} at any depth, folders left out, in the order
   * the store lists keys: those after {@code startAfter} (a path relative to {@code dir}, "" from
   * the start), at most {@code limit}. Each status's name is its path relative to {@code dir}. Only
   * stores that list a tree in one paged listing have it ({@link UfsFactory#listsFlat}).
   */
  default List<UfsStatus> listFiles(StrataPath dir, String startAfter, int limit) {
    throw new StrataException(
        StatusCode.FAILED_PRECONDITION,
        uri() + " lists folder by folder, not a whole tree at once");
  }

  UfsReader openReader(StrataPath path);

  /**
   * A hint that the first {@code length} bytes of {@code path} are read soon: a store that can
   * start fetching them without waiting does so. Never fails; this default does nothing.
   */
  default void willNeed(StrataPath path, long length) {}

  /**
   * Whether a file's consecutive runs of pages ({@link UfsReader#readFully(long,
   * java.nio.ByteBuffer[])}) are best read one after another, each continuing where the one before
   * stopped: a store whose reads cost most at their start and that keeps a stream going between
   * runs (HDFS: a DataNode read operation). Readers then read a file's runs in order, one at a
   * time, instead of several at once. This default: no, runs are independent requests.
   */
  default boolean continuesRuns() {
    return false;
  }

  /**
   * A reader of the version {@code fingerprint} names, for reading pages of it: a store that can
   * name a version in each read (S3's ETag) needs no look-up first; others open the file as it is
   * and leave the caller to compare {@link UfsReader#currentFingerprint} after reading.
   */
  default UfsReader openVersion(StrataPath path, String fingerprint) {
    return openReader(path);
  }

  /**
   * A new file, or a new version of one, that appears whole on close. With {@link
   * CreateOptions#inPlace} a store that can rewrites an existing file itself instead (the same
   * inode, links, mode and owner, as programs that update a file in place expect), not atomically;
   * others replace it whole.
   */
  UfsOutputStream create(StrataPath path, CreateOptions options);

  void mkdirs(StrataPath path, boolean parents);

  /**
   * As {@link #mkdirs(StrataPath, boolean)}; a store that keeps numeric owners gives the folders
   * made above {@code path} the owner {@code uid} and group {@code gid} (-1: unchanged), those this
   * call made only. The folder itself is the caller's to give ({@link #setOwnerIds}).
   */
  default void mkdirs(StrataPath path, boolean parents, long uid, long gid) {
    mkdirs(path, parents);
  }

  void delete(StrataPath path, boolean recursive);

  /**
   * Changes permission bits ({@code mode} &lt; 0: unchanged; only the 0777 bits) and owner and
   * group (empty: unchanged). Changing neither the bytes nor the time, it keeps the file's
   * fingerprint, so cached pages stay valid.
   */
  void setAttributes(StrataPath path, int mode, String owner, String group);

  /**
   * Sets the modification time (touch). The time is part of a file's fingerprint: pages cached of
   * the file before are not served for it afterwards.
   */
  void setModificationTime(StrataPath path, long epochMs);

  /** Renames; refuses to replace an existing {@code dst}. */
  void rename(StrataPath src, StrataPath dst);

  /**
   * Renames as POSIX rename(2) does where the store can: an existing file, or an empty folder in
   * place of a folder, is replaced in one step. Stores that cannot replace atomically refuse an
   * existing {@code dst}, as {@link #rename} does.
   */
  default void renameReplacing(StrataPath src, StrataPath dst) {
    rename(src, dst);
  }

  /**
   * Sets the numeric owner and group ({@code -1}: unchanged) of the entry itself, a symbolic link
   * included (lchown). Refused (NOT_PERMITTED) by stores without numeric owners.
   */
  /**
   * Whether the store keeps owners as numbers ({@link #setOwnerIds}): what a user makes there is
   * given the user's own ids.
   */
  default boolean keepsNumericOwners() {
    return false;
  }

  default void setOwnerIds(StrataPath path, long uid, long gid) {
    throw notSupported("numeric owners", path);
  }

  /**
   * Sets the access and modification times, in ns since the epoch, {@link #TIME_NOW} or {@link
   * #TIME_OMIT}, of the entry itself. A new modification time is a new fingerprint.
   */
  default void setTimes(StrataPath path, long atimeNs, long mtimeNs) {
    if (mtimeNs == TIME_OMIT) {
      return;
    }
    setModificationTime(
        path, mtimeNs == TIME_NOW ? System.currentTimeMillis() : mtimeNs / 1_000_000);
  }

  /** Creates a symbolic link at {@code path} whose target is {@code target}, taken as it is. */
  default void createSymlink(StrataPath path, String target) {
    throw notSupported("symbolic links", path);
  }

  /** Makes {@code path} a hard link to the file {@code existing}. */
  default void createHardLink(StrataPath existing, StrataPath path) {
    throw notSupported("hard links", path);
  }

  /**
   * Creates a FIFO, socket or device node ({@code type}) with permission bits {@code mode}; {@code
   * rdev} names a device's number.
   */
  default void createSpecial(StrataPath path, FileType type, int mode, long rdev) {
    throw notSupported(type.name().toLowerCase(java.util.Locale.ROOT) + " nodes", path);
  }

  /**
   * The extended attributes of the user namespace of the entry itself, by full name ({@code
   * user.NAME}); none where the store keeps none.
   */
  default Map<String, byte[]> xattrs(StrataPath path) {
    return Map.of();
  }

  /**
   * Sets extended attribute {@code name} ({@code user.NAME}) of the entry itself to {@code value},
   * or removes it ({@code value} null). Refused (NOT_PERMITTED) by stores without them.
   */
  default void setXattr(StrataPath path, String name, byte[] value) {
    throw notSupported("extended attributes", path);
  }

  private StrataException notSupported(String what, StrataPath path) {
    return new StrataException(
        StatusCode.NOT_PERMITTED, uri() + " cannot hold " + what + " (" + path + ")");
  }

  /**
   * Removes what an unfinished write left behind ({@link UfsOutputStream#token}); nothing if it is
   * gone.
   */
  void discard(String token);

  @Override
  void close();
}
