package io.strata.s3;

import java.io.IOException;
import java.io.InputStream;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The checksums of a multipart upload created with one ({@code x-amz-checksum-algorithm}): each
 * part's, named again in CompleteMultipartUpload and checked against what was stored with it, and
 * the object's, made as S3 makes it. A COMPOSITE checksum is the algorithm over the parts' own
 * checksums (their bytes, in order) followed by {@code -N}, known before a byte is written; a
 * FULL_OBJECT one (the CRCs) is computed over the object's bytes as they are written, and a claim
 * the client made of it is checked at their end, before the object is published.
 */
final class PartChecksums {
  private PartChecksums() {}

  /**
   * The whole object's checksum an upload asks for ({@code x-amz-checksum-algorithm} and {@code
   * x-amz-checksum-type}), checked as S3 checks them: a known algorithm, COMPOSITE or FULL_OBJECT,
   * a type only with an algorithm, FULL_OBJECT only for the CRCs, COMPOSITE for all but CRC64NVME
   * (its default type; COMPOSITE the others'). Null if it asks for none.
   */
  static UploadStore.Checksum requested(S3Request r) {
    String algorithmName = r.header("x-amz-checksum-algorithm");
    ChecksumAlgorithm algorithm =
        algorithmName == null ? null : ChecksumAlgorithm.named(algorithmName);
    if (algorithmName != null && algorithm == null) {
      throw S3Error.invalidRequest(
          "Checksum algorithm provided is unsupported. Please try again with any of the valid"
              + " types: "
              + ChecksumAlgorithm.names());
    }
    String type = type(r);
    if (type != null && algorithm == null) {
      throw S3Error.invalidRequest(
          "The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm"
              + " header.");
    }
    if (algorithm == null) {
      return null;
    }
    if (type == null) {
      type =
          algorithm == ChecksumAlgorithm.CRC64NVME
              ? UploadStore.Checksum.FULL_OBJECT
              : UploadStore.Checksum.COMPOSITE;
    }
    if ((type.equals(UploadStore.Checksum.FULL_OBJECT) && !algorithm.crc())
        || (type.equals(UploadStore.Checksum.COMPOSITE)
            && algorithm == ChecksumAlgorithm.CRC64NVME)) {
      throw S3Error.invalidRequest(
          "The "
              + type
              + " checksum type cannot be used with the "
              + lower(algorithm)
              + " checksum algorithm.");
    }
    return new UploadStore.Checksum(algorithm, type);
  }

  /** {@code x-amz-checksum-type}, upper-cased (S3 takes either case); InvalidRequest if unknown. */
  static String type(S3Request r) {
    String type = r.header(ObjectMetadata.CHECKSUM_TYPE);
    if (type == null) {
      return null;
    }
    type = type.trim().toUpperCase(Locale.ROOT);
    if (!type.equals(UploadStore.Checksum.COMPOSITE)
        && !type.equals(UploadStore.Checksum.FULL_OBJECT)) {
      throw S3Error.invalidRequest("Value for x-amz-checksum-type header is invalid.");
    }
    return type;
  }

  /** A claimed checksum without its composite's part count ({@code -N}). */
  static String compositeBase(String value) {
    String v = value.trim();
    int dash = v.lastIndexOf('-');
    return dash > 0 && v.substring(dash + 1).chars().allMatch(Character::isDigit)
        ? v.substring(0, dash)
        : v;
  }

  /**
   * Checks the checksums a Part element of CompleteMultipartUpload ({@code asked}) names against
   * the part stored ({@code part}): at most one, valid base64 of its length, of the algorithm the
   * part was stored with and its value there; one is needed for each part of an upload created with
   * an algorithm ({@code wanted}), and none may be named of a part stored without.
   */
  static void check(UploadStore.Checksum wanted, Map<String, String> asked, UploadStore.Part part) {
    ChecksumAlgorithm named = null;
    for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
      if (asked.get(element(a)) != null) {
        if (named != null) {
          throw multipleOrInvalid();
        }
        named = a;
      }
    }
    if (named == null) {
      if (wanted != null) {
        throw S3Error.invalidRequest(
            "The upload was created using a "
                + lower(wanted.algorithm())
                + " checksum. The complete request must include the checksum for each part. It"
                + " was missing for part "
                + part.number()
                + " in the request.");
      }
      return;
    }
    String value = asked.get(element(named)).trim();
    if (!named.takes(value)) {
      throw multipleOrInvalid();
    }
    if (part.checksumAlgorithm() == null) {
      throw MultipartCompletion.invalidPart();
    }
    if (named != part.checksumAlgorithm()) {
      throw new S3Error(
          400,
          "BadDigest",
          "The "
              + lower(named)
              + " you specified for part "
              + part.number()
              + " did not match what we received.");
    }
    if (!value.equals(part.checksum())) {
      throw MultipartCompletion.invalidPart();
    }
  }

  /** The XML element that carries a checksum of {@code a}: ChecksumCRC32... */
  static String element(ChecksumAlgorithm a) {
    return "Checksum" + a.name();
  }

  /** The object's checksum: known now (COMPOSITE), or once its bytes went by (FULL_OBJECT). */
  interface Whole {
    /** The object's bytes, read through this (checked at their end, for a FULL_OBJECT claim). */
    InputStream over(InputStream object);

    /** The header and value, once known; null for an upload without a checksum. */
    Map.Entry<String, String> value();
  }

  /**
   * The object's checksum for an upload that asked for {@code wanted} (null: none), made of {@code
   * parts}; the value {@code r} claims of it ({@code x-amz-checksum-ALGORITHM}) is checked.
   */
  static Whole whole(UploadStore.Checksum wanted, List<UploadStore.Part> parts, S3Request r) {
    if (wanted == null) {
      return new Known(null);
    }
    ChecksumAlgorithm algorithm = wanted.algorithm();
    String claimed = r.header(algorithm.header());
    if (claimed != null) {
      claimed = claimed.trim();
    }
    if (wanted.type().equals(UploadStore.Checksum.COMPOSITE)) {
      ChecksumAlgorithm.Running sum = algorithm.start();
      for (UploadStore.Part p : parts) {
        if (p.checksumAlgorithm() != algorithm) {
          throw MultipartCompletion.invalidPart();
        }
        byte[] own = Base64.getDecoder().decode(p.checksum());
        sum.update(own, 0, own.length);
      }
      String value = sum.base64() + "-" + parts.size();
      if (claimed != null
          && !(claimed.contains("-") ? claimed : claimed + "-" + parts.size()).equals(value)) {
        throw badDigest(algorithm);
      }
      return new Known(Map.entry(algorithm.header(), value));
    }
    return new FullObject(algorithm, claimed);
  }

  /** A checksum known before the bytes are written (or none): they go by unread. */
  private record Known(Map.Entry<String, String> value) implements Whole {
    @Override
    public InputStream over(InputStream object) {
      return object;
    }
  }

  /** A FULL_OBJECT checksum, computed over the bytes as they are written. */
  private static final class FullObject implements Whole {
    private final ChecksumAlgorithm algorithm;
    private final String claimed;
    private final ChecksumAlgorithm.Running sum;
    private String value;

    FullObject(ChecksumAlgorithm algorithm, String claimed) {
      this.algorithm = algorithm;
      this.claimed = claimed;
      this.sum = algorithm.start();
    }

    @Override
    public InputStream over(InputStream object) {
      return new BlockInput() {
        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          int n = object.read(b, off, len);
          if (n > 0) {
            sum.update(b, off, n);
          } else if (n < 0 && value == null) {
            value = sum.base64();
            // Thrown before the writer sees the end: the object is not published.
            if (claimed != null && !claimed.equals(value)) {
              throw badDigest(algorithm);
            }
          }
          return n;
        }

        @Override
        public void close() throws IOException {
          object.close();
        }
      };
    }

    @Override
    public Map.Entry<String, String> value() {
      return value == null ? null : Map.entry(algorithm.header(), value);
    }
  }

  private static S3Error badDigest(ChecksumAlgorithm a) {
    return new S3Error(
        400, "BadDigest", "The " + a + " you specified did not match the calculated checksum.");
  }

  private static S3Error multipleOrInvalid() {
    return S3Error.invalidArgument("Invalid Base64 or multiple checksums present in request");
  }

  private static String lower(ChecksumAlgorithm a) {
    return a.name().toLowerCase(Locale.ROOT);
  }
}
