package io.strata.ufs.hdfs;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.ipc.RemoteException;
import org.apache.hadoop.ipc.StandbyException;
import org.apache.hadoop.security.AccessControlException;

/**
 * Turns what the Hadoop client throws into one line a person can act on, naming the path and the
 * mount: Hadoop's own messages run to many lines (a server's stack trace travels inside a {@link
 * RemoteException}), so only their first line is kept.
 */
final class HdfsErrors {
  private HdfsErrors() {}

  static StrataException toStrata(IOException e, String what, String mount) {
    IOException cause =
        e instanceof RemoteException remote
            ? remote.unwrapRemoteException(
                FileNotFoundException.class,
                FileAlreadyExistsException.class,
                AccessControlException.class,
                PathIsNotEmptyDirectoryException.class,
                ParentNotDirectoryException.class,
                StandbyException.class)
            : e;
    if (cause instanceof FileNotFoundException) {
      return StrataException.notFound(what + " does not exist");
    }
    if (cause instanceof FileAlreadyExistsException) {
      return StrataException.alreadyExists(what + " already exists");
    }
    if (cause instanceof AccessControlException) {
      return new StrataException(
          StatusCode.PERMISSION_DENIED,
          "access to " + what + " denied by " + mount + ": " + firstLine(cause));
    }
    if (cause instanceof PathIsNotEmptyDirectoryException) {
      return new StrataException(StatusCode.DIRECTORY_NOT_EMPTY, what + " is not empty");
    }
    if (cause instanceof ParentNotDirectoryException) {
      return new StrataException(StatusCode.NOT_A_DIRECTORY, "a parent of " + what + " is a file");
    }
    if (cause instanceof StandbyException) {
      return StrataException.unavailable(
          "the NameNode of "
              + mount
              + " is a standby: name the HA nameservice (and its hdfs-site.xml) in the mount",
          null);
    }
    if (cause instanceof ConnectException
        || cause instanceof NoRouteToHostException
        || cause instanceof SocketTimeoutException) {
      return StrataException.unavailable(
          "cannot reach the NameNode of " + mount + " (" + firstLine(cause) + ")", null);
    }
    if (cause instanceof UnknownHostException) {
      return StrataException.unavailable(
          "unknown host in " + mount + ": " + firstLine(cause), null);
    }
    if (cause instanceof InterruptedIOException) {
      return new StrataException(StatusCode.CANCELLED, what + ": interrupted");
    }
    return StrataException.unavailable(
        what + " in " + mount + ": " + cause.getClass().getSimpleName() + ": " + firstLine(cause),
        null);
  }

  static String firstLine(Throwable t) {
    String m = String.valueOf(t.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
