package io.strata.s3;

import java.util.HexFormat;

/**
 * Who signed a request, and what its body is to be checked with: the payload hash is the
 * x-amz-content-sha256 claim (a hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* form).
 */
final class SigV4Signed {
  private final String accessKey;
  private final String amzDate;
  private final String scope;
  private final byte[] signingKey;
  private final String seedSignature;
  private final String payloadHash;

  SigV4Signed(
      String accessKey,
      String amzDate,
      String scope,
      byte[] signingKey,
      String seedSignature,
      String payloadHash) {
    this.accessKey = accessKey;
    this.amzDate = amzDate;
    this.scope = scope;
    this.signingKey = signingKey.clone();
    this.seedSignature = seedSignature;
    this.payloadHash = payloadHash;
  }

  String accessKey() {
    return accessKey;
  }

  String scope() {
    return scope;
  }

  String seedSignature() {
    return seedSignature;
  }

  String payloadHash() {
    return payloadHash;
  }

  boolean streaming() {
    return payloadHash.startsWith("STREAMING-");
  }

  /** The signature of a chunk (or, with {@code trailer}, of the trailing headers). */
  String chain(String previous, String hashOfChunk, boolean trailer) {
    // A chunk's string to sign holds the hash of its (empty) headers before its own; a trailer's
    // holds none.
    String toSign =
        (trailer ? "AWS4-HMAC-SHA256-TRAILER\n" : "AWS4-HMAC-SHA256-PAYLOAD\n")
            + amzDate
            + "\n"
            + scope
            + "\n"
            + previous
            + "\n"
            + (trailer ? "" : SigV4.EMPTY_SHA256 + "\n")
            + hashOfChunk;
    return HexFormat.of().formatHex(SigV4.hmac(signingKey, toSign));
  }
}
