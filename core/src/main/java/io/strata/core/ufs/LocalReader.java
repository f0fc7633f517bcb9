package io.strata.core.ufs;

import io.strata.core.util.FileChannels;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.concurrent.TimeUnit;

/** Positioned reads over a FileChannel. */
final class LocalReader implements UfsReader {
  private final Path path;
  private final FileChannel channel;
  private final Closeable held;

  /** A descriptor of the file for read-ahead advice (the channel's own is out of reach). */
  private int adviceFd = NOT_OPENED;

  private static final int NOT_OPENED = -2;

  /**
   * @param held what keeps {@code path} usable (its folder's descriptor), closed with the reader
   */
  LocalReader(Path path, FileChannel channel, Closeable held) {
    this.path = path;
    this.channel = channel;
    this.held = held;
  }

  @Override
  public int readFully(long position, ByteBuffer dst) throws IOException {
    return FileChannels.readFully(channel, position, dst);
  }

  @Override
  public void willNeed(long position, long length) {
    if (adviceFd == NOT_OPENED) {
      adviceFd = PosixCalls.openForAdvice(path);
    }
    if (adviceFd >= 0) {
      PosixCalls.willNeed(adviceFd, position, length);
    }
  }

  @Override
  public long length() throws IOException {
    return channel.size();
  }

  @Override
  public String currentFingerprint() throws IOException {
    BasicFileAttributes a =
        Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    return LocalAttributes.fingerprint(
        a.size(), a.lastModifiedTime().to(TimeUnit.NANOSECONDS), a.fileKey());
  }

  @Override
  public void close() throws IOException {
    try (held) {
      channel.close();
    } finally {
      if (adviceFd >= 0) {
        PosixCalls.close(adviceFd);
        adviceFd = NOT_OPENED;
      }
    }
  }
}
