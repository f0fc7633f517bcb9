package io.strata.client.data;

import io.netty.util.internal.PlatformDependent;
import io.strata.core.util.OwnedRefCount;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * A worker's segment file mapped read-only, so that a short-circuit read is one copy from the page
 * cache into the caller's buffer (a positioned read into a heap array takes two: into a temporary
 * direct buffer, then into the array). Unmapped as soon as it is retired and no read is inside it:
 * a read counts itself in and out, and the mapping goes with the last one out, never under a
 * reader. Thread-safe.
 */
final class MappedSegment {
  private final MappedByteBuffer map;

  /** The owner (the client's cache of mappings) and the readers inside; the last one unmaps. */
  private final OwnedRefCount holders;

  // Netty deprecates freeDirectBuffer for buffers it allocates; for a mapping it is the only
  // unmapper
  // short of the JDK's internal Unsafe.
  @SuppressWarnings("deprecation")
  private MappedSegment(MappedByteBuffer map) {
    this.map = map;
    this.holders = new OwnedRefCount(() -> PlatformDependent.freeDirectBuffer(map));
  }

  /** Maps the whole file as it is now (the worker may append to it later: see {@link #covers}). */
  static MappedSegment open(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return new MappedSegment(ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()));
    }
  }

  /** Whether the mapping holds {@code length} bytes at {@code offset}. */
  boolean covers(long offset, int length) {
    return offset >= 0 && offset + length <= map.capacity();
  }

  /**
   * Copies {@code dst.remaining()} bytes at {@code offset} into {@code dst} (its position does not
   * move); false if the segment was retired meanwhile or the file shrank under the mapping.
   */
  boolean copy(long offset, ByteBuffer dst) {
    if (!holders.acquire()) {
      return false;
    }
    try {
      dst.put(dst.position(), map, (int) offset, dst.remaining());
      return true;
    } catch (InternalError truncated) {
      // The JVM's answer to SIGBUS: the file is shorter than when it was mapped.
      return false;
    } finally {
      holders.release();
    }
  }

  /** The crc32c of {@code length} bytes at {@code offset}, or null if they cannot be read. */
  Integer crc32c(long offset, int length) {
    if (!holders.acquire()) {
      return null;
    }
    try {
      CRC32C crc = new CRC32C();
      crc.update(map.slice((int) offset, length));
      return (int) crc.getValue();
    } catch (InternalError truncated) {
      return null;
    } finally {
      holders.release();
    }
  }

  /** The owner lets go; the mapping goes now, or when the last reader inside leaves. */
  void retire() {
    holders.releaseOwner();
  }
}
