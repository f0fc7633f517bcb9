package io.strata.client.data;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.CompositeByteBuf;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.OpenRequest;
import java.io.IOException;

/**
 * An OPEN in flight: the STATUS frame first, then the file's first bytes, appended to the
 * destination buffer as READ does (a composite takes the received buffers themselves).
 */
final class OpenCall extends Call<Opened> {
  private final long syncIntervalMs;
  private final int firstBytes;
  private final ByteBuf dst;
  private FileStatus status;
  private int received;

  OpenCall(long requestId, long syncIntervalMs, int firstBytes, ByteBuf dst) {
    super(requestId);
    this.syncIntervalMs = syncIntervalMs;
    this.firstBytes = firstBytes;
    this.dst = dst;
  }

  @Override
  ByteBuf request(DataClient.Target file, ByteBufAllocator alloc) {
    return new OpenRequest(requestId, file.path(), syncIntervalMs, firstBytes).encode(alloc);
  }

  @Override
  void status(ByteBuf body) {
    if (status != null) {
      throw new StrataException(StatusCode.INTERNAL, "worker sent two statuses for one open");
    }
    try {
      status = FileStatus.parseFrom(new ByteBufInputStream(body));
    } catch (InvalidProtocolBufferException e) {
      throw new StrataException(StatusCode.INTERNAL, "worker sent a malformed status: " + e.getMessage());
    } catch (IOException e) {
      throw new StrataException(StatusCode.INTERNAL, "cannot read a status: " + e.getMessage());
    }
  }

  @Override
  long expectedOffset() {
    if (status == null) {
      throw new StrataException(StatusCode.INTERNAL, "worker sent bytes before the status");
    }
    return received;
  }

  @Override
  void data(ByteBuf in, int n) {
    if (received + n > firstBytes) {
      throw new StrataException(StatusCode.INTERNAL, "worker sent more bytes than asked for");
    }
    if (dst instanceof CompositeByteBuf composite) {
      composite.addComponent(true, in.readRetainedSlice(n));
    } else {
      dst.writeBytes(in, n);
    }
    received += n;
  }

  @Override
  void end(StatusCode code, String message) {
    if (code != StatusCode.OK) {
      done.completeExceptionally(new StrataException(code, message));
    } else if (status == null) {
      done.completeExceptionally(new StrataException(StatusCode.INTERNAL, "worker ended an open with no status"));
    } else {
      done.complete(new Opened(status, received));
    }
  }
}
