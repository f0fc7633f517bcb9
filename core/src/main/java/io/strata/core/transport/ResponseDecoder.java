package io.strata.core.transport;

import com.google.protobuf.InvalidProtocolBufferException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;
import java.nio.charset.StandardCharsets;

/**
 * Reads a worker's answers from any byte source, a frame at a time: a Netty connection hands it
 * whatever arrived, a blocking socket exactly the {@link #needed} bytes. Each frame's header is
 * checked against the bounds of its type ({@link Frames#maxBody}) before any of its body is held,
 * so no input makes it hold more than the largest bounded body. DATA payloads are never held:
 * {@link #next} stops at each one, and the reader moves its {@link #payloadLeft} bytes wherever
 * they belong (a caller's array, a gathering buffer) and reports them with {@link #payloadTaken}.
 * Any byte sequence that breaks the format ends in {@link MalformedFrameException} and nothing
 * else; the reader then closes its connection.
 *
 * <p>Not thread-safe: one per connection, used by the thread reading it.
 */
public final class ResponseDecoder {
  /** length + type + requestId */
  private static final int PREFIX = 4 + Frames.HEADER;

  /** The most any non-DATA body may hold: what a decoder may ever buffer. */
  public static final int MAX_HELD =
      Math.max(Math.max(Frames.MAX_STATUS, LeaseGrant.MAX_BODY), Frames.MAX_END_BODY);

  private enum Step {
    PREFIX,
    DATA_OFFSET,
    BODY,
    PAYLOAD
  }

  /**
   * Bytes of a header or body that came in pieces; made at the first such piece (a blocking reader,
   * which reads exactly what is needed, never makes one).
   */
  private ByteBuf held = Unpooled.EMPTY_BUFFER;

  private Step step = Step.PREFIX;
  private byte type;
  private long requestId;
  private int body;
  private int payloadLeft;

  /**
   * How many more bytes the decoder needs to complete its current step (0 while a DATA payload is
   * being taken): a blocking reader reads exactly that many, never into the next frame.
   */
  public int needed() {
    return stepSize() - held.readableBytes();
  }

  /** The bytes of the current step, whole. */
  private int stepSize() {
    return switch (step) {
      case PREFIX -> PREFIX;
      case DATA_OFFSET -> 8;
      case BODY -> body;
      case PAYLOAD -> 0;
    };
  }

  /** What the decoder holds now, at most {@link #MAX_HELD}: for tests of its bounds. */
  int heldCapacity() {
    return held.capacity();
  }

  /** Bytes of the current DATA frame's payload not yet taken by the reader. */
  public int payloadLeft() {
    return payloadLeft;
  }

  /** The reader took {@code n} payload bytes out of the stream. */
  public void payloadTaken(int n) {
    if (n < 0 || n > payloadLeft) {
      throw new IllegalArgumentException(n + " payload bytes taken of " + payloadLeft);
    }
    payloadLeft -= n;
    if (payloadLeft == 0) {
      step = Step.PREFIX;
    }
  }

  /**
   * Reads from {@code in} up to the end of the next frame's header or body; returns that frame, or
   * null when {@code in} ran out first (what it held is kept for the next call). Never reads a DATA
   * payload: call only while {@link #payloadLeft} is 0.
   */
  public Response next(ByteBuf in) {
    if (step == Step.PAYLOAD) {
      throw new IllegalStateException(payloadLeft + " payload bytes are still to be taken");
    }
    while (true) {
      ByteBuf part = gather(in, stepSize());
      if (part == null) {
        return null;
      }
      try {
        Response r = advance(part);
        if (r != null) {
          return r;
        }
      } finally {
        held.clear();
      }
    }
  }

  /** {@code n} bytes: a slice of {@code in} when it has them all, else gathered; null if short. */
  private ByteBuf gather(ByteBuf in, int n) {
    if (!held.isReadable() && in.readableBytes() >= n) {
      return in.readSlice(n);
    }
    if (held.capacity() == 0) {
      held = Unpooled.buffer(Math.max(n, 64), MAX_HELD);
    }
    held.writeBytes(in, Math.min(n - held.readableBytes(), in.readableBytes()));
    return held.readableBytes() == n ? held : null;
  }

  /** Completes the current step from {@code part}; the frame when one is complete. */
  private Response advance(ByteBuf part) {
    switch (step) {
      case PREFIX -> {
        int length = part.readInt();
        type = part.readByte();
        requestId = part.readLong();
        int max = Frames.maxBody(type);
        if (max < 0) {
          throw new MalformedFrameException("unknown answer frame type " + type);
        }
        body = length - Frames.HEADER;
        if (body < Frames.minBody(type) || body > max) {
          throw new MalformedFrameException("frame of type " + type + " with " + body + " bytes");
        }
        step = type == Frames.DATA ? Step.DATA_OFFSET : Step.BODY;
        return null;
      }
      case DATA_OFFSET -> {
        long offset = part.readLong();
        if (offset < 0) {
          throw new MalformedFrameException("DATA at offset " + offset);
        }
        payloadLeft = body - 8;
        step = payloadLeft > 0 ? Step.PAYLOAD : Step.PREFIX;
        return new Response.Data(requestId, offset, payloadLeft);
      }
      case BODY -> {
        step = Step.PREFIX;
        return body(part);
      }
      default -> throw new IllegalStateException("no bytes to decode in step " + step);
    }
  }

  private Response body(ByteBuf b) {
    return switch (type) {
      case Frames.END -> end(b);
      case Frames.STATUS -> new Response.Status(requestId, status(b));
      case Frames.LEASED -> {
        LeaseGrant grant = LeaseGrant.decode(b);
        yield new Response.Leased(requestId, grant);
      }
      default -> throw new MalformedFrameException("unexpected frame type " + type);
    };
  }

  private Response.End end(ByteBuf b) {
    StatusCode code = StatusCode.fromNumber(b.readUnsignedByte());
    int n = b.readUnsignedShort();
    if (n != b.readableBytes()) {
      throw new MalformedFrameException("END message of " + n + " bytes in " + b.readableBytes());
    }
    return new Response.End(
        requestId, code, b.toString(b.readerIndex(), n, StandardCharsets.UTF_8));
  }

  private static FileStatus status(ByteBuf b) {
    byte[] bytes = new byte[b.readableBytes()];
    b.readBytes(bytes);
    try {
      return FileStatus.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new MalformedFrameException("a malformed status: " + e.getMessage());
    }
  }
}
