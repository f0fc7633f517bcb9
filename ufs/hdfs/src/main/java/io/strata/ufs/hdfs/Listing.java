package io.strata.ufs.hdfs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

/**
 * A folder's entries, fetched a batch at a time as the caller reads on (HDFS sends {@code
 * dfs.ls.limit}, 1,000 by default, per call): a huge folder is never held whole. A file is not
 * listed as itself, as Hadoop does, but refused as NOT_A_DIRECTORY.
 */
final class Listing {
  private final RemoteIterator<FileStatus> entries;
  private final FileStatus first;
  private final Function<IOException, StrataException> errors;

  /** {@code errors} names what fails later, while the caller reads on. */
  Listing(FileSystem fs, Path dir, StrataPath path, Function<IOException, StrataException> errors)
      throws IOException {
    this.errors = errors;
    this.entries = fs.listStatusIterator(dir);
    this.first = entries.hasNext() ? entries.next() : null;
    if (first != null
        && !first.isDirectory()
        && first.getPath().toUri().getPath().equals(dir.toUri().getPath())) {
      throw new StrataException(StatusCode.NOT_A_DIRECTORY, path + " is not a directory");
    }
  }

  Stream<FileStatus> stream() {
    Iterator<FileStatus> it =
        new Iterator<>() {
          private FileStatus next = first;

          @Override
          public boolean hasNext() {
            return next != null;
          }

          @Override
          public FileStatus next() {
            if (next == null) {
              throw new NoSuchElementException();
            }
            FileStatus current = next;
            try {
              next = entries.hasNext() ? entries.next() : null;
            } catch (IOException e) {
              throw errors.apply(e);
            }
            return current;
          }
        };
    return StreamSupport.stream(
        Spliterators.spliteratorUnknownSize(it, Spliterator.ORDERED), false);
  }
}
