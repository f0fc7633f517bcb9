package io.strata.s3;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request's line and headers as S3 reads them: path-style addressing ({@code /bucket/key}), or
 * virtual-hosted ({@code Host: bucket.DOMAIN}, the path the key) for a domain the endpoint is told
 * of; the query's parameters decoded (a name without '=' has the value ""), the raw path and query
 * kept for the signature.
 *
 * @param bucket empty for the service ({@code GET /})
 * @param key empty for a bucket
 * @param hosted whether the host named the bucket (virtual-hosted style)
 */
record S3Request(
    String method,
    String rawPath,
    String rawQuery,
    List<Map.Entry<String, String>> query,
    HttpHeaders headers,
    String bucket,
    String key,
    boolean hosted) {

  /**
   * @param domains host names under which a request's host names its bucket ({@code
   *     bucket.DOMAIN}); a request to a domain itself, or to any other host, is path-style
   */
  static S3Request parse(String method, String uri, HttpHeaders headers, List<String> domains) {
    int q = uri.indexOf('?');
    String rawPath = q < 0 ? uri : uri.substring(0, q);
    String rawQuery = q < 0 ? "" : uri.substring(q + 1);
    if (!rawPath.startsWith("/")) {
      throw S3Error.invalidRequest("the request's path must start with /");
    }
    String path = AwsUri.decode(rawPath.substring(1));
    String hosted = bucketOfHost(headers.get("host"), domains);
    String bucket;
    String key;
    if (hosted != null) {
      bucket = hosted;
      key = path;
    } else {
      int slash = path.indexOf('/');
      bucket = slash < 0 ? path : path.substring(0, slash);
      key = slash < 0 ? "" : path.substring(slash + 1);
    }
    List<Map.Entry<String, String>> query = new ArrayList<>();
    if (!rawQuery.isEmpty()) {
      for (String part : rawQuery.split("&", -1)) {
        if (part.isEmpty()) {
          continue;
        }
        int eq = part.indexOf('=');
        String name = AwsUri.decode(eq < 0 ? part : part.substring(0, eq));
        String value = eq < 0 ? "" : AwsUri.decode(part.substring(eq + 1));
        query.add(Map.entry(name, value));
      }
    }
    return new S3Request(
        method,
        rawPath,
        rawQuery,
        Collections.unmodifiableList(query),
        headers,
        bucket,
        key,
        hosted != null);
  }

  /** The bucket a virtual-hosted request's host names, or null for path style. */
  private static String bucketOfHost(String host, List<String> domains) {
    if (host == null || domains.isEmpty()) {
      return null;
    }
    String name = host.toLowerCase(java.util.Locale.ROOT);
    int colon = name.lastIndexOf(':');
    if (colon > 0 && name.indexOf(']') < colon) {
      name = name.substring(0, colon);
    }
    for (String domain : domains) {
      if (domain.isBlank()) {
        continue;
      }
      String suffix = "." + domain.toLowerCase(java.util.Locale.ROOT);
      if (name.endsWith(suffix) && name.length() > suffix.length()) {
        return name.substring(0, name.length() - suffix.length());
      }
    }
    return null;
  }

  /** The first value of query parameter {@code name}, or null. */
  String param(String name) {
    for (Map.Entry<String, String> e : query) {
      if (e.getKey().equals(name)) {
        return e.getValue();
      }
    }
    return null;
  }

  boolean has(String name) {
    return param(name) != null;
  }

  String header(String name) {
    return headers.get(name);
  }

  /** The request's {@code x-amz-meta-*} headers, by their names without the prefix. */
  Map<String, String> userMetadata() {
    Map<String, String> meta = new LinkedHashMap<>();
    for (Map.Entry<String, String> h : headers) {
      String name = h.getKey().toLowerCase(java.util.Locale.ROOT);
      if (name.startsWith("x-amz-meta-")) {
        meta.put(name.substring("x-amz-meta-".length()), h.getValue());
      }
    }
    return meta;
  }

  /** The resource an error document names. */
  /** What error documents name: the bucket and key, however the request addressed them. */
  String resource() {
    return bucket.isEmpty() ? "/" : "/" + bucket + (key.isEmpty() ? "" : "/" + key);
  }
}
