package io.strata.s3;

import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request's line and headers as S3 reads them: path-style addressing ({@code /bucket/key}), the
 * query's parameters decoded (a name without '=' has the value ""), the raw path and query kept for
 * the signature.
 *
 * @param bucket empty for the service ({@code GET /})
 * @param key empty for a bucket
 */
record S3Request(
    String method,
    String rawPath,
    String rawQuery,
    List<Map.Entry<String, String>> query,
    HttpHeaders headers,
    String bucket,
    String key) {

  static S3Request parse(String method, String uri, HttpHeaders headers) {
    int q = uri.indexOf('?');
    String rawPath = q < 0 ? uri : uri.substring(0, q);
    String rawQuery = q < 0 ? "" : uri.substring(q + 1);
    if (!rawPath.startsWith("/")) {
      throw S3Error.invalidRequest("the request's path must start with /");
    }
    String path = AwsUri.decode(rawPath.substring(1));
    int slash = path.indexOf('/');
    String bucket = slash < 0 ? path : path.substring(0, slash);
    String key = slash < 0 ? "" : path.substring(slash + 1);
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
        method, rawPath, rawQuery, Collections.unmodifiableList(query), headers, bucket, key);
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
  String resource() {
    return rawPath;
  }
}
