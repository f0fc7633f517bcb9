package io.strata.ufs.s3;

import io.strata.core.status.StrataException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * Extended attributes in object metadata as s3fs-fuse keeps them (with {@code -o use_xattr}), so
 * that a bucket's attributes read the same through either: one header, {@code x-amz-meta-xattr},
 * whose value is {@code {"NAME":"BASE64(VALUE)",...}} (names sorted, raw; values in padded base64),
 * percent-encoded whole but for {@code [A-Za-z0-9._~/-]}. No attributes: no header.
 */
final class S3Xattrs {
  static final String KEY = "xattr";

  private S3Xattrs() {}

  /** The attributes in {@code metadata}; none if it has none or their header is malformed. */
  static Map<String, byte[]> of(Map<String, String> metadata) {
    String header = metadata.get(KEY);
    Map<String, byte[]> out = new TreeMap<>();
    if (header == null) {
      return out;
    }
    String json = percentDecode(header);
    int open = json.indexOf('{');
    int close = json.lastIndexOf('}');
    if (open < 0 || close < open) {
      return out;
    }
    String body = json.substring(open + 1, close);
    for (int from = 0, comma; from <= body.length(); from = comma + 1) {
      comma = body.indexOf(',', from);
      if (comma < 0) {
        comma = body.length();
      }
      String pair = body.substring(from, comma);
      int colon = pair.lastIndexOf(':');
      if (colon < 0) {
        continue;
      }
      String name = unquoted(pair.substring(0, colon));
      String value = unquoted(pair.substring(colon + 1));
      if (name == null || value == null || name.isEmpty()) {
        continue;
      }
      try {
        out.put(name, Base64.getDecoder().decode(value));
      } catch (IllegalArgumentException e) {
        // As s3fs: an attribute it cannot read is left out, the others stay.
      }
    }
    return out;
  }

  /** {@code metadata} with the attributes of the object {@code old} (none if null) added. */
  static Map<String, String> carriedOver(HeadObjectResponse old, Map<String, String> metadata) {
    String header = old == null ? null : old.metadata().get(KEY);
    if (header == null) {
      return metadata;
    }
    Map<String, String> m = new HashMap<>(metadata);
    m.put(KEY, header);
    return m;
  }

  /** {@code metadata} with attribute {@code name} set to {@code value}, or removed (null). */
  static Map<String, String> with(Map<String, String> metadata, String name, byte[] value) {
    if (name.indexOf(',') >= 0 || name.indexOf('"') >= 0) {
      throw StrataException.invalidArgument(
          "an attribute name kept in S3 metadata has no ',' or '\"': " + name);
    }
    Map<String, byte[]> xattrs = of(metadata);
    if (value == null) {
      xattrs.remove(name);
    } else {
      xattrs.put(name, value);
    }
    Map<String, String> m = new HashMap<>(metadata);
    if (xattrs.isEmpty()) {
      m.remove(KEY);
    } else {
      m.put(KEY, format(xattrs));
    }
    return m;
  }

  static String format(Map<String, byte[]> xattrs) {
    StringBuilder json = new StringBuilder("{");
    new TreeMap<>(xattrs)
        .forEach(
            (name, value) -> {
              if (json.length() > 1) {
                json.append(',');
              }
              json.append('"')
                  .append(name)
                  .append("\":\"")
                  .append(Base64.getEncoder().encodeToString(value))
                  .append('"');
            });
    return percentEncode(json.append('}').toString());
  }

  /** The text between the first and last double quote; null if another is left inside. */
  private static String unquoted(String s) {
    int first = s.indexOf('"');
    int last = s.lastIndexOf('"');
    if (first < 0 || last <= first) {
      return null;
    }
    String inner = s.substring(first + 1, last);
    return inner.indexOf('"') >= 0 ? null : inner;
  }

  private static String percentEncode(String s) {
    StringBuilder out = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      char c = (char) (b & 0xff);
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || ".-_~/".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append('%').append(String.format("%02X", b & 0xff));
      }
    }
    return out.toString();
  }

  private static String percentDecode(String s) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%'
          && i + 2 < s.length()
          && hex(s.charAt(i + 1)) >= 0
          && hex(s.charAt(i + 2)) >= 0) {
        out.write(hex(s.charAt(i + 1)) * 16 + hex(s.charAt(i + 2)));
        i += 2;
      } else {
        out.writeBytes(String.valueOf(c).getBytes(StandardCharsets.UTF_8));
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static int hex(char c) {
    return Character.digit(c, 16);
  }
}
