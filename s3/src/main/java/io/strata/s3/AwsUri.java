package io.strata.s3;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Percent-encoding as AWS Signature V4 defines it, and its inverse. */
final class AwsUri {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private AwsUri() {}

  /**
   * {@code s} with every byte of its UTF-8 form but A-Z a-z 0-9 - _ . ~ (and '/' when {@code
   * keepSlash}) as %XX.
   */
  static String encode(String s, boolean keepSlash) {
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if ((c >= 'A' && c <= 'Z')
          || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9')
          || c == '-'
          || c == '_'
          || c == '.'
          || c == '~'
          || (keepSlash && c == '/')) {
        out.append((char) c);
      } else {
        out.append('%').append(HEX[c >> 4]).append(HEX[c & 15]);
      }
    }
    return out.toString();
  }

  /**
   * {@code s} with its %XX sequences decoded as UTF-8 ('+' stays '+': S3's clients encode a space
   * as %20). A malformed sequence is an {@link S3Error}.
   */
  static String decode(String s) {
    if (s.indexOf('%') < 0) {
      return s;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '%') {
        if (i + 2 >= s.length()) {
          throw S3Error.invalidArgument("a malformed %-escape in the request's URI");
        }
        int hi = Character.digit(s.charAt(i + 1), 16);
        int lo = Character.digit(s.charAt(i + 2), 16);
        if (hi < 0 || lo < 0) {
          throw S3Error.invalidArgument("a malformed %-escape in the request's URI");
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else {
        byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        bytes.write(b, 0, b.length);
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
