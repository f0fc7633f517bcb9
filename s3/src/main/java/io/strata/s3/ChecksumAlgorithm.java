package io.strata.s3;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * The checksums S3 clients send with an object ({@code x-amz-checksum-ALGORITHM}, base64 of the
 * big-endian value) and may ask back.
 */
enum ChecksumAlgorithm {
  CRC32(4),
  CRC32C(4),
  CRC64NVME(8),
  SHA1(20),
  SHA256(32);

  private final int bytes;

  ChecksumAlgorithm(int bytes) {
    this.bytes = bytes;
  }

  /** The header (or trailer) that carries it: {@code x-amz-checksum-crc32}... */
  String header() {
    return "x-amz-checksum-" + name().toLowerCase(Locale.ROOT);
  }

  /** Whether {@code base64} is a value of this checksum: base64 of exactly its length in bytes. */
  boolean takes(String base64) {
    try {
      return Base64.getDecoder().decode(base64.trim()).length == bytes;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** The algorithm S3 names {@code name} (CRC32, SHA256...), or null if it names none. */
  static ChecksumAlgorithm named(String name) {
    for (ChecksumAlgorithm a : values()) {
      if (a.name().equalsIgnoreCase(name.trim())) {
        return a;
      }
    }
    return null;
  }

  /** The algorithm of header name {@code name}, or null if it names none. */
  static ChecksumAlgorithm ofHeader(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    if (!n.startsWith("x-amz-checksum-")) {
      return null;
    }
    return named(n.substring("x-amz-checksum-".length()));
  }

  /** A running computation of this checksum. */
  Running start() {
    return switch (this) {
      case CRC32 -> new Running.Crc(new CRC32(), bytes);
      case CRC32C -> new Running.Crc(new CRC32C(), bytes);
      case CRC64NVME -> new Running.Crc(new Crc64Nvme(), bytes);
      case SHA1 -> new Running.Digest(digest("SHA-1"));
      case SHA256 -> new Running.Digest(digest("SHA-256"));
    };
  }

  private static MessageDigest digest(String name) {
    try {
      return MessageDigest.getInstance(name);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(name + " is missing from this JDK", e);
    }
  }

  /** A checksum being computed over a body. */
  sealed interface Running {
    void update(byte[] b, int off, int len);

    /** The value as S3 writes it: base64 of its big-endian bytes. */
    String base64();

    record Crc(Checksum crc, int bytes) implements Running {
      @Override
      public void update(byte[] b, int off, int len) {
        crc.update(b, off, len);
      }

      @Override
      public String base64() {
        ByteBuffer out = ByteBuffer.allocate(8).putLong(crc.getValue());
        return Base64.getEncoder()
            .encodeToString(java.util.Arrays.copyOfRange(out.array(), 8 - bytes, 8));
      }
    }

    record Digest(MessageDigest digest) implements Running {
      @Override
      public void update(byte[] b, int off, int len) {
        digest.update(b, off, len);
      }

      @Override
      public String base64() {
        return Base64.getEncoder().encodeToString(digest.digest());
      }
    }
  }
}
