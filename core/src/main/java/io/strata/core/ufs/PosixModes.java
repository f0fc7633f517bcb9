package io.strata.core.ufs;

import io.strata.core.proto.FileType;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * Unix mode bits: permission bits (0777) to and from NIO's permission sets, and the file type a
 * mode's format bits name.
 */
public final class PosixModes {
  private static final int S_IFMT = 0170000;

  /** Each permission's bit, from 0400 (owner read) down to 0001 (others execute). */
  private static final PosixFilePermission[] BY_BIT = {
    PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE,
        PosixFilePermission.OTHERS_READ,
    PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE,
        PosixFilePermission.GROUP_READ,
    PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE,
        PosixFilePermission.OWNER_READ,
  };

  private PosixModes() {}

  static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
    for (int bit = 0; bit < BY_BIT.length; bit++) {
      if ((mode & (1 << bit)) != 0) {
        set.add(BY_BIT[bit]);
      }
    }
    return set;
  }

  static int mode(Set<PosixFilePermission> permissions) {
    int mode = 0;
    for (int bit = 0; bit < BY_BIT.length; bit++) {
      if (permissions.contains(BY_BIT[bit])) {
        mode |= 1 << bit;
      }
    }
    return mode;
  }

  /** The type {@code mode}'s format bits (S_IFMT) name; none (0) is a regular file. */
  public static FileType type(int mode) {
    return switch (mode & S_IFMT) {
      case 0040000 -> FileType.DIRECTORY;
      case 0120000 -> FileType.SYMLINK;
      case PosixCalls.S_IFIFO -> FileType.FIFO;
      case PosixCalls.S_IFSOCK -> FileType.SOCKET;
      case PosixCalls.S_IFCHR -> FileType.CHAR_DEVICE;
      case PosixCalls.S_IFBLK -> FileType.BLOCK_DEVICE;
      default -> FileType.REGULAR;
    };
  }
}
