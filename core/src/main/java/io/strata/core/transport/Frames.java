package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.strata.core.status.StatusCode;
import java.nio.charset.StandardCharsets;

/**
 * The data plane's wire format. Every frame is
 *
 * <pre>
 *   int32  length      bytes that follow this field
 *   int8   type        READ | DATA | END | LEASE | LEASED | OPEN | STATUS | WHOLE
 *   int64  requestId   chosen by the client, echoed in every answer
 *   ...    body
 * </pre>
 *
 * A client sends READ; the server answers with DATA frames (each: int64 file offset, then at most
 * {@link #MAX_DATA_PAYLOAD} bytes) in offset order, then one END (int8 status code, UTF-8 message).
 * A LEASE (same body as READ) is answered by one LEASED frame ({@link LeaseGrant}) and END. An OPEN
 * ({@link OpenRequest}) is answered by one STATUS frame (the file's status as a protobuf
 * FileStatus), then DATA frames of the file's first bytes, then END: a small file costs one round
 * trip. A WHOLE ({@link WholeRequest}) is answered by END alone. HELLO, CHALLENGE and AUTH
 * authenticate a connection before its first request ({@link Handshake}). Frame sizes are bounded
 * on both sides ({@link #MAX_REQUEST_FRAME}; for answers, {@link #maxBody} by type); a frame that
 * breaks the format closes its connection and nothing else. All integers are big-endian. Requests
 * are decoded by {@link Request#decode}, answers by {@link ResponseDecoder}.
 */
public final class Frames {
  public static final byte READ = 1;
  public static final byte DATA = 2;
  public static final byte END = 3;
  public static final byte LEASE = 4;
  public static final byte LEASED = 5;
  public static final byte OPEN = 6;
  public static final byte STATUS = 7;

  /** Authentication on connect ({@link Handshake}): asked by the client, answered, proven. */
  public static final byte HELLO = 8;

  public static final byte CHALLENGE = 9;
  public static final byte AUTH = 10;

  /** Keep a version whole on the worker's disk ({@link WholeRequest}): answered by END alone. */
  public static final byte WHOLE = 11;

  /** type + requestId */
  public static final int HEADER = 1 + 8;

  public static final int MAX_REQUEST_FRAME = 64 * 1024;
  public static final int MAX_DATA_PAYLOAD = 1 << 20;

  /** Largest STATUS body: four times the largest request, so any path a client can name fits. */
  public static final int MAX_STATUS = 4 * MAX_REQUEST_FRAME;

  /** The most one READ may ask for; clients split larger reads. */
  public static final long MAX_READ_LENGTH = 64L << 20;

  /** Longest END message, in bytes; longer ones are cut. */
  public static final int MAX_MESSAGE = 1024;

  /** Largest END body: code, message length, message. */
  static final int MAX_END_BODY = 1 + 2 + MAX_MESSAGE;

  private Frames() {}

  /** Splits the server's inbound stream into request frames (length field stripped). */
  public static LengthFieldBasedFrameDecoder requestFrameDecoder() {
    return new LengthFieldBasedFrameDecoder(MAX_REQUEST_FRAME, 0, 4, 0, 4);
  }

  /** The header of a DATA frame whose {@code payload} bytes the caller writes right after it. */
  public static ByteBuf dataHeader(
      ByteBufAllocator alloc, long requestId, long offset, int payload) {
    if (payload > MAX_DATA_PAYLOAD) {
      throw new IllegalArgumentException("DATA payload over " + MAX_DATA_PAYLOAD);
    }
    ByteBuf b = alloc.buffer(4 + HEADER + 8);
    b.writeInt(HEADER + 8 + payload).writeByte(DATA).writeLong(requestId).writeLong(offset);
    return b;
  }

  /** A STATUS frame carrying {@code status} (an encoded FileStatus). */
  public static ByteBuf status(ByteBufAllocator alloc, long requestId, byte[] status) {
    if (status.length > MAX_STATUS) {
      throw new IllegalArgumentException("status over " + MAX_STATUS + " bytes");
    }
    ByteBuf b = alloc.buffer(4 + HEADER + status.length);
    b.writeInt(HEADER + status.length).writeByte(STATUS).writeLong(requestId).writeBytes(status);
    return b;
  }

  public static ByteBuf end(
      ByteBufAllocator alloc, long requestId, StatusCode code, String message) {
    byte[] text = truncate(message == null ? "" : message);
    ByteBuf b = alloc.buffer(4 + HEADER + 1 + 2 + text.length);
    b.writeInt(HEADER + 1 + 2 + text.length)
        .writeByte(END)
        .writeLong(requestId)
        .writeByte(code.number())
        .writeShort(text.length)
        .writeBytes(text);
    return b;
  }

  /**
   * The largest body (after type and request id) an answer of {@code type} may have; -1 for a type
   * that is not an answer.
   */
  static int maxBody(byte type) {
    return switch (type) {
      case DATA -> 8 + MAX_DATA_PAYLOAD;
      case END -> MAX_END_BODY;
      case STATUS -> MAX_STATUS;
      case LEASED -> LeaseGrant.MAX_BODY;
      default -> -1;
    };
  }

  /** The smallest body an answer of {@code type} may have. */
  static int minBody(byte type) {
    return switch (type) {
      case DATA -> 8;
      case END -> 3;
      case LEASED -> LeaseGrant.MIN_BODY;
      default -> 0;
    };
  }

  static void writeString(ByteBuf b, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    if (bytes.length > 0xFFFF) {
      throw new IllegalArgumentException("string too long for a frame");
    }
    b.writeShort(bytes.length).writeBytes(bytes);
  }

  static String readString(ByteBuf b) {
    need(b, 2);
    int n = b.readUnsignedShort();
    need(b, n);
    String s = b.toString(b.readerIndex(), n, StandardCharsets.UTF_8);
    b.skipBytes(n);
    return s;
  }

  static void need(ByteBuf b, int n) {
    if (b.readableBytes() < n) {
      throw new MalformedFrameException("frame ends early");
    }
  }

  private static byte[] truncate(String message) {
    byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
    return bytes.length <= MAX_MESSAGE ? bytes : java.util.Arrays.copyOf(bytes, MAX_MESSAGE);
  }
}
