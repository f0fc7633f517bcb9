package io.strata.s3;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The service's and buckets' requests: ListBuckets, CreateBucket, HeadBucket, DeleteBucket,
 * GetBucketLocation, ListObjects (v1) and ListObjectsV2. Buckets are Strata's top-level folders
 * (mount points included), so a folder made through FUSE or the shell is a bucket too.
 */
final class BucketOps {
  /** S3's rule for new buckets' names (existing folders of other names stay reachable). */
  private static final Pattern NEW_BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

  private static final int MAX_KEYS = 1000;

  private static final int MAX_BUCKETS = 10_000;

  /** The x-amz-object-ownership values S3 takes (every object is the bucket owner's here). */
  private static final Set<String> OWNERSHIPS =
      Set.of("BucketOwnerPreferred", "ObjectWriter", "BucketOwnerEnforced");

  private final FileSystem fs;
  private final UploadStore uploads;
  private final KeyListing listing;
  private final String region;

  BucketOps(FileSystem fs, UploadStore uploads, String region) {
    this.fs = fs;
    this.uploads = uploads;
    this.listing = new KeyListing(fs);
    this.region = region;
  }

  /**
   * ListBuckets, in name order: all of them, or those of a {@code prefix} in pages of {@code
   * max-buckets} (1 to 10,000) with a {@code continuation-token} (the last name sent, encoded), as
   * S3 pages them since 2024.
   */
  void listBuckets(S3Request r, S3Response out) {
    String prefix = orEmpty(r.param("prefix"));
    int max = maxBuckets(r.param("max-buckets"));
    String after =
        r.param("continuation-token") == null ? "" : fromToken(r.param("continuation-token"));
    List<FileInfo> buckets =
        fs.listStatus("/").stream()
            .filter(
                f -> f.directory() && f.name().startsWith(prefix) && f.name().compareTo(after) > 0)
            .sorted(Comparator.comparing(FileInfo::name))
            .toList();
    S3Xml xml =
        S3Xml.document("ListAllMyBucketsResult")
            .open("Owner")
            .element("ID", "strata")
            .element("DisplayName", "strata")
            .close("Owner")
            .open("Buckets");
    for (FileInfo f : buckets.subList(0, Math.min(max, buckets.size()))) {
      xml.open("Bucket")
          .element("Name", f.name())
          .time("CreationDate", f.mtimeMs())
          .element("BucketRegion", region)
          .close("Bucket");
    }
    xml.close("Buckets");
    if (buckets.size() > max) {
      xml.element("ContinuationToken", toToken(buckets.get(max - 1).name()));
    }
    if (!prefix.isEmpty()) {
      xml.element("Prefix", prefix);
    }
    out.xml(200, xml.end("ListAllMyBucketsResult"));
  }

  private static int maxBuckets(String value) {
    if (value == null) {
      return Integer.MAX_VALUE;
    }
    try {
      int n = Integer.parseInt(value);
      if (n >= 1 && n <= MAX_BUCKETS) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw S3Error.invalidArgument("Argument max-buckets must be an integer between 1 and 10000.");
  }

  void create(S3Request r, InputStream body, S3Response out) throws IOException {
    if (!NEW_BUCKET.matcher(r.bucket()).matches()) {
      throw new S3Error(400, "InvalidBucketName", "The specified bucket is not valid.");
    }
    String ownership = r.header("x-amz-object-ownership");
    if (ownership != null && !OWNERSHIPS.contains(ownership)) {
      throw S3Error.invalidArgument("Invalid x-amz-object-ownership header: " + ownership);
    }
    S3XmlReader.Body config = S3XmlReader.readOptional(body, "CreateBucketConfiguration");
    if (config != null) {
      String constraint = config.field("LocationConstraint");
      // us-east-1 is named by no constraint; any other must be this endpoint's own region.
      if (constraint != null && (constraint.equals("us-east-1") || !constraint.equals(region))) {
        throw new S3Error(
            400, "InvalidLocationConstraint", "The specified location-constraint is not valid");
      }
    }
    try {
      fs.mkdir(S3Names.bucketPath(r.bucket()), false);
    } catch (StrataException e) {
      if (e.code() == StatusCode.ALREADY_EXISTS) {
        throw new S3Error(
            409,
            "BucketAlreadyOwnedByYou",
            "Your previous request to create the named bucket succeeded and you already own it.");
      }
      throw e;
    }
    out.header("Location", "/" + r.bucket());
    out.empty(200);
  }

  void head(S3Request r, S3Response out) {
    requireBucket(r.bucket());
    out.header("x-amz-bucket-region", region);
    out.empty(200);
  }

  void delete(S3Request r, S3Response out) throws IOException {
    requireBucket(r.bucket());
    String bucket = S3Names.bucketPath(r.bucket());
    // Folders left by deleted keys ("a/" after "a/b" went) are no keys: a bucket of empty folders
    // is empty to S3 clients, and goes with them.
    removeEmptyFolders(bucket);
    deleteEmpty(bucket);
    uploads.removeBucket(r.bucket());
    out.empty(204);
  }

  /**
   * Removes the folders under {@code path}, deepest first, each only if empty: a file anywhere (or
   * one a racing writer adds meanwhile, which makes its folder's delete fail) keeps the bucket.
   */
  private void removeEmptyFolders(String path) {
    Iterator<FileInfo> entries = fs.listStatusPaged(path, 1000);
    while (entries.hasNext()) {
      FileInfo f = entries.next();
      if (!f.directory()) {
        throw notEmpty();
      }
      String folder = path + "/" + f.name();
      removeEmptyFolders(folder);
      deleteEmpty(folder);
    }
  }

  private void deleteEmpty(String path) {
    try {
      fs.delete(path, false);
    } catch (StrataException e) {
      if (e.code() == StatusCode.DIRECTORY_NOT_EMPTY) {
        throw notEmpty();
      }
      throw e;
    }
  }

  private static S3Error notEmpty() {
    return new S3Error(409, "BucketNotEmpty", "The bucket you tried to delete is not empty.");
  }

  void location(S3Request r, S3Response out) {
    requireBucket(r.bucket());
    // us-east-1 is named by an empty constraint, as S3 answers.
    out.xml(
        200,
        S3Xml.document("LocationConstraint")
            .text(region.equals("us-east-1") ? "" : region)
            .end("LocationConstraint"));
  }

  /** ListObjectsV2 ({@code v2}) or ListObjects. */
  void list(S3Request r, S3Response out, boolean v2) {
    requireBucket(r.bucket());
    String prefix = orEmpty(r.param("prefix"));
    String delimiter = orEmpty(r.param("delimiter"));
    boolean url = "url".equals(r.param("encoding-type"));
    if (r.param("encoding-type") != null && !url) {
      throw S3Error.invalidArgument("Invalid Encoding Method specified in Request");
    }
    int max = limit("max-keys", r.param("max-keys"));
    String token = r.param("continuation-token");
    String after;
    if (v2) {
      after = token != null ? fromToken(token) : orEmpty(r.param("start-after"));
    } else {
      after = orEmpty(r.param("marker"));
    }
    KeyListing.Page page =
        max == 0
            ? new KeyListing.Page(java.util.List.of(), java.util.List.of(), false, null)
            : listing.list(r.bucket(), prefix, delimiter, after, max);
    S3Xml xml =
        S3Xml.document("ListBucketResult")
            .element("Name", r.bucket())
            .element("Prefix", enc(prefix, url));
    if (v2) {
      if (token != null) {
        xml.element("ContinuationToken", token);
      }
      if (r.param("start-after") != null) {
        xml.element("StartAfter", enc(r.param("start-after"), url));
      }
      xml.element("KeyCount", page.contents().size() + page.prefixes().size());
    } else {
      xml.element("Marker", enc(after, url));
    }
    xml.element("MaxKeys", max);
    if (!delimiter.isEmpty()) {
      xml.element("Delimiter", enc(delimiter, url));
    }
    if (url) {
      xml.element("EncodingType", "url");
    }
    xml.element("IsTruncated", page.truncated());
    if (page.truncated()) {
      if (v2) {
        xml.element("NextContinuationToken", toToken(page.last()));
      } else if (!delimiter.isEmpty()) {
        xml.element("NextMarker", enc(page.last(), url));
      }
    }
    for (KeyListing.Entry e : page.contents()) {
      xml.open("Contents")
          .element("Key", enc(e.key(), url))
          .time("LastModified", e.info().mtimeMs())
          .element(
              "ETag",
              e.info().directory()
                  ? "\"d41d8cd98f00b204e9800998ecf8427e\""
                  : S3Names.etag(e.info()))
          .element("Size", e.info().directory() ? 0 : e.info().length())
          .element("StorageClass", "STANDARD")
          .close("Contents");
    }
    for (String p : page.prefixes()) {
      xml.open("CommonPrefixes").element("Prefix", enc(p, url)).close("CommonPrefixes");
    }
    out.xml(200, xml.end("ListBucketResult"));
  }

  private void requireBucket(String bucket) {
    requireBucket(fs, bucket);
  }

  /** NoSuchBucket unless {@code bucket}'s folder exists. */
  static void requireBucket(FileSystem fs, String bucket) {
    try {
      if (!fs.getStatus(S3Names.bucketPath(bucket)).directory()) {
        throw S3Error.noSuchBucket(bucket);
      }
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND) {
        throw S3Error.noSuchBucket(bucket);
      }
      throw e;
    }
  }

  /**
   * A listing's limit parameter {@code name} ({@code max-keys}, {@code max-parts}, {@code
   * max-uploads}): 1,000 when absent, at most 1,000; InvalidArgument if it is no number or
   * negative.
   */
  static int limit(String name, String value) {
    return nonNegative(name, value, MAX_KEYS, MAX_KEYS);
  }

  /** Parameter {@code name} as a number from 0 to {@code max}; {@code absent} when not given. */
  static int nonNegative(String name, String value, int absent, int max) {
    if (value == null) {
      return absent;
    }
    try {
      int n = Integer.parseInt(value);
      if (n < 0) {
        throw S3Error.invalidArgument(name + " must not be negative");
      }
      return Math.min(n, max);
    } catch (NumberFormatException e) {
      throw S3Error.invalidArgument(name + " is not a number: " + value);
    }
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  private static String enc(String s, boolean url) {
    return url ? AwsUri.encode(s, true) : s;
  }

  private static String toToken(String key) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(key.getBytes(StandardCharsets.UTF_8));
  }

  private static String fromToken(String token) {
    try {
      return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw S3Error.invalidArgument("The continuation token provided is incorrect");
    }
  }
}
