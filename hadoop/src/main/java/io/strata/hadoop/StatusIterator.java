package io.strata.hadoop;

import io.strata.client.FileInfo;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.function.Function;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.RemoteIterator;

/** Hadoop statuses of what the client's iterator gives, its failures as Hadoop's exceptions. */
final class StatusIterator implements RemoteIterator<FileStatus> {
  private final Iterator<FileInfo> entries;
  private final Function<FileInfo, FileStatus> status;

  StatusIterator(Iterator<FileInfo> entries, Function<FileInfo, FileStatus> status) {
    this.entries = entries;
    this.status = status;
  }

  @Override
  public boolean hasNext() throws IOException {
    try {
      return entries.hasNext();
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public FileStatus next() throws IOException {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return status.apply(entries.next());
  }
}
