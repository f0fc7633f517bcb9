package io.strata.s3;

import io.strata.client.FileInfo;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;

/**
 * How S3's names map onto Strata's namespace: a bucket is a top-level folder, a key the path below
 * it ('/' separates folders; a key ending in '/' is the folder itself). Keys POSIX cannot hold (an
 * empty, "." or ".." component, NUL, a component past 255 bytes) are refused, not mangled.
 */
final class S3Names {
  static final int MAX_KEY_BYTES = 1024;
  static final int MAX_COMPONENT_BYTES = 255;

  private static final DateTimeFormatter HTTP_DATE =
      DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

  private S3Names() {}

  /** The folder of bucket {@code bucket}. */
  static String bucketPath(String bucket) {
    if (bucket.isEmpty()
        || bucket.equals(".")
        || bucket.equals("..")
        || bucket.indexOf('\0') >= 0
        || bucket.getBytes(StandardCharsets.UTF_8).length > MAX_COMPONENT_BYTES) {
      throw new S3Error(400, "InvalidBucketName", "The specified bucket is not valid: " + bucket);
    }
    return "/" + bucket;
  }

  /** The path of {@code key} in {@code bucket} (without the trailing '/' of a folder's key). */
  static String path(String bucket, String key) {
    if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
      throw new S3Error(400, "KeyTooLongError", "Your key is too long.");
    }
    String body = key.endsWith("/") ? key.substring(0, key.length() - 1) : key;
    if (body.isEmpty()) {
      throw S3Error.invalidArgument("a key must name something below the bucket: " + key);
    }
    for (String part : body.split("/", -1)) {
      if (part.isEmpty() || part.equals(".") || part.equals("..") || part.indexOf('\0') >= 0) {
        throw S3Error.invalidArgument(
            "Strata keeps keys as paths: a key's parts between '/' must not be empty, '.', '..'"
                + " or hold NUL: "
                + key);
      }
      if (part.getBytes(StandardCharsets.UTF_8).length > MAX_COMPONENT_BYTES) {
        throw new S3Error(
            400, "KeyTooLongError", "a part of the key between '/' is longer than 255 bytes");
      }
    }
    return bucketPath(bucket) + "/" + body;
  }

  /**
   * The ETag of a version: stable for as long as the under-storage holds that version (it is made
   * from the version's fingerprint), in the shape of an MD5.
   */
  static String etag(FileInfo f) {
    byte[] h =
        SigV4.sha256().digest(("strata-etag:" + f.fingerprint()).getBytes(StandardCharsets.UTF_8));
    return "\"" + HexFormat.of().formatHex(h, 0, 16) + "\"";
  }

  static String httpDate(long epochMs) {
    return HTTP_DATE.format(Instant.ofEpochMilli(epochMs));
  }
}
