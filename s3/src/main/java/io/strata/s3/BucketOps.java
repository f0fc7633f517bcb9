package io.strata.s3;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Iterator;
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

  void listBuckets(S3Response out) {
    S3Xml xml =
        S3Xml.document("ListAllMyBucketsResult")
            .open("Owner")
            .element("ID", "strata")
            .element("DisplayName", "strata")
            .close("Owner")
            .open("Buckets");
    for (FileInfo f : fs.listStatus("/")) {
      if (f.directory()) {
        xml.open("Bucket")
            .element("Name", f.name())
            .time("CreationDate", f.mtimeMs())
            .close("Bucket");
      }
    }
    out.xml(200, xml.close("Buckets").end("ListAllMyBucketsResult"));
  }

  void create(S3Request r, S3Response out) {
    if (!NEW_BUCKET.matcher(r.bucket()).matches()) {
      throw new S3Error(
          400,
          "InvalidBucketName",
          "Bucket names are 3 to 63 characters of a-z, 0-9, '.' and '-': " + r.bucket());
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
