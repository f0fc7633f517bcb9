package io.strata.s3;

import com.dynatrace.hash4j.hashing.HashStream128;
import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;
import net.jpountz.xxhash.XXHashFactory;

/**
 * The checksums S3 clients send with an object ({@code x-amz-checksum-ALGORITHM}, base64 of the
 * big-endian value) and may ask back: every one S3 offers, in the order of its names (as S3 lists
 * them when it refuses another).
 */
enum ChecksumAlgorithm {
  CRC32(4),
  CRC32C(4),
  CRC64NVME(8),
  MD5(16),
  SHA1(20),
  SHA256(32),
  SHA512(64),
  XXHASH128(16),
  XXHASH3(8),
  XXHASH64(8);

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

  /** Whether it is one of the CRCs (the only checksums a multipart upload may take whole). */
  boolean crc() {
    return this == CRC32 || this == CRC32C || this == CRC64NVME;
  }

  /** The names S3 takes, as its refusal of another lists them. */
  static String names() {
    return java.util.Arrays.toString(values());
  }

  /**
   * The algorithm of the one {@code x-amz-checksum-ALGORITHM} header {@code r} carries; null if
   * none; InvalidRequest if more than one (whatever their values).
   */
  static ChecksumAlgorithm ofRequest(S3Request r) {
    ChecksumAlgorithm found = null;
    for (ChecksumAlgorithm a : values()) {
      if (r.header(a.header()) != null) {
        if (found != null) {
          throw S3Error.invalidRequest(
              "Expecting a single x-amz-checksum- header. Multiple checksum Types are not"
                  + " allowed.");
        }
        found = a;
      }
    }
    return found;
  }

  /** A running computation of this checksum. */
  Running start() {
    return switch (this) {
      case CRC32 -> new Running.Crc(new CRC32(), bytes);
      case CRC32C -> new Running.Crc(new CRC32C(), bytes);
      case CRC64NVME -> new Running.Crc(new Crc64Nvme(), bytes);
      case MD5 -> new Running.Digest(digest("MD5"));
      case SHA1 -> new Running.Digest(digest("SHA-1"));
      case SHA256 -> new Running.Digest(digest("SHA-256"));
      case SHA512 -> new Running.Digest(digest("SHA-512"));
      case XXHASH64 ->
          new Running.Crc(
              XXHashFactory.fastestJavaInstance().newStreamingHash64(0).asChecksum(), 8);
      case XXHASH3 -> new Running.Crc(new Xxh3(Hashing.xxh3_64().hashStream()), 8);
      case XXHASH128 -> new Running.Xxh128(Hashing.xxh3_128().hashStream());
    };
  }

  /** The JDK's digest {@code name} (every JDK has MD5, SHA-1, SHA-256, SHA-512). */
  static MessageDigest digest(String name) {
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

    /** XXH3's 128 bits, high half first as S3 writes them. */
    record Xxh128(HashStream128 stream) implements Running {
      @Override
      public void update(byte[] b, int off, int len) {
        stream.putBytes(b, off, len);
      }

      @Override
      public String base64() {
        HashValue128 v = stream.get();
        ByteBuffer out =
            ByteBuffer.allocate(16)
                .putLong(v.getMostSignificantBits())
                .putLong(v.getLeastSignificantBits());
        return Base64.getEncoder().encodeToString(out.array());
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

  /** XXH3's 64 bits as a {@link Checksum}, as lz4-java gives XXH64. */
  private record Xxh3(HashStream64 stream) implements Checksum {
    @Override
    public void update(int b) {
      stream.putByte((byte) b);
    }

    @Override
    public void update(byte[] b, int off, int len) {
      stream.putBytes(b, off, len);
    }

    @Override
    public long getValue() {
      return stream.getAsLong();
    }

    @Override
    public void reset() {
      stream.reset();
    }
  }
}
