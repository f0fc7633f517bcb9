package io.strata.client;

import io.netty.buffer.ByteBuf;
import io.strata.client.data.StreamReader;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The reads of one opened file, through the client's read path. A read that finds the file changed
 * in the under-storage (FAILED_PRECONDITION) runs {@code changed}: the client's cached status names
 * the old version.
 */
final class ReadSource implements FileInStream.Source {
  private final ReadPath route;
  private final Runnable changed;

  ReadSource(ReadPath route, Runnable changed) {
    this.route = route;
    this.changed = changed;
  }

  @Override
  public CompletableFuture<Integer> readAsync(FileInfo f, long offset, ByteBuf dst, int length) {
    return route.readAsync(f, offset, dst, length).whenComplete((n, e) -> refusedBy(e));
  }

  @Override
  public int read(FileInfo f, long offset, ByteBuffer dst) {
    try {
      return route.read(f, offset, dst);
    } catch (StrataException e) {
      refused(e);
      throw e;
    }
  }

  @Override
  public int readLocal(FileInfo f, long offset, ByteBuffer dst) {
    return route.readShortCircuit(f, offset, dst);
  }

  @Override
  public StreamReader stream(FileInfo f, long offset) {
    return route.stream(f, offset);
  }

  @Override
  public void refused(StrataException e) {
    if (e.code() == StatusCode.FAILED_PRECONDITION) {
      changed.run();
    }
  }

  private void refusedBy(Throwable error) {
    Throwable e =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    if (e instanceof StrataException se) {
      refused(se);
    }
  }
}
