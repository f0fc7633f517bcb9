package io.strata.s3;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** S3's XML documents, written by hand: a few elements each, escaped as XML 1.0 wants. */
final class S3Xml {
  static final String NS = "http://s3.amazonaws.com/doc/2006-03-01/";

  private static final DateTimeFormatter ISO =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private final StringBuilder out = new StringBuilder(512);

  private S3Xml(String root) {
    out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<").append(root);
    if (!root.equals("Error")) {
      out.append(" xmlns=\"").append(NS).append('"');
    }
    out.append('>');
  }

  static S3Xml document(String root) {
    return new S3Xml(root);
  }

  S3Xml open(String element) {
    out.append('<').append(element).append('>');
    return this;
  }

  S3Xml close(String element) {
    out.append("</").append(element).append('>');
    return this;
  }

  S3Xml element(String element, Object value) {
    out.append('<').append(element).append('>');
    escape(String.valueOf(value));
    return close(element);
  }

  S3Xml text(String value) {
    escape(value);
    return this;
  }

  S3Xml time(String element, long epochMs) {
    return element(element, ISO.format(Instant.ofEpochMilli(epochMs)));
  }

  String end(String root) {
    return out.append("</").append(root).append(">\n").toString();
  }

  static String error(S3Error e, String resource, String requestId) {
    S3Xml xml = document("Error").element("Code", e.code).element("Message", e.getMessage());
    if (e.detailName != null) {
      xml.element(e.detailName, e.detailValue);
    }
    return xml.element("Resource", resource).element("RequestId", requestId).end("Error");
  }

  private void escape(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&apos;");
        default -> {
          // XML 1.0 cannot carry control characters but tab, newline and return: as a reference.
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            out.append("&#x").append(Integer.toHexString(c)).append(';');
          } else {
            out.append(c);
          }
        }
      }
    }
  }
}
