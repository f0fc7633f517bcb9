package io.strata.s3;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A body sent {@code aws-chunked}, as today's S3 clients send uploads: chunks of {@code
 * hex-size[;chunk-signature=SIG]}, each signature chained to the one before ({@link
 * SigV4Signed#chain}), ending with a zero-size chunk and, in the trailer forms, trailing headers (a
 * checksum, and its signature when the chunks are signed). Gives the decoded bytes; a wrong
 * signature or a malformed frame is an {@link S3Error} before the last byte is handed out, so a
 * write that fails on it is never published.
 */
final class AwsChunkedInput extends BlockInput {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(AwsChunkedInput.class);

  private static final int MAX_LINE = 4096;
  private static final HexFormat HEX = HexFormat.of();

  private final InputStream in;
  private final SigV4Signed signed;
  private final boolean signedChunks;
  private final boolean trailer;
  private final Map<String, String> trailers = new LinkedHashMap<>();
  private final MessageDigest chunkHash = SigV4.sha256();
  private String previous;
  private String pendingSignature;
  private long left;
  private boolean done;

  AwsChunkedInput(InputStream in, SigV4Signed signed) {
    this.in = new BufferedInputStream(in, 64 << 10);
    this.signed = signed;
    this.signedChunks = signed.payloadHash().startsWith("STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
    this.trailer = signed.payloadHash().endsWith("-TRAILER");
    this.previous = signed.seedSignature();
  }

  /** The trailing headers, by lower-case name, once the body was read to its end. */
  Map<String, String> trailers() {
    return trailers;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    while (left == 0) {
      if (done) {
        return -1;
      }
      nextChunk();
    }
    int n = in.read(b, off, (int) Math.min(len, left));
    if (n < 0) {
      throw malformed("the body ended inside a chunk");
    }
    chunkHash.update(b, off, n);
    left -= n;
    if (left == 0) {
      expectCrlf();
      if (signedChunks) {
        checkChunk(HEX.formatHex(chunkHash.digest()));
      }
    }
    return n;
  }

  private void nextChunk() throws IOException {
    String header = line();
    int semi = header.indexOf(';');
    String size = semi < 0 ? header : header.substring(0, semi);
    long length;
    try {
      length = Long.parseLong(size.trim(), 16);
    } catch (NumberFormatException e) {
      throw malformed("a chunk's size is not hexadecimal: " + clip(header));
    }
    if (length < 0) {
      throw malformed("a chunk's size is negative");
    }
    pendingSignature = null;
    if (semi >= 0) {
      String ext = header.substring(semi + 1).trim();
      if (ext.startsWith("chunk-signature=")) {
        pendingSignature = ext.substring("chunk-signature=".length());
      }
    }
    if (signedChunks && pendingSignature == null) {
      throw S3Error.accessDenied("a chunk of a signed streaming body has no chunk-signature");
    }
    chunkHash.reset();
    if (length > 0) {
      left = length;
      return;
    }
    if (signedChunks) {
      checkChunk(SigV4.EMPTY_SHA256);
    }
    if (trailer) {
      readTrailers();
    } else {
      expectCrlf();
    }
    done = true;
  }

  private void checkChunk(String hashOfChunk) {
    String expected = signed.chain(previous, hashOfChunk, false);
    if (!MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII),
        pendingSignature.getBytes(StandardCharsets.US_ASCII))) {
      throw new S3Error(
          403,
          "SignatureDoesNotMatch",
          "The request signature we calculated does not match the signature you provided (a"
              + " chunk's signature)");
    }
    previous = expected;
  }

  private void readTrailers() throws IOException {
    StringBuilder canonical = new StringBuilder();
    String signature = null;
    for (int count = 0; ; count++) {
      String line = line();
      if (line.isEmpty()) {
        break;
      }
      if (count > 16) {
        throw malformedTrailer("too many trailing headers");
      }
      int colon = line.indexOf(':');
      if (colon <= 0) {
        throw malformedTrailer("a trailing header without a name: " + clip(line));
      }
      String name = line.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT);
      String value = line.substring(colon + 1).trim();
      if (name.equals("x-amz-trailer-signature")) {
        signature = value;
      } else {
        trailers.put(name, value);
        canonical.append(name).append(':').append(value).append('\n');
      }
    }
    if (signedChunks) {
      if (signature == null) {
        throw S3Error.accessDenied("a signed streaming body's trailer has no signature");
      }
      String expected = signed.chain(previous, SigV4.sha256Hex(canonical.toString()), true);
      if (!MessageDigest.isEqual(
          expected.getBytes(StandardCharsets.US_ASCII),
          signature.getBytes(StandardCharsets.US_ASCII))) {
        throw new S3Error(
            403,
            "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided (the"
                + " trailer's signature)");
      }
    }
  }

  private void expectCrlf() throws IOException {
    if (in.read() != '\r' || in.read() != '\n') {
      throw malformed("a chunk does not end with CRLF");
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(80);
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw malformed("the body ended inside a chunk's header");
      }
      if (c == '\r') {
        if (in.read() != '\n') {
          throw malformed("a chunk's header does not end with CRLF");
        }
        return out.toString(StandardCharsets.US_ASCII);
      }
      if (out.size() >= MAX_LINE) {
        throw malformed("a chunk's header is longer than " + MAX_LINE + " bytes");
      }
      out.write(c);
    }
  }

  private static String clip(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }

  /**
   * IncompleteBody in S3's words; what was wrong goes to the endpoint's log (S3's message is what
   * clients and conformance suites compare).
   */
  private static S3Error malformed(String why) {
    LOG.info("a malformed aws-chunked body: {}", why);
    return new S3Error(400, "IncompleteBody", "The request body terminated unexpectedly");
  }

  /** MalformedTrailerError in S3's words; the detail to the log. */
  static S3Error malformedTrailer(String why) {
    LOG.info("a malformed aws-chunked trailer: {}", why);
    return new S3Error(
        400,
        "MalformedTrailerError",
        "The request contained trailing data that was not well-formed or did not conform to our"
            + " published schema.");
  }
}
