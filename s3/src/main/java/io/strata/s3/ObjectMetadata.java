package io.strata.s3;

import io.netty.handler.codec.http.HttpHeaders;
import io.strata.client.FileSystem;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What a client said of an object beside its bytes, given back on every GET and HEAD of that
 * version: Content-Type and the other standard headers S3 keeps, the user's {@code x-amz-meta-*},
 * and the checksum the upload was verified with (given when asked for). Kept as one extended
 * attribute of the file ({@link #XATTR}), with the ETag of the version it was written for: a
 * version that replaced it (through FUSE, the shell, or the under- storage itself) is not given
 * metadata that was not its own.
 */
record ObjectMetadata(Map<String, String> headers) {
  static final String XATTR = "user.s3.meta";

  static final ObjectMetadata NONE = new ObjectMetadata(Map.of());

  /** S3's limit on the user's metadata: names and values, in UTF-8 bytes. */
  static final int MAX_USER_BYTES = 2 << 10;

  private static final String USER_PREFIX = "x-amz-meta-";
  private static final String CHECKSUM_PREFIX = "x-amz-checksum-";
  static final String CHECKSUM_TYPE = "x-amz-checksum-type";
  private static final String FORMAT = "s3meta1";
  private static final String REDIRECT = "x-amz-website-redirect-location";

  private static final Set<String> STANDARD =
      Set.of(
          "content-type",
          "content-encoding",
          "content-disposition",
          "content-language",
          "cache-control",
          "expires",
          REDIRECT);

  ObjectMetadata {
    headers = Map.copyOf(headers);
  }

  /** The metadata a PUT, a CreateMultipartUpload or a CopyObject (REPLACE) carries. */
  static ObjectMetadata of(HttpHeaders request) {
    Map<String, String> kept = new LinkedHashMap<>();
    int userBytes = 0;
    for (Map.Entry<String, String> h : request) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (STANDARD.contains(name)) {
        kept.put(name, h.getValue());
      } else if (name.startsWith(USER_PREFIX)) {
        kept.put(name, h.getValue());
        userBytes += (name.length() - USER_PREFIX.length()) + utf8(h.getValue()).length;
      }
    }
    if (userBytes > MAX_USER_BYTES) {
      throw new S3Error(
          400,
          "MetadataTooLarge",
          "Your metadata headers exceed the maximum allowed metadata size");
    }
    return kept.isEmpty() ? NONE : new ObjectMetadata(kept);
  }

  boolean isEmpty() {
    return headers.isEmpty();
  }

  /**
   * What a copy with the COPY directive keeps of its source's: all but the website redirect, which
   * S3 takes only from the copy request itself ({@code redirect}, or none).
   */
  ObjectMetadata copied(String redirect) {
    Map<String, String> all = new LinkedHashMap<>(headers);
    all.remove(REDIRECT);
    if (redirect != null) {
      all.put(REDIRECT, redirect);
    }
    return all.isEmpty() ? NONE : new ObjectMetadata(all);
  }

  /**
   * This and the object's checksum ({@code x-amz-checksum-*}, verified on its way in or computed)
   * with its type ({@code FULL_OBJECT}, or {@code COMPOSITE} for one made of its parts').
   */
  ObjectMetadata withChecksum(Map.Entry<String, String> checksum, String type) {
    if (checksum == null) {
      return this;
    }
    Map<String, String> all = new LinkedHashMap<>(headers);
    all.put(checksum.getKey().toLowerCase(Locale.ROOT), checksum.getValue());
    all.put(CHECKSUM_TYPE, type);
    return new ObjectMetadata(all);
  }

  /**
   * The headers a GET or HEAD gives: the kept ones and, when {@code checksums} (the client asked
   * with {@code x-amz-checksum-mode: ENABLED} for the whole object), the checksum.
   */
  Map<String, String> answer(boolean checksums) {
    if (checksums || headers.isEmpty()) {
      return headers;
    }
    Map<String, String> out = new LinkedHashMap<>(headers);
    out.keySet().removeIf(k -> k.startsWith(CHECKSUM_PREFIX));
    return out;
  }

  /** The attribute's value, for the version whose ETag is {@code etag}. */
  byte[] encode(String etag) {
    StringBuilder b = new StringBuilder(FORMAT).append('\n').append(etag).append('\n');
    // Header values hold no line breaks (HTTP forbids them), so a line is a header.
    headers.forEach((k, v) -> b.append(k).append(':').append(v).append('\n'));
    return utf8(b.toString());
  }

  /** What {@code path}'s attribute keeps for its version {@code etag} (one call to its owner). */
  static ObjectMetadata read(FileSystem fs, String path, String etag) {
    return decode(Optional.ofNullable(fs.xattrs(path).get(XATTR)), etag);
  }

  /** The metadata {@code value} keeps for the version {@code etag}; NONE if it is another's. */
  static ObjectMetadata decode(Optional<byte[]> value, String etag) {
    if (value.isEmpty()) {
      return NONE;
    }
    String[] lines = new String(value.get(), StandardCharsets.UTF_8).split("\n", -1);
    if (lines.length < 2 || !lines[0].equals(FORMAT) || !lines[1].equals(etag)) {
      return NONE;
    }
    Map<String, String> kept = new LinkedHashMap<>();
    for (int i = 2; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        kept.put(lines[i].substring(0, colon), lines[i].substring(colon + 1));
      }
    }
    return kept.isEmpty() ? NONE : new ObjectMetadata(kept);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
