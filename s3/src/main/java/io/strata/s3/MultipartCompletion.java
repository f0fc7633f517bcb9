package io.strata.s3;

import io.strata.client.FileInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * CompleteMultipartUpload: the parts named checked against those stored (ascending numbers, ETags,
 * 5 MiB but the last, their checksums: {@link PartChecksums}), then streamed to the cluster as one
 * new version, published only once whole (and once the object's checksum held), and removed.
 */
final class MultipartCompletion {
  private final UploadStore store;
  private final ObjectWrites writes;

  MultipartCompletion(UploadStore store, ObjectWrites writes) {
    this.store = store;
    this.writes = writes;
  }

  /** Completes {@code u}, the upload {@code r} names, with the parts {@code body} lists. */
  void complete(S3Request r, UploadStore.Upload u, InputStream body, S3Response out)
      throws IOException {
    UploadStore.Checksum wanted = store.checksum(u);
    String mode = PartChecksums.type(r);
    ChecksumAlgorithm claimed = ChecksumAlgorithm.ofRequest(r);
    if (claimed != null
        && !claimed.takes(PartChecksums.compositeBase(r.header(claimed.header())))) {
      throw S3Error.invalidRequest("Value for " + claimed.header() + " header is invalid.");
    }
    if (mode != null && (wanted == null || !wanted.type().equals(mode))) {
      throw S3Error.invalidRequest(
          "The upload was created using the "
              + (wanted == null ? "null" : wanted.type())
              + " checksum mode. The complete request must use the same checksum mode.");
    }
    List<Map<String, String>> asked =
        S3XmlReader.read(body, "CompleteMultipartUpload").items("Part");
    if (asked.isEmpty()) {
      throw S3Error.malformedXml();
    }
    Map<Integer, UploadStore.Part> stored = new HashMap<>();
    for (UploadStore.Part p : store.parts(u)) {
      stored.put(p.number(), p);
    }
    List<UploadStore.Part> chosen = new ArrayList<>();
    int previous = 0;
    long total = 0;
    for (int i = 0; i < asked.size(); i++) {
      Map<String, String> a = asked.get(i);
      int number = completedPartNumber(a.get("PartNumber"));
      if (number <= previous) {
        throw new S3Error(
            400,
            "InvalidPartOrder",
            "The list of parts was not in ascending order. Parts must be ordered by part number.");
      }
      previous = number;
      UploadStore.Part p = stored.get(number);
      if (a.get("ETag") == null) {
        throw S3Error.malformedXml();
      }
      String etag = a.get("ETag").trim();
      if (p == null || !(p.etag().equals(etag) || p.etag().equals("\"" + etag + "\""))) {
        throw invalidPart();
      }
      if (i < asked.size() - 1 && p.length() < MultipartOps.MIN_PART) {
        throw new S3Error(
            400, "EntityTooSmall", "Your proposed upload is smaller than the minimum allowed size");
      }
      PartChecksums.check(wanted, a, p);
      total += p.length();
      chosen.add(p);
    }
    String size = r.header("x-amz-mp-object-size");
    if (size != null && size.trim().startsWith("-")) {
      throw S3Error.invalidRequest(
          "Value for x-amz-mp-object-size header is less than zero: '" + size.trim() + "'");
    }
    if (size != null && !size.trim().equals(Long.toString(total))) {
      throw S3Error.invalidRequest(
          "The provided 'x-amz-mp-object-size' header value "
              + size.trim()
              + " does not match what was computed: "
              + total);
    }
    PartChecksums.Whole whole = PartChecksums.whole(wanted, chosen, r);
    ObjectMetadata metadata = store.metadata(u);
    FileInfo written =
        writes.publish(
            r,
            whole.over(concatenation(u, chosen)),
            () -> metadata.withChecksum(whole.value(), wanted == null ? null : wanted.type()));
    store.remove(u);
    S3Xml xml =
        S3Xml.document("CompleteMultipartUploadResult")
            .element("Location", location(r))
            .element("Bucket", r.bucket())
            .element("Key", r.key())
            .element("ETag", S3Names.etag(written));
    if (whole.value() != null) {
      xml.element(PartChecksums.element(wanted.algorithm()), whole.value().getValue())
          .element("ChecksumType", wanted.type());
    }
    out.xml(200, xml.end("CompleteMultipartUploadResult"));
  }

  /** The object's URL as the client named the endpoint (its Host header). */
  private static String location(S3Request r) {
    String host = r.header("host");
    String path = "/" + AwsUri.encode(r.bucket(), false) + "/" + AwsUri.encode(r.key(), true);
    return host == null ? path : "http://" + host + path;
  }

  /** A Part's PartNumber in a CompleteMultipartUpload body, checked. */
  private static int completedPartNumber(String number) {
    if (number == null) {
      throw S3Error.malformedXml();
    }
    try {
      int n = Integer.parseInt(number.trim());
      if (n < 1) {
        throw S3Error.invalidArgument("PartNumber must be >= 1");
      }
      return n;
    } catch (NumberFormatException e) {
      throw S3Error.malformedXml();
    }
  }

  static S3Error invalidPart() {
    return new S3Error(
        400,
        "InvalidPart",
        "One or more of the specified parts could not be found.  The part may not have been"
            + " uploaded, or the specified entity tag may not match the part's entity tag.");
  }

  private InputStream concatenation(UploadStore.Upload u, List<UploadStore.Part> parts) {
    return new SequenceInputStream(
        Collections.enumeration(
            new java.util.AbstractList<InputStream>() {
              @Override
              public InputStream get(int index) {
                try {
                  return store.open(u, parts.get(index).number());
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              }

              @Override
              public int size() {
                return parts.size();
              }
            }));
  }
}
