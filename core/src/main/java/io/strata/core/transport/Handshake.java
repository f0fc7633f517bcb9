package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Authentication on a data connection, before any request. A client holding a token sends HELLO;
 * the server answers CHALLENGE: its mode (NONE, and nothing more is needed) or TOKEN and a nonce of
 * {@link #NONCE} random bytes. The client then sends AUTH, a {@link Tokens#proof} of its token for
 * that nonce, and the server answers END (request 0): OK, or UNAUTHENTICATED and the connection
 * closes. In TOKEN mode the server serves nothing else to a connection that has not done this. A
 * client without a token sends requests at once, as before (so a NONE-mode cluster costs nothing).
 * All frames carry request id 0.
 */
public final class Handshake {
  public static final int NONCE = 32;
  static final byte MODE_NONE = 0;
  static final byte MODE_TOKEN = 1;

  /** The largest frame either side reads during the handshake. */
  public static final int MAX_FRAME = 4 + Frames.HEADER + Frames.MAX_END_BODY + Tokens.MAX_PROOF;

  /** The client's side of one exchange of frames: length-prefixed frames out, bodies in. */
  public interface FrameIo {
    void write(ByteBuffer frame);

    /** The next frame, without its length field: type, request id, body. */
    ByteBuffer read();
  }

  private Handshake() {}

  /** Runs the client's side over {@code io} with {@code token}; throws the server's refusal. */
  public static void authenticate(FrameIo io, String token) {
    io.write(frame(Frames.HELLO, new byte[0]));
    ByteBuffer challenge = expect(io.read(), Frames.CHALLENGE);
    if (!challenge.hasRemaining() || challenge.get() == MODE_NONE) {
      return;
    }
    if (challenge.remaining() != NONCE) {
      throw malformed("a CHALLENGE of " + challenge.remaining() + " bytes");
    }
    byte[] nonce = new byte[NONCE];
    challenge.get(nonce);
    io.write(frame(Frames.AUTH, Tokens.proof(token, nonce).getBytes(StandardCharsets.US_ASCII)));
    ByteBuffer end = expect(io.read(), Frames.END);
    StatusCode code = StatusCode.fromNumber(end.get() & 0xff);
    byte[] text = new byte[Math.min(end.remaining() - 2, end.getShort() & 0xffff)];
    end.get(text);
    if (code != StatusCode.OK) {
      throw new StrataException(code, new String(text, StandardCharsets.UTF_8));
    }
  }

  private static ByteBuffer expect(ByteBuffer frame, byte type) {
    if (frame.remaining() < Frames.HEADER || frame.get() != type || frame.getLong() != 0) {
      throw malformed("an answer that is not the handshake's");
    }
    return frame;
  }

  private static StrataException malformed(String what) {
    return StrataException.internal("the worker's data server sent " + what, null);
  }

  private static ByteBuffer frame(byte type, byte[] body) {
    ByteBuffer b = ByteBuffer.allocate(4 + Frames.HEADER + body.length);
    b.putInt(Frames.HEADER + body.length).put(type).putLong(0).put(body).flip();
    return b;
  }

  /** The server's CHALLENGE: TOKEN and {@code nonce}, or NONE when {@code nonce} is null. */
  public static ByteBuf challenge(ByteBufAllocator alloc, byte[] nonce) {
    int body = nonce == null ? 1 : 1 + nonce.length;
    ByteBuf b = alloc.buffer(4 + Frames.HEADER + body);
    b.writeInt(Frames.HEADER + body).writeByte(Frames.CHALLENGE).writeLong(0);
    if (nonce == null) {
      return b.writeByte(MODE_NONE);
    }
    return b.writeByte(MODE_TOKEN).writeBytes(nonce);
  }

  /** The proof in an AUTH frame's body (after type and request id); null if it is not ASCII. */
  public static String proofIn(ByteBuf body) {
    if (body.readableBytes() > Tokens.MAX_PROOF) {
      return null;
    }
    String s = body.toString(StandardCharsets.US_ASCII);
    return s.chars().allMatch(c -> c >= 0x21 && c <= 0x7e) ? s : null;
  }
}
