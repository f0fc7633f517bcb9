package io.strata.fuse;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.NewEntry;
import io.strata.core.proto.TimeChange;
import io.strata.core.security.ActingFor;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/** One file opened through the mount: a reader, or a writer that appends front to back. */
abstract class OpenFile {
  final String path;
  private final AtomicBoolean written = new AtomicBoolean();

  /**
   * The local account that opened it, as the request that opened it named it (null: none): what the
   * open writes, it writes as that account, whichever request later makes it write (issue 78).
   */
  private final ActingFor account = ActingFor.current();

  OpenFile(String path) {
    this.path = path;
  }

  /** {@code body}'s result, its calls acting for the account that opened this file. */
  <T> T asOpener(Supplier<T> body) {
    return ActingFor.callFor(account, body);
  }

  /** True once: at the first write through this open file. */
  boolean firstWrite() {
    return written.compareAndSet(false, true);
  }

  /**
   * A reader. Reads at the stream's position go through it, so read-ahead serves sequential
   * readers; reads elsewhere are positioned reads, which may run in parallel. The stream is opened
   * at the first read: a kernel that serves the file from its page cache never asks, and an open
   * then costs no round trip at all.
   */
  static final class Reader extends OpenFile {
    private final Supplier<FileInStream> opener;
    private FileInStream in;

    /** The version read, as the kernel view counts its readers; null if it does not count it. */
    final KernelView.Reading reading;

    /** Where the last read ended: the next one starting there is sequential. */
    volatile long lastEnd = -1;

    Reader(String path, KernelView.Reading reading, Supplier<FileInStream> opener) {
      super(path);
      this.reading = reading;
      this.opener = opener;
    }

    synchronized FileInStream stream() {
      if (in == null) {
        in = opener.get();
      }
      return in;
    }

    synchronized void close() {
      if (in != null) {
        in.close();
      }
    }
  }

  /**
   * A writer: bytes must come in order; the file appears in the UFS when it is committed. One that
   * rewrites an existing empty file begins at its first byte: an open for writing that writes
   * nothing (touch) leaves the file, its inode and its links, as they were.
   */
  static final class Writer extends OpenFile {
    private Function<NewEntry, FileOutStream> opener;
    private FileOutStream out;

    /** When it began: its times while it is written, and, given to the UFS, once published. */
    final long createdMs;

    long written;

    /** Published (closed, fsynced): only its release is to come, unless it writes anew. */
    volatile boolean committed;

    /** Its mode and owner (-1: the under-storage's default). Guarded by this. */
    NewEntry entry;

    /** Whether chmod or chown changed {@link #entry} after the write began. Guarded by this. */
    boolean entryChanged;

    /** Times set while it is written (touch): applied once it is published. Guarded by this. */
    TimeChange atime;

    TimeChange mtime;

    /** Whether it makes a file that was not there (create), rather than write one anew. */
    final boolean isNew;

    /**
     * Extended attributes set on a new file while it is written: applied once it is published.
     * Guarded by this.
     */
    final Map<String, byte[]> xattrs = new TreeMap<>();

    /**
     * {@code opener} begins the write, at {@code createdMs}, with the entry as it is then: now,
     * unless {@code atFirstByte} (a chmod or chown before the first byte, the kernel's removal of
     * setuid bits included, is then kept).
     */
    Writer(
        String path,
        long createdMs,
        Function<NewEntry, FileOutStream> opener,
        boolean atFirstByte,
        boolean isNew,
        NewEntry entry) {
      super(path);
      this.createdMs = createdMs;
      this.opener = opener;
      this.isNew = isNew;
      this.entry = entry;
      if (!atFirstByte) {
        out = asOpener(() -> opener.apply(entry));
      }
    }

    synchronized FileOutStream out() {
      if (out == null) {
        out = asOpener(() -> opener.apply(entry));
      }
      return out;
    }

    /**
     * Begins the file anew after it was published empty (a shell redirect's descriptor closed
     * before the command wrote through its duplicate): {@code opener} replaces that empty file at
     * the first byte.
     */
    synchronized void reopen(Function<NewEntry, FileOutStream> opener) {
      this.opener = opener;
      out = null;
      committed = false;
    }

    /** Whether a file is being written: false for a rewrite that has had no byte yet. */
    synchronized boolean started() {
      return out != null;
    }

    synchronized void cancel() {
      if (out != null) {
        out.cancel();
      }
    }
  }
}
