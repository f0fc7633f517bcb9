package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.ReadRequest;

/**
 * One READ in flight and the buffer its bytes go to. DATA payloads are copied in as they arrive off
 * the socket (no frame reassembly); they must come in offset order without gaps, or the call fails.
 */
final class ReadCall extends Call<Integer> {
  private final long offset;
  private final int length;

  /** What an answer must hold: the range, cut at the end of the file only. */
  private final int expected;

  private final ByteBuf buffer;
  private int received;

  private ReadCall(long requestId, long offset, int length, long fileLength, ByteBuf buffer) {
    super(requestId);
    this.offset = offset;
    this.length = length;
    this.expected = (int) Math.max(0, Math.min(length, fileLength - offset));
    this.buffer = buffer;
  }

  /**
   * Appends to {@code dst} (from its writer index); a composite takes the received buffers
   * themselves. An answer shorter than the range (cut at {@code fileLength}) fails the call.
   */
  static ReadCall intoBuffer(
      long requestId, long offset, long fileLength, ByteBuf dst, int length) {
    return new ReadCall(requestId, offset, length, fileLength, dst);
  }

  int length() {
    return length;
  }

  @Override
  ByteBuf request(DataClient.Target file, ByteBufAllocator alloc) {
    return new ReadRequest(
            requestId, file.path(), file.fingerprint(), file.fileLength(), offset, length)
        .encode(alloc);
  }

  @Override
  long expectedOffset() {
    return offset + received;
  }

  @Override
  void data(ByteBuf in, int n) {
    if (received + n > length) {
      throw new StrataException(StatusCode.INTERNAL, "worker sent more bytes than asked for");
    }
    if (buffer instanceof CompositeByteBuf composite) {
      // Keep the bytes where the socket put them: no copy until the reader takes them.
      composite.addComponent(true, in.readRetainedSlice(n));
    } else {
      buffer.writeBytes(in, n);
    }
    received += n;
  }

  @Override
  void end(StatusCode code, String message) {
    if (code == StatusCode.OK && received < expected) {
      // Never data: a hole the caller would take for bytes. The worker failed; ask another.
      done.completeExceptionally(
          new StrataException(
              StatusCode.INTERNAL,
              "worker ended a read of " + expected + " bytes at " + offset + " after " + received));
    } else if (code == StatusCode.OK) {
      done.complete(received);
    } else {
      done.completeExceptionally(new StrataException(code, message));
    }
  }
}
