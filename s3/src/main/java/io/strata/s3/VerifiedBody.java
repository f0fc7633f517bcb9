package io.strata.s3;

import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * An upload's bytes, checked against every claim the client made about them: the signed SHA-256
 * ({@code x-amz-content-sha256}), Content-MD5, {@code x-amz-checksum-*} in a header or in the
 * trailer, the decoded length. A claim that fails is an {@link S3Error} thrown at the end of the
 * body, before the reader sees it end, so the write it feeds is cancelled, never published.
 */
final class VerifiedBody extends BlockInput {
  /** What the client claims of the body, checked at its end; refused as {@code code}. */
  private record Claim(String code, String message, String expected, Check check) {}

  private interface Check {
    void update(byte[] b, int off, int len);

    String value();
  }

  private final InputStream in;
  private final List<Claim> claims = new ArrayList<>();
  private final Supplier<Map<String, String>> trailers;
  private final ChecksumAlgorithm trailerAlgorithm;
  private final ChecksumAlgorithm.Running trailerSum;

  /** The trailer's checksum, once the body ended and it matched. */
  private String trailerValue;

  private final long expectedLength;
  private ChecksumAlgorithm reportedAlgorithm;
  private String reportedValue;
  private long length;
  private boolean checked;

  /**
   * @param trailers the trailing headers, once the body ended (empty if none)
   * @param expectedLength the decoded length the client gave, or -1
   */
  VerifiedBody(
      InputStream in,
      S3Request r,
      SigV4Signed signed,
      Supplier<Map<String, String>> trailers,
      long expectedLength,
      boolean checksumsOfBody) {
    this.in = in;
    this.trailers = trailers;
    this.expectedLength = expectedLength;
    String sha = signed == null ? null : signed.payloadHash();
    if (sha != null
        && sha.length() == 64
        && sha.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      MessageDigest d = SigV4.sha256();
      claims.add(
          new Claim(
              "XAmzContentSHA256Mismatch",
              "The provided 'x-amz-content-sha256' header does not match what was computed.",
              sha.toLowerCase(java.util.Locale.ROOT),
              digest(d, () -> HexFormat.of().formatHex(d.digest()))));
    }
    String md5 = r.header("content-md5");
    if (md5 != null && !ChecksumAlgorithm.MD5.takes(md5)) {
      throw new S3Error(400, "InvalidDigest", "The Content-MD5 you specified is not valid.");
    }
    if (md5 != null) {
      claims.add(
          new Claim(
              "BadDigest",
              "The Content-MD5 you specified did not match what we received.",
              md5,
              running(ChecksumAlgorithm.MD5.start())));
    }
    ChecksumAlgorithm a = checksumsOfBody ? ChecksumAlgorithm.ofRequest(r) : null;
    if (a != null) {
      String value = r.header(a.header());
      if (!a.takes(value)) {
        throw S3Error.invalidRequest("Value for " + a.header() + " header is invalid.");
      }
      claims.add(new Claim("BadDigest", mismatch(a), value, running(a.start())));
      reportedAlgorithm = a;
      reportedValue = value;
    }
    String trailer = r.header("x-amz-trailer");
    trailerAlgorithm = trailer == null ? null : ChecksumAlgorithm.ofHeader(trailer.trim());
    if (trailer != null && trailerAlgorithm == null) {
      throw S3Error.invalidArgument("x-amz-trailer names no checksum Strata knows: " + trailer);
    }
    String declared = r.header("x-amz-sdk-checksum-algorithm");
    ChecksumAlgorithm sent = reportedAlgorithm != null ? reportedAlgorithm : trailerAlgorithm;
    if (declared != null && sent != null && ChecksumAlgorithm.named(declared) != sent) {
      // The SDK says it computed one checksum and sent another: neither can be trusted.
      throw S3Error.invalidRequest("Value for x-amz-sdk-checksum-algorithm header is invalid.");
    }
    trailerSum = trailerAlgorithm == null ? null : trailerAlgorithm.start();
  }

  /**
   * The body of {@code r} as its client sent it: decoded if {@code aws-chunked} (its chunk
   * signatures checked), and checked against every claim at its end.
   */
  static VerifiedBody of(S3Request r, SigV4Signed signed, InputStream raw) {
    return of(r, signed, raw, true);
  }

  /**
   * As {@link #of}, for CompleteMultipartUpload: its {@code x-amz-checksum-*} headers are claims
   * about the object it makes, checked there, not about its XML.
   */
  static VerifiedBody ofCompletion(S3Request r, SigV4Signed signed, InputStream raw) {
    return of(r, signed, raw, false);
  }

  private static VerifiedBody of(
      S3Request r, SigV4Signed signed, InputStream raw, boolean checksumsOfBody) {
    AwsChunkedInput chunked = signed.streaming() ? new AwsChunkedInput(raw, signed) : null;
    return new VerifiedBody(
        chunked != null ? chunked : raw,
        r,
        signed,
        () -> chunked == null ? Map.of() : chunked.trailers(),
        declaredLength(r, signed),
        checksumsOfBody);
  }

  /** The body's length as the client declared it, or -1. */
  long declared() {
    return expectedLength;
  }

  /** The algorithm of the checksum the client sent (in a header or the trailer), or null. */
  ChecksumAlgorithm algorithm() {
    return trailerAlgorithm != null ? trailerAlgorithm : reportedAlgorithm;
  }

  /** The checksum to give back ({@code x-amz-checksum-*}), if the client sent one. */
  Map.Entry<String, String> checksum() {
    if (trailerAlgorithm != null) {
      return trailerValue == null ? null : Map.entry(trailerAlgorithm.header(), trailerValue);
    }
    return reportedAlgorithm == null ? null : Map.entry(reportedAlgorithm.header(), reportedValue);
  }

  long length() {
    return length;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    int n = in.read(b, off, len);
    if (n < 0) {
      verify();
      return -1;
    }
    length += n;
    for (Claim c : claims) {
      c.check.update(b, off, n);
    }
    if (trailerSum != null) {
      trailerSum.update(b, off, n);
    }
    return n;
  }

  private void verify() {
    if (checked) {
      return;
    }
    checked = true;
    if (expectedLength >= 0 && length != expectedLength) {
      throw new S3Error(
          400,
          "IncompleteBody",
          "You did not provide the number of bytes specified by the Content-Length HTTP header");
    }
    for (Claim c : claims) {
      if (!c.expected.equals(c.check.value())) {
        throw new S3Error(400, c.code, c.message);
      }
    }
    if (trailerAlgorithm != null) {
      String sent = trailers.get().get(trailerAlgorithm.header());
      if (sent == null) {
        throw AwsChunkedInput.malformedTrailer(
            "x-amz-trailer names " + trailerAlgorithm.header() + " but the trailer lacks it");
      }
      if (!trailerAlgorithm.takes(sent)) {
        throw S3Error.invalidRequest(
            "Value for " + trailerAlgorithm.header() + " trailing header is invalid.");
      }
      if (!sent.equals(trailerSum.base64())) {
        throw new S3Error(400, "BadDigest", mismatch(trailerAlgorithm));
      }
      // Kept: a digest's value is read once (SHA-1 and SHA-256 start again when read).
      trailerValue = sent;
    }
  }

  private static Check digest(MessageDigest d, Supplier<String> value) {
    return new Check() {
      @Override
      public void update(byte[] b, int off, int len) {
        d.update(b, off, len);
      }

      @Override
      public String value() {
        return value.get();
      }
    };
  }

  private static String mismatch(ChecksumAlgorithm a) {
    return "The " + a + " you specified did not match the calculated checksum.";
  }

  private static Check running(ChecksumAlgorithm.Running sum) {
    return new Check() {
      @Override
      public void update(byte[] b, int off, int len) {
        sum.update(b, off, len);
      }

      @Override
      public String value() {
        return sum.base64();
      }
    };
  }

  /** The object's length as the client declared it (the decoded length of a chunked body). */
  private static long declaredLength(S3Request r, SigV4Signed signed) {
    String decoded = r.header("x-amz-decoded-content-length");
    String plain = r.header("content-length");
    String value = signed.streaming() ? decoded : plain;
    if (value == null) {
      if (signed.streaming()) {
        throw new S3Error(
            411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
      }
      return -1;
    }
    try {
      long n = Long.parseLong(value.trim());
      if (n < 0) {
        throw S3Error.invalidArgument("a negative length: " + value);
      }
      return n;
    } catch (NumberFormatException e) {
      if (signed.streaming()) {
        // A decoded length that is no number is none, as S3 answers it.
        throw new S3Error(
            411, "MissingContentLength", "You must provide the Content-Length HTTP header.");
      }
      throw S3Error.invalidArgument("a length that is not a number: " + value);
    }
  }
}
