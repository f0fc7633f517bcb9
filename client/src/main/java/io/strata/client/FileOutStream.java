package io.strata.client;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.strata.core.proto.WorkerServiceGrpc;
import io.strata.core.proto.WriteHeader;
import io.strata.core.proto.WriteRequest;
import io.strata.core.proto.WriteResponse;
import io.strata.core.rpc.GrpcErrors;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Writes a file through its worker to the under-storage. Bytes are streamed in chunks as gRPC flow
 * control allows; the file appears under its name only when {@link #close()} returns, and a stream
 * that is cancelled, or whose writer dies, leaves nothing under that name.
 *
 * <p>Not thread-safe.
 */
public final class FileOutStream extends OutputStream {
  /**
   * The buffer a stream starts with: an S3 endpoint or a mount writing many small files allocated a
   * whole chunk (1 MiB by default) for each.
   */
  private static final int FIRST_CHUNK = 64 << 10;

  private final String path;
  private final String worker;

  /**
   * The bytes not sent yet; grows to {@link #chunkSize} as they come (a small file's stays small).
   */
  private byte[] chunk;

  private final int chunkSize;
  private final Duration timeout;
  private final Consumer<FileInfo> onClose;
  private final Object readiness = new Object();
  private final CompletableFuture<FileInfo> result = new CompletableFuture<>();
  private ClientCallStreamObserver<WriteRequest> requests;
  private int filled;
  private boolean closed;
  private volatile FileInfo published;

  FileOutStream(
      WorkerServiceGrpc.WorkerServiceStub stub,
      String worker,
      WriteHeader header,
      int chunkSize,
      Duration timeout,
      Consumer<FileInfo> onClose) {
    this.path = header.getPath();
    this.worker = worker;
    this.chunkSize = chunkSize;
    this.chunk = new byte[Math.min(chunkSize, FIRST_CHUNK)];
    this.timeout = timeout;
    this.onClose = onClose;
    stub.write(
        new ClientResponseObserver<WriteRequest, WriteResponse>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<WriteRequest> stream) {
            requests = stream;
            stream.setOnReadyHandler(FileOutStream.this::wake);
          }

          @Override
          public void onNext(WriteResponse value) {
            result.complete(FileInfo.fromProto(value.getStatus()));
          }

          @Override
          public void onError(Throwable t) {
            result.completeExceptionally(
                t instanceof StatusRuntimeException sre
                    ? GrpcErrors.fromGrpc(sre, "worker " + worker)
                    : t);
            wake();
          }

          @Override
          public void onCompleted() {
            wake();
          }
        });
    requests.onNext(WriteRequest.newBuilder().setHeader(header).build());
  }

  @Override
  public void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b) {
    write(b, 0, b.length);
  }

  @Override
  public void write(byte[] b, int off, int len) {
    checkOpen();
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    while (len > 0) {
      int n = Math.min(len, chunk.length - filled);
      System.arraycopy(b, off, chunk, filled, n);
      filled += n;
      off += n;
      len -= n;
      if (filled == chunk.length) {
        if (chunk.length < chunkSize) {
          chunk = java.util.Arrays.copyOf(chunk, (int) Math.min(2L * chunk.length, chunkSize));
        } else {
          sendChunk();
        }
      }
    }
  }

  /** Sends buffered bytes to the worker; durability comes only with {@link #close()}. */
  @Override
  public void flush() {
    checkOpen();
    sendChunk();
  }

  /** Publishes the file and returns once the under-storage holds all of it. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    sendChunk();
    closed = true;
    requests.onCompleted();
    FileInfo info = await();
    published = info;
    onClose.accept(info);
  }

  /** The version {@link #close} published, as the under-storage holds it; null before. */
  public FileInfo published() {
    return published;
  }

  /** Abandons the file: nothing appears under its name. */
  public void cancel() {
    if (!closed) {
      closed = true;
      requests.cancel("writer cancelled", null);
    }
  }

  private FileInfo await() {
    try {
      return result.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof StrataException se
          ? se
          : StrataException.internal("writing " + path + " failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      requests.cancel("timed out", null);
      throw new StrataException(
          StatusCode.DEADLINE_EXCEEDED, "worker " + worker + " did not confirm " + path);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      requests.cancel("interrupted", null);
      throw new StrataException(StatusCode.CANCELLED, "interrupted while writing " + path);
    }
  }

  private void sendChunk() {
    if (filled == 0) {
      return;
    }
    awaitReady();
    requests.onNext(
        WriteRequest.newBuilder().setChunk(ByteString.copyFrom(chunk, 0, filled)).build());
    filled = 0;
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (readiness) {
      while (!requests.isReady() && !result.isDone()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          cancel();
          throw new StrataException(
              StatusCode.DEADLINE_EXCEEDED, "worker " + worker + " stopped taking " + path);
        }
        try {
          readiness.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          cancel();
          throw new StrataException(StatusCode.CANCELLED, "interrupted while writing " + path);
        }
      }
    }
    if (result.isCompletedExceptionally()) {
      closed = true;
      await();
    }
  }

  private void wake() {
    synchronized (readiness) {
      readiness.notifyAll();
    }
  }

  private void checkOpen() {
    if (closed) {
      throw StrataException.invalidArgument("stream of " + path + " is closed");
    }
  }
}
