package io.strata.fuse;

import io.strata.core.status.StrataException;
import org.slf4j.Logger;

/**
 * The one place Strata's status codes become errno values (FUSE wants them negated), in this
 * platform's numbers.
 */
final class Errno {
  static final int EACCES = jnr.constants.platform.Errno.EACCES.intValue();
  static final int EBADF = jnr.constants.platform.Errno.EBADF.intValue();
  static final int EBUSY = jnr.constants.platform.Errno.EBUSY.intValue();
  static final int EEXIST = jnr.constants.platform.Errno.EEXIST.intValue();
  static final int EINTR = jnr.constants.platform.Errno.EINTR.intValue();
  static final int EINVAL = jnr.constants.platform.Errno.EINVAL.intValue();
  static final int EIO = jnr.constants.platform.Errno.EIO.intValue();
  static final int EISDIR = jnr.constants.platform.Errno.EISDIR.intValue();
  static final int ENOENT = jnr.constants.platform.Errno.ENOENT.intValue();
  static final int ENOSPC = jnr.constants.platform.Errno.ENOSPC.intValue();
  static final int ENOTDIR = jnr.constants.platform.Errno.ENOTDIR.intValue();
  static final int ENOTEMPTY = jnr.constants.platform.Errno.ENOTEMPTY.intValue();
  static final int EROFS = jnr.constants.platform.Errno.EROFS.intValue();
  static final int EPERM = jnr.constants.platform.Errno.EPERM.intValue();
  static final int ENAMETOOLONG = jnr.constants.platform.Errno.ENAMETOOLONG.intValue();
  static final int EMLINK = jnr.constants.platform.Errno.EMLINK.intValue();
  static final int EXDEV = jnr.constants.platform.Errno.EXDEV.intValue();
  static final int EFBIG = jnr.constants.platform.Errno.EFBIG.intValue();
  static final int ENODATA = jnr.constants.platform.Errno.ENODATA.intValue();
  static final int ERANGE = jnr.constants.platform.Errno.ERANGE.intValue();
  static final int E2BIG = jnr.constants.platform.Errno.E2BIG.intValue();
  static final int ENOSYS = jnr.constants.platform.Errno.ENOSYS.intValue();
  static final int ENOTTY = jnr.constants.platform.Errno.ENOTTY.intValue();
  static final int ESTALE = jnr.constants.platform.Errno.ESTALE.intValue();

  /**
   * Linux's ENOTSUP is EOPNOTSUPP; jnr-fuse's ErrorCodes.ENOTSUP() is another platform's number.
   */
  static final int ENOTSUP = jnr.constants.platform.Errno.EOPNOTSUPP.intValue();

  private Errno() {}

  /** Logs why an operation is refused (a user's tool is told only the errno) and returns -errno. */
  static int refuse(Logger log, int errno, String why, Object... args) {
    log.warn(why, args);
    return -errno;
  }

  /**
   * Every code has its errno here, chosen when the code was added (the switch is exhaustive: a new
   * code does not compile until it has one). What no POSIX errno names (a worker or the cluster
   * failing, a read of a file that changed meanwhile, a timeout) is EIO, as a disk error would be.
   */
  static int of(StrataException e) {
    int errno =
        switch (e.code()) {
          case NOT_FOUND -> ENOENT;
          case ALREADY_EXISTS -> EEXIST;
          case PERMISSION_DENIED, UNAUTHENTICATED -> EACCES;
          case INVALID_ARGUMENT -> EINVAL;
          case DIRECTORY_NOT_EMPTY -> ENOTEMPTY;
          case IS_A_DIRECTORY -> EISDIR;
          case NOT_A_DIRECTORY -> ENOTDIR;
          case RESOURCE_EXHAUSTED -> ENOSPC;
          case CANCELLED -> EINTR;
          case NOT_PERMITTED -> EPERM;
          case NAME_TOO_LONG -> ENAMETOOLONG;
          case TOO_MANY_LINKS -> EMLINK;
          case CROSS_DEVICE -> EXDEV;
          case UNAVAILABLE, NOT_LEADER, FAILED_PRECONDITION, DEADLINE_EXCEEDED, INTERNAL, OK -> EIO;
        };
    return -errno;
  }
}
