package io.strata.fuse;

import io.strata.client.FileSystem;
import io.strata.core.ufs.Xattrs;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import jnr.ffi.Pointer;

/**
 * Extended attributes through the mount. Those of the user namespace are the file's, kept by the
 * under-storage (a local folder's own, object metadata on S3); the others (security, system's ACLs,
 * trusted) belong to the host: the mount has none and refuses to set them (EOPNOTSUPP). A file
 * still being written keeps what is set on it until it is published, as chmod does.
 *
 * <p>Off ({@code strata.fuse.xattr.enabled=false}), every call answers ENOSYS and the kernel stops
 * asking: each write(2) costs the kernel a getxattr of security.capability otherwise.
 */
final class XattrOps {
  private static final int XATTR_CREATE = 1;
  private static final int XATTR_REPLACE = 2;

  private final FileSystem fs;
  private final OpenFiles open;
  private final boolean enabled;

  XattrOps(FileSystem fs, OpenFiles open, boolean enabled) {
    this.fs = fs;
    this.open = open;
    this.enabled = enabled;
  }

  /** getxattr(2): the value's length, copied when {@code size} holds it. */
  int get(String p, String name, Pointer value, long size) {
    if (!enabled) {
      return -Errno.ENOSYS;
    }
    if (!Xattrs.kept(name)) {
      return -Errno.ENODATA;
    }
    byte[] v = of(p).get(name);
    return v == null ? -Errno.ENODATA : copyOut(v, value, size);
  }

  /** listxattr(2): the names, each ended by a NUL. */
  int list(String p, Pointer list, long size) {
    if (!enabled) {
      return -Errno.ENOSYS;
    }
    ByteArrayOutputStream names = new ByteArrayOutputStream();
    for (String name : of(p).keySet()) {
      names.writeBytes(name.getBytes(StandardCharsets.UTF_8));
      names.write(0);
    }
    return copyOut(names.toByteArray(), list, size);
  }

  /** setxattr(2), with XATTR_CREATE and XATTR_REPLACE. */
  int set(String p, String name, Pointer value, long size, int flags) {
    if (!enabled) {
      return -Errno.ENOSYS;
    }
    if (!Xattrs.kept(name)) {
      return -Errno.ENOTSUP;
    }
    if (name.getBytes(StandardCharsets.UTF_8).length > Xattrs.MAX_NAME_BYTES) {
      return -Errno.ERANGE;
    }
    if (size > Xattrs.MAX_VALUE_BYTES) {
      return -Errno.E2BIG;
    }
    byte[] v = new byte[(int) size];
    value.get(0, v, 0, v.length);
    Optional<OpenFile.Writer> pending = pendingWriter(p);
    if (pending.isPresent()) {
      synchronized (pending.get()) {
        return change(pending.get().xattrs, name, v, flags);
      }
    }
    boolean exists = fs.xattrs(p).containsKey(name);
    if ((flags & XATTR_CREATE) != 0 && exists) {
      return -Errno.EEXIST;
    }
    if ((flags & XATTR_REPLACE) != 0 && !exists) {
      return -Errno.ENODATA;
    }
    fs.setXattr(p, name, v);
    return 0;
  }

  /** removexattr(2). */
  int remove(String p, String name) {
    if (!enabled) {
      return -Errno.ENOSYS;
    }
    if (!Xattrs.kept(name)) {
      return -Errno.ENOTSUP;
    }
    Optional<OpenFile.Writer> pending = pendingWriter(p);
    if (pending.isPresent()) {
      synchronized (pending.get()) {
        return pending.get().xattrs.remove(name) == null ? -Errno.ENODATA : 0;
      }
    }
    if (!fs.xattrs(p).containsKey(name)) {
      return -Errno.ENODATA;
    }
    fs.setXattr(p, name, null);
    return 0;
  }

  private static int change(Map<String, byte[]> xattrs, String name, byte[] v, int flags) {
    boolean exists = xattrs.containsKey(name);
    if ((flags & XATTR_CREATE) != 0 && exists) {
      return -Errno.EEXIST;
    }
    if ((flags & XATTR_REPLACE) != 0 && !exists) {
      return -Errno.ENODATA;
    }
    xattrs.put(name, v);
    return 0;
  }

  /** The attributes of {@code p}: a file being written has those set on it so far. */
  private Map<String, byte[]> of(String p) {
    Optional<OpenFile.Writer> pending = pendingWriter(p);
    if (pending.isPresent()) {
      synchronized (pending.get()) {
        return new TreeMap<>(pending.get().xattrs);
      }
    }
    return fs.xattrs(p);
  }

  /** The writer of a new file at {@code p} not published yet, if any. */
  private Optional<OpenFile.Writer> pendingWriter(String p) {
    return open.writerOf(p).filter(w -> !w.committed && w.isNew);
  }

  /** What getxattr and listxattr answer: the length, and the bytes when {@code size} holds them. */
  private static int copyOut(byte[] bytes, Pointer to, long size) {
    if (size == 0) {
      return bytes.length;
    }
    if (size < bytes.length) {
      return -Errno.ERANGE;
    }
    to.put(0, bytes, 0, bytes.length);
    return bytes.length;
  }
}
