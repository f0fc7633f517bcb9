package io.strata.fuse;

import io.strata.core.util.DaemonThreads;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import jnr.constants.platform.Errno;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the kernel what the mount learnt changed elsewhere (a worker's metadata events: a write
 * through another client, {@code fs invalidate}, a changed under-storage file found at the worker's
 * TTL): FUSE_NOTIFY_INVAL_ENTRY for the name, so that the next use looks it up again, and
 * FUSE_NOTIFY_INVAL_INODE for what it named, attributes and cached pages. Written from a thread of
 * its own: the kernel takes the folder's lock for an entry's notice, which a request being served
 * may hold while it waits for an answer from this process.
 */
final class KernelNotices implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KernelNotices.class);
  private static final int INVAL_INODE = 2;
  private static final int INVAL_ENTRY = 3;
  private static final int NAME_MAX = 1024;

  private final int fd;
  private final Nodes nodes;
  private final String folder;
  private final Pointer buffer =
      Memory.allocateDirect(Runtime.getSystemRuntime(), FuseAbi.OUT_HEADER + 24 + NAME_MAX + 1);
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(DaemonThreads.factory("fuse-notices"));

  /**
   * @param fd the mount's /dev/fuse descriptor
   * @param folder the Strata folder mounted ("/" or "/data"): events name Strata paths
   */
  KernelNotices(int fd, Nodes nodes, String folder) {
    this.fd = fd;
    this.nodes = nodes;
    this.folder = folder.equals("/") ? "" : folder;
  }

  /** {@code paths} changed (and, {@code recursive}, all below them). */
  void changed(List<String> paths, boolean recursive) {
    thread.execute(() -> paths.forEach(this::changed));
  }

  /** Anything may have changed. */
  void changedAll() {
    thread.execute(
        () -> {
          for (Nodes.Place p : nodes.all()) {
            inode(p.node());
            entry(p.parent(), p.name());
          }
        });
  }

  private void changed(String strataPath) {
    String path = mountPath(strataPath);
    if (path == null) {
      return;
    }
    Nodes.Place place = nodes.find(path);
    if (place == null) {
      return;
    }
    if (place.node() != 0) {
      inode(place.node());
    }
    if (place.parent() != 0) {
      entry(place.parent(), place.name());
    }
  }

  /** The mount's path of a Strata path; null for one outside the mounted folder. */
  private String mountPath(String strataPath) {
    if (folder.isEmpty()) {
      return strataPath;
    }
    if (strataPath.equals(folder)) {
      return "/";
    }
    return strataPath.startsWith(folder + "/") ? strataPath.substring(folder.length()) : null;
  }

  private synchronized void inode(long node) {
    buffer.putLong(FuseAbi.OUT_HEADER, node);
    buffer.putLong(FuseAbi.OUT_HEADER + 8, 0);
    buffer.putLong(FuseAbi.OUT_HEADER + 16, 0);
    send(INVAL_INODE, 24);
  }

  private synchronized void entry(long parent, String name) {
    byte[] b = name.getBytes(StandardCharsets.UTF_8);
    if (b.length > NAME_MAX) {
      return;
    }
    buffer.putLong(FuseAbi.OUT_HEADER, parent);
    buffer.putInt(FuseAbi.OUT_HEADER + 8, b.length);
    buffer.putInt(FuseAbi.OUT_HEADER + 12, 0);
    buffer.put(FuseAbi.OUT_HEADER + 16, b, 0, b.length);
    buffer.putByte(FuseAbi.OUT_HEADER + 16 + b.length, (byte) 0);
    send(INVAL_ENTRY, 16 + b.length + 1);
  }

  /** A notice: the reply header's error field holds its code, its unique 0. */
  private void send(int code, int length) {
    int total = FuseAbi.OUT_HEADER + length;
    buffer.putInt(0, total);
    buffer.putInt(4, code);
    buffer.putLong(8, 0);
    if (DevFuse.libc().write(fd, buffer, total) < 0) {
      Errno e = DevFuse.lastError();
      // ENOENT: the kernel no longer holds what the notice names.
      if (e != Errno.ENOENT) {
        LOG.debug("FUSE notice {}: {}", code, e.description());
      }
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
