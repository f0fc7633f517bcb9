package io.strata.hadoop;

import io.strata.core.status.StrataException;
import java.io.FileNotFoundException;
import java.io.IOException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.security.AccessControlException;

/** Strata's status codes as the IOExceptions Hadoop's callers test for. */
final class HadoopErrors {
  private HadoopErrors() {}

  static IOException toHadoop(StrataException e) {
    String m = e.getMessage();
    IOException io =
        switch (e.code()) {
          case NOT_FOUND -> new FileNotFoundException(m);
          case ALREADY_EXISTS -> new FileAlreadyExistsException(m);
          case PERMISSION_DENIED, UNAUTHENTICATED, NOT_PERMITTED -> new AccessControlException(m);
          case DIRECTORY_NOT_EMPTY -> new PathIsNotEmptyDirectoryException(m);
          case NOT_A_DIRECTORY -> new ParentNotDirectoryException(m);
          case IS_A_DIRECTORY -> new PathIsDirectoryException(m);
          default -> new IOException(m);
        };
    io.initCause(e);
    return io;
  }
}
