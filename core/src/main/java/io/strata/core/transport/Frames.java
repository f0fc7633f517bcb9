package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.strata.core.status.StatusCode;
import java.nio.charset.StandardCharsets;

/**
 * The data plane's wire format. Every frame is
 * <pre>
 *   int32  length      bytes that follow this field
 *   int8   type        READ | DATA | END | LEASE | LEASED
 *   int64  requestId   chosen by the client, echoed in every answer
 *   ...    body
 * </pre>
 * A client sends READ; the server answers with DATA frames (each: int64 file offset, then at most
 * {@link #MAX_DATA_PAYLOAD} bytes) in offset order, then one END (int8 status code, UTF-8
 * message). A LEASE (same body as READ) is answered by one LEASED frame ({@link LeaseGrant}) and
 * END. Frame sizes are bounded on both sides; a frame that breaks the format closes its
 * connection and nothing else. All integers are big-endian.
 */
public final class Frames {
  public static final byte READ = 1;
  public static final byte DATA = 2;
  public static final byte END = 3;
  public static final byte LEASE = 4;
  public static final byte LEASED = 5;

  /** type + requestId */
  public static final int HEADER = 1 + 8;
  public static final int MAX_REQUEST_FRAME = 64 * 1024;
  public static final int MAX_DATA_PAYLOAD = 1 << 20;
  /** Largest response frame, counting its length field as Netty's frame decoder does. */
  public static final int MAX_RESPONSE_FRAME = 4 + HEADER + 8 + MAX_DATA_PAYLOAD;
  /** The most one READ may ask for; clients split larger reads. */
  public static final long MAX_READ_LENGTH = 64L << 20;
  private static final int MAX_MESSAGE = 1024;

  private Frames() {}

  /** Splits the server's inbound stream into request frames (length field stripped). */
  public static LengthFieldBasedFrameDecoder requestFrameDecoder() {
    return new LengthFieldBasedFrameDecoder(MAX_REQUEST_FRAME, 0, 4, 0, 4);
  }

  /** Splits the client's inbound stream into response frames (length field stripped). */
  public static LengthFieldBasedFrameDecoder responseFrameDecoder() {
    return new LengthFieldBasedFrameDecoder(MAX_RESPONSE_FRAME, 0, 4, 0, 4);
  }

  /** The header of a DATA frame whose {@code payload} bytes the caller writes right after it. */
  public static ByteBuf dataHeader(ByteBufAllocator alloc, long requestId, long offset, int payload) {
    if (payload > MAX_DATA_PAYLOAD) {
      throw new IllegalArgumentException("DATA payload over " + MAX_DATA_PAYLOAD);
    }
    ByteBuf b = alloc.buffer(4 + HEADER + 8);
    b.writeInt(HEADER + 8 + payload).writeByte(DATA).writeLong(requestId).writeLong(offset);
    return b;
  }

  public static ByteBuf end(ByteBufAllocator alloc, long requestId, StatusCode code, String message) {
    byte[] text = truncate(message == null ? "" : message);
    ByteBuf b = alloc.buffer(4 + HEADER + 1 + 2 + text.length);
    b.writeInt(HEADER + 1 + 2 + text.length).writeByte(END).writeLong(requestId)
        .writeByte(code.number()).writeShort(text.length).writeBytes(text);
    return b;
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
