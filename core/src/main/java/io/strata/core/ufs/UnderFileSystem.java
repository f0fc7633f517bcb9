package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import java.io.Closeable;
import java.util.stream.Stream;

/**
 * One under-storage (today a local folder; S3 and HDFS are planned) seen from its root. Paths are
 * relative to that root, already normalized ({@link StrataPath} cannot climb above it);
 * implementations additionally refuse to follow links out of the root.
 *
 * <p>Failures are {@link io.strata.core.status.StrataException}s with the path in the message.
 * Implementations are thread-safe.
 */
public interface UnderFileSystem extends Closeable {
  /** The root, as a URI such as {@code file:///data}. */
  String uri();

  UfsStatus getStatus(StrataPath path);

  /**
   * The children of a directory; the caller closes the stream. A path that is a file fails with
   * NOT_A_DIRECTORY (never lists the file itself): {@code strata fs ls} relies on it to show a
   * file.
   */
  Stream<UfsStatus> list(StrataPath path);

  UfsReader openReader(StrataPath path);

  /**
   * A reader of the version {@code fingerprint} names, for reading pages of it: a store that can
   * name a version in each read (S3's ETag) needs no look-up first; others open the file as it is
   * and leave the caller to compare {@link UfsReader#currentFingerprint} after reading.
   */
  default UfsReader openVersion(StrataPath path, String fingerprint) {
    return openReader(path);
  }

  UfsOutputStream create(StrataPath path, CreateOptions options);

  void mkdirs(StrataPath path, boolean parents);

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
   * Removes what an unfinished write left behind ({@link UfsOutputStream#token}); nothing if it is
   * gone.
   */
  void discard(String token);

  @Override
  void close();
}
