package io.strata.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;

/**
 * Multipart uploads: Create, UploadPart, UploadPartCopy, Complete, Abort, ListParts and
 * ListMultipartUploads. Parts wait in the endpoint's {@link UploadStore}; Complete writes them to
 * the cluster as one new version, published only once whole, and removes them. Each part but the
 * last is at least 5 MiB and at most 5 GiB, as S3 has it.
 */
final class MultipartOps {
  /** {@code x-amz-copy-source-range} as S3 takes it: {@link #copyRange}. */
  private static final java.util.regex.Pattern COPY_RANGE =
      java.util.regex.Pattern.compile("bytes=(\\d{1,18})-(\\d{1,18})");

  static final long MIN_PART = 5L << 20;
  static final long MAX_PART = 5L << 30;

  private final FileSystem fs;
  private final UploadStore store;
  private final ObjectWrites writes;
  private final String owner;
  private final MultipartCompletion completion;

  /** The uploads {@code owner} makes and sees ("" for the endpoint's own keys). */
  MultipartOps(FileSystem fs, UploadStore store, ObjectWrites writes, String owner) {
    this.fs = fs;
    this.store = store;
    this.writes = writes;
    this.owner = owner;
    this.completion = new MultipartCompletion(store, writes);
  }

  void create(S3Request r, S3Response out) throws IOException {
    S3Names.path(r.bucket(), r.key());
    BucketOps.requireBucket(fs, r.bucket());
    ObjectWrites.checkWriteHeaders(r);
    UploadStore.Checksum checksum = PartChecksums.requested(r);
    UploadStore.Upload u =
        store.create(r.bucket(), r.key(), owner, ObjectMetadata.of(r.headers()), checksum);
    if (checksum != null) {
      out.header("x-amz-checksum-algorithm", checksum.algorithm().name());
      out.header(ObjectMetadata.CHECKSUM_TYPE, checksum.type());
    }
    out.xml(
        200,
        S3Xml.document("InitiateMultipartUploadResult")
            .element("Bucket", r.bucket())
            .element("Key", r.key())
            .element("UploadId", u.id())
            .end("InitiateMultipartUploadResult"));
  }

  void uploadPart(S3Request r, VerifiedBody body, S3Response out) throws IOException {
    int number = partNumber(r);
    UploadStore.Upload u = upload(r);
    if (body.declared() > MAX_PART) {
      throw new S3Error(400, "EntityTooLarge", "a part is at most 5 GiB");
    }
    UploadStore.Checksum wanted = store.checksum(u);
    ChecksumAlgorithm sent = body.algorithm();
    if (wanted != null
        && sent != wanted.algorithm()
        && (sent != null || wanted.type().equals(UploadStore.Checksum.COMPOSITE))) {
      // A composite checksum is made of the parts' own, so each part must come with one; a
      // full-object one is computed here from the bytes.
      throw S3Error.invalidRequest(
          "Checksum Type mismatch occurred, expected checksum Type: "
              + wanted.algorithm()
              + ", actual checksum Type: "
              + (sent == null ? "null" : sent.name()));
    }
    // The part's checksum is kept (the upload's algorithm, else the one it came with), so that
    // Complete can check the one it names.
    UploadStore.Part part =
        store.put(u, number, body, MAX_PART, wanted == null ? sent : wanted.algorithm());
    out.header(HttpHeaderNames.ETAG, part.etag());
    Map.Entry<String, String> checksum = body.checksum();
    if (checksum != null) {
      out.header(checksum.getKey(), checksum.getValue());
    } else if (part.checksum() != null) {
      out.header(part.checksumAlgorithm().header(), part.checksum());
    }
    out.empty(200);
  }

  /** UploadPartCopy: a part made of a range of an existing object. */
  void uploadPartCopy(S3Request r, S3Response out) throws IOException {
    int number = partNumber(r);
    UploadStore.Upload u = upload(r);
    FileInfo src = writes.copySource(r);
    long from = 0;
    long count = src.length();
    String range = r.header("x-amz-copy-source-range");
    if (range != null) {
      long[] span = copyRange(range, src.length());
      from = span[0];
      count = span[1] - span[0] + 1;
    }
    if (count > MAX_PART) {
      throw new S3Error(400, "EntityTooLarge", "a part is at most 5 GiB");
    }
    UploadStore.Part part;
    try (FileInStream in = fs.open(src)) {
      in.seek(from);
      UploadStore.Checksum wanted = store.checksum(u);
      part =
          store.put(
              u,
              number,
              new Bounded(in, count),
              MAX_PART,
              wanted == null ? null : wanted.algorithm());
    }
    S3Xml xml =
        S3Xml.document("CopyPartResult")
            .element("ETag", part.etag())
            .time("LastModified", part.written().toEpochMilli());
    if (part.checksum() != null) {
      xml.element(PartChecksums.element(part.checksumAlgorithm()), part.checksum());
    }
    out.xml(200, xml.end("CopyPartResult"));
  }

  void complete(S3Request r, InputStream body, S3Response out) throws IOException {
    completion.complete(r, upload(r), body, out);
  }

  /**
   * {@code x-amz-copy-source-range}: S3 takes only {@code bytes=FIRST-LAST}, both within the
   * source. A range past its end is refused, not cut short: a part shorter than asked would make a
   * wrong object silently.
   */
  static long[] copyRange(String header, long length) {
    java.util.regex.Matcher m = COPY_RANGE.matcher(header.trim());
    if (!m.matches()) {
      throw S3Error.invalidArgument("x-amz-copy-source-range must be bytes=FIRST-LAST");
    }
    long first = Long.parseLong(m.group(1));
    long last = Long.parseLong(m.group(2));
    if (first > last || last >= length) {
      throw S3Error.invalidArgument(
          "Range specified is not valid for source object of size: " + length);
    }
    return new long[] {first, last};
  }

  /** The upload {@code r} names; NoSuchBucket before NoSuchUpload if its bucket is gone. */
  private UploadStore.Upload upload(S3Request r) throws IOException {
    try {
      return store.get(r.param("uploadId"), r.bucket(), r.key(), owner);
    } catch (S3Error e) {
      BucketOps.requireBucket(fs, r.bucket());
      throw e;
    }
  }

  void abort(S3Request r, S3Response out) throws IOException {
    store.remove(upload(r));
    out.empty(204);
  }

  /**
   * ListParts, a page at a time: {@code max-parts} (1,000 at most) after {@code
   * part-number-marker}.
   */
  void listParts(S3Request r, S3Response out) throws IOException {
    UploadStore.Upload u = upload(r);
    int max = BucketOps.limit("max-parts", r.param("max-parts"));
    int marker =
        BucketOps.nonNegative(
            "part-number-marker", r.param("part-number-marker"), 0, Integer.MAX_VALUE);
    List<UploadStore.Part> after =
        store.parts(u).stream().filter(p -> p.number() > marker).toList();
    List<UploadStore.Part> page = after.subList(0, Math.min(max, after.size()));
    S3Xml xml =
        S3Xml.document("ListPartsResult")
            .element("Bucket", r.bucket())
            .element("Key", r.key())
            .element("UploadId", u.id())
            .element("StorageClass", "STANDARD")
            .element("PartNumberMarker", marker)
            .element(
                "NextPartNumberMarker",
                page.isEmpty() ? marker : page.get(page.size() - 1).number())
            .element("MaxParts", max)
            .element("IsTruncated", page.size() < after.size());
    UploadStore.Checksum checksum = store.checksum(u);
    if (checksum != null) {
      xml.element("ChecksumAlgorithm", checksum.algorithm().name())
          .element("ChecksumType", checksum.type());
    }
    for (UploadStore.Part p : page) {
      xml.open("Part")
          .element("PartNumber", p.number())
          .time("LastModified", p.written().toEpochMilli())
          .element("ETag", p.etag())
          .element("Size", p.length());
      if (p.checksum() != null) {
        xml.element(PartChecksums.element(p.checksumAlgorithm()), p.checksum());
      }
      xml.close("Part");
    }
    out.xml(200, xml.end("ListPartsResult"));
  }

  void listUploads(S3Request r, S3Response out) throws IOException {
    BucketOps.requireBucket(fs, r.bucket());
    String prefix = r.param("prefix") == null ? "" : r.param("prefix");
    int max = BucketOps.limit("max-uploads", r.param("max-uploads"));
    String keyMarker = r.param("key-marker") == null ? "" : r.param("key-marker");
    String idMarker = r.param("upload-id-marker") == null ? "" : r.param("upload-id-marker");
    // In key order, then by id; those after the markers (an id marker counts only with its key).
    List<UploadStore.Upload> after =
        store.list(r.bucket(), owner).stream()
            .filter(u -> u.key().startsWith(prefix))
            .sorted(
                java.util.Comparator.comparing(UploadStore.Upload::key, S3Order::compare)
                    .thenComparing(UploadStore.Upload::id))
            .filter(
                u -> {
                  int c = S3Order.compare(u.key(), keyMarker);
                  return keyMarker.isEmpty()
                      || c > 0
                      || (c == 0 && !idMarker.isEmpty() && u.id().compareTo(idMarker) > 0);
                })
            .toList();
    List<UploadStore.Upload> page = after.subList(0, Math.min(max, after.size()));
    boolean truncated = page.size() < after.size();
    S3Xml xml =
        S3Xml.document("ListMultipartUploadsResult")
            .element("Bucket", r.bucket())
            .element("KeyMarker", keyMarker)
            .element("UploadIdMarker", idMarker)
            .element("Prefix", prefix)
            .element("MaxUploads", max)
            .element("IsTruncated", truncated);
    if (truncated) {
      xml.element("NextKeyMarker", page.get(page.size() - 1).key())
          .element("NextUploadIdMarker", page.get(page.size() - 1).id());
    }
    for (UploadStore.Upload u : page) {
      xml.open("Upload")
          .element("Key", u.key())
          .element("UploadId", u.id())
          .time("Initiated", u.touched().toEpochMilli())
          .element("StorageClass", "STANDARD")
          .close("Upload");
    }
    out.xml(200, xml.end("ListMultipartUploadsResult"));
  }

  private static int partNumber(S3Request r) {
    try {
      int n = Integer.parseInt(r.param("partNumber"));
      if (n < 1 || n > UploadStore.MAX_PART_NUMBER) {
        throw S3Error.invalidArgument(
            "Part number must be an integer between 1 and 10000, inclusive.");
      }
      return n;
    } catch (NumberFormatException e) {
      throw S3Error.invalidArgument(
          "Part number must be an integer between 1 and 10000, inclusive.");
    }
  }

  /** At most {@code left} bytes of {@code in}. */
  private static final class Bounded extends BlockInput {
    private final InputStream in;
    private long left;

    Bounded(InputStream in, long left) {
      this.in = in;
      this.left = left;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left <= 0) {
        return -1;
      }
      int n = in.read(b, off, (int) Math.min(len, left));
      if (n > 0) {
        left -= n;
      }
      return n;
    }
  }
}
