package io.strata.s3;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PutObject, CopyObject and DeleteObject. A put streams the body into a new version that appears
 * under the key only once every byte arrived and every checksum the client sent held ({@link
 * VerifiedBody}); a broken upload leaves the key as it was. Folders the key needs are made, as S3's
 * keys imply them.
 */
final class ObjectWrites {
  /** S3's limit for one PUT (larger objects go in parts). */
  static final long MAX_PUT = 5L << 30;

  private static final Logger LOG = LoggerFactory.getLogger(ObjectWrites.class);
  private static final int BUFFER = 256 << 10;

  /** Each request thread's copy buffer: one per PUT made 256 KiB of garbage for a 4 KiB object. */
  private static final ThreadLocal<byte[]> COPY_BUFFER =
      ThreadLocal.withInitial(() -> new byte[BUFFER]);

  private final FileSystem fs;

  /** Whether a lost metadata was logged already (once is enough to tell the operator). */
  private volatile boolean metadataLost;

  ObjectWrites(FileSystem fs) {
    this.fs = fs;
  }

  FileSystem fs() {
    return fs;
  }

  /**
   * What S3 checks of a write's headers before anything is written: the website redirect a version
   * keeps ({@code x-amz-website-redirect-location}: a path or an http(s) URL), and object lock
   * ({@link #refuseObjectLock}).
   */
  static void checkWriteHeaders(S3Request r) {
    String redirect = r.header("x-amz-website-redirect-location");
    if (redirect != null
        && !(redirect.startsWith("/")
            || redirect.startsWith("http://")
            || redirect.startsWith("https://"))) {
      throw new S3Error(
          400,
          "InvalidRedirectLocation",
          "The website redirect location must have a prefix of 'http://' or 'https://' or '/'.");
    }
    refuseObjectLock(r);
  }

  /**
   * Object lock (retention, legal hold) is not kept: a write that asks for it is refused as S3
   * refuses it for a bucket without lock (after the checks S3 makes of the headers first), rather
   * than stored unprotected while its writer believes it is.
   */
  private static void refuseObjectLock(S3Request r) {
    String mode = r.header("x-amz-object-lock-mode");
    String until = r.header("x-amz-object-lock-retain-until-date");
    String hold = r.header("x-amz-object-lock-legal-hold");
    if (mode == null && until == null && hold == null) {
      return;
    }
    if ((mode == null) != (until == null)) {
      throw S3Error.invalidArgument(
          "x-amz-object-lock-retain-until-date and x-amz-object-lock-mode must both be supplied");
    }
    if (mode != null && !mode.equals("GOVERNANCE") && !mode.equals("COMPLIANCE")) {
      throw S3Error.invalidArgument("Unknown wormMode directive.");
    }
    if (until != null) {
      java.time.Instant date;
      try {
        date = java.time.OffsetDateTime.parse(until).toInstant();
      } catch (java.time.format.DateTimeParseException e) {
        throw S3Error.invalidArgument("The retain until date must be provided in ISO 8601 format");
      }
      if (!date.isAfter(java.time.Instant.now())) {
        throw S3Error.invalidArgument("The retain until date must be in the future!");
      }
    }
    if (hold != null && !hold.equals("ON") && !hold.equals("OFF")) {
      throw S3Error.invalidArgument("Legal Hold must be either of 'ON' or 'OFF'");
    }
    throw S3Error.invalidRequest("Bucket is missing ObjectLockConfiguration");
  }

  void put(S3Request r, VerifiedBody verified, S3Response out) throws IOException {
    String path = S3Names.path(r.bucket(), r.key());
    BucketOps.requireBucket(fs, r.bucket());
    checkWriteHeaders(r);
    long declared = verified.declared();
    if (declared > MAX_PUT) {
      throw new S3Error(
          400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size (5 GiB)");
    }
    if (r.key().endsWith("/")) {
      // Its body is read all the same (it must be empty): a checksum claimed of it must hold.
      boolean holdsBytes = verified.read(new byte[1], 0, 1) > 0;
      folderMarker(path, holdsBytes ? 1 : declared, out);
      return;
    }
    boolean mustBeNew = "*".equals(r.header("if-none-match"));
    String ifMatch = r.header("if-match");
    if (ifMatch != null) {
      FileInfo now = fs.findStatus(path).orElseThrow(() -> S3Error.noSuchKey(r.key()));
      if (!ObjectReads.matches(ifMatch, S3Names.etag(now))) {
        throw S3Error.preconditionFailed();
      }
    }
    ObjectMetadata metadata = ObjectMetadata.of(r.headers());
    makeParents(path);
    FileInfo written = write(path, verified, !mustBeNew, r.key());
    Map.Entry<String, String> checksum = verified.checksum();
    keep(path, metadata.withChecksum(checksum, UploadStore.Checksum.FULL_OBJECT), written);
    out.header(HttpHeaderNames.ETAG, S3Names.etag(written));
    if (checksum != null) {
      out.header(checksum.getKey(), checksum.getValue());
      out.header(ObjectMetadata.CHECKSUM_TYPE, UploadStore.Checksum.FULL_OBJECT);
    }
    out.empty(200);
  }

  /** CopyObject: the source's bytes, read as one version, written under the key. */
  void copy(S3Request r, S3Response out) throws IOException {
    String path = S3Names.path(r.bucket(), r.key());
    BucketOps.requireBucket(fs, r.bucket());
    FileInfo src = copySource(r);
    if (src.length() > MAX_PUT) {
      throw S3Error.invalidRequest(
          "a source larger than 5 GiB is copied in parts (UploadPartCopy)");
    }
    checkWriteHeaders(r);
    String directive = r.header("x-amz-metadata-directive");
    if (directive != null && !directive.equals("COPY") && !directive.equals("REPLACE")) {
      throw S3Error.invalidArgument("x-amz-metadata-directive is COPY or REPLACE: " + directive);
    }
    if (src.path().equals(path) && !"REPLACE".equals(directive)) {
      throw S3Error.invalidRequest(
          "This copy request is illegal because it is trying to copy an object to itself without"
              + " changing the object's metadata, storage class, website redirect location or"
              + " encryption attributes.");
    }
    ObjectMetadata metadata =
        "REPLACE".equals(directive)
            ? ObjectMetadata.of(r.headers())
            : ObjectMetadata.read(fs, src.path(), S3Names.etag(src))
                .copied(r.header("x-amz-website-redirect-location"));
    makeParents(path);
    FileInfo written;
    try (FileInStream in = fs.open(src)) {
      written = write(path, in, true, r.key());
    }
    keep(path, metadata, written);
    out.xml(
        200,
        S3Xml.document("CopyObjectResult")
            .element("ETag", S3Names.etag(written))
            .time("LastModified", written.mtimeMs())
            .end("CopyObjectResult"));
  }

  /**
   * The version {@code x-amz-copy-source} names, if its conditions ({@code
   * x-amz-copy-source-if-match}, {@code -if-none-match}) hold.
   */
  FileInfo copySource(S3Request r) {
    String source = AwsUri.decode(r.header("x-amz-copy-source"));
    if (source.contains("?versionId=")) {
      throw S3Error.notImplemented("copying a version (versionId)");
    }
    String from = source.startsWith("/") ? source.substring(1) : source;
    int slash = from.indexOf('/');
    if (slash <= 0 || slash == from.length() - 1) {
      throw S3Error.invalidArgument("x-amz-copy-source must be BUCKET/KEY: " + source);
    }
    String srcBucket = from.substring(0, slash);
    String srcKey = from.substring(slash + 1);
    String srcPath = S3Names.path(srcBucket, srcKey);
    FileInfo src =
        fs.findStatus(srcPath)
            .filter(f -> !f.directory())
            .orElseThrow(
                () -> {
                  BucketOps.requireBucket(fs, srcBucket);
                  return S3Error.noSuchKey(srcKey);
                });
    String etag = S3Names.etag(src);
    String ifMatch = r.header("x-amz-copy-source-if-match");
    String ifNoneMatch = r.header("x-amz-copy-source-if-none-match");
    if ((ifMatch != null && !ObjectReads.matches(ifMatch, etag))
        || (ifNoneMatch != null && ObjectReads.matches(ifNoneMatch, etag))) {
      throw S3Error.preconditionFailed();
    }
    return src;
  }

  /**
   * Writes {@code in} as the new version of {@code r}'s key, with {@code metadata} (a completed
   * multipart upload's, asked for once every byte was read: its checksum may be of them all).
   */
  FileInfo publish(S3Request r, InputStream in, Supplier<ObjectMetadata> metadata)
      throws IOException {
    String path = S3Names.path(r.bucket(), r.key());
    BucketOps.requireBucket(fs, r.bucket());
    makeParents(path);
    FileInfo written = write(path, in, true, r.key());
    keep(path, metadata.get(), written);
    return written;
  }

  /**
   * Keeps {@code metadata} with {@code version} of {@code path}, once it is published: bound to its
   * ETag, so that a version a racing writer published meanwhile is not given it. An under-storage
   * that keeps no extended attributes loses it (said once in the log): the bytes are written.
   */
  private void keep(String path, ObjectMetadata metadata, FileInfo version) {
    if (metadata.isEmpty()) {
      return;
    }
    try {
      fs.setXattr(path, ObjectMetadata.XATTR, metadata.encode(S3Names.etag(version)));
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND) {
        return;
      }
      if (!metadataLost) {
        metadataLost = true;
        LOG.warn(
            "the metadata of {} (Content-Type, x-amz-meta-*) is not kept: {}", path, e.oneLine());
      }
    }
  }

  /** DeleteObject: a key that is not there is deleted already (204 either way, as S3 answers). */
  void delete(S3Request r, S3Response out) {
    deleteKey(r.bucket(), r.key());
    out.empty(204);
  }

  /** Deletes {@code key}; false if it was not there. A folder's key removes it only if empty. */
  boolean deleteKey(String bucket, String key) {
    String path = S3Names.path(bucket, key);
    try {
      FileInfo f = fs.getStatus(path);
      if (f.directory() != key.endsWith("/")) {
        return false;
      }
      fs.delete(path, false);
      return true;
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND || e.code() == StatusCode.NOT_A_DIRECTORY) {
        return false;
      }
      if (e.code() == StatusCode.DIRECTORY_NOT_EMPTY) {
        // A folder's marker goes; the keys below it stay, as they would in S3.
        return true;
      }
      throw e;
    }
  }

  private FileInfo write(String path, InputStream in, boolean overwrite, String key)
      throws IOException {
    FileOutStream out;
    try {
      out = fs.create(path, overwrite ? WriteOptions.overwriting() : WriteOptions.DEFAULT);
    } catch (StrataException e) {
      if (e.code() == StatusCode.ALREADY_EXISTS) {
        throw S3Error.preconditionFailed();
      }
      if (e.code() == StatusCode.IS_A_DIRECTORY) {
        throw new S3Error(409, "InvalidObjectState", key + " is a folder (a prefix of other keys)");
      }
      throw e;
    }
    boolean done = false;
    try {
      byte[] buf = COPY_BUFFER.get();
      int n;
      while ((n = in.read(buf)) >= 0) {
        out.write(buf, 0, n);
      }
      out.close();
      done = true;
    } catch (StrataException e) {
      // A key made meanwhile: the publication, not the open, finds it (If-None-Match: *).
      if (e.code() == StatusCode.ALREADY_EXISTS && !overwrite) {
        throw S3Error.preconditionFailed();
      }
      throw e;
    } finally {
      if (!done) {
        out.cancel();
      }
    }
    FileInfo published = out.published();
    return published != null ? published : fs.getStatus(path);
  }

  private void folderMarker(String path, long declared, S3Response out) {
    if (declared > 0) {
      throw S3Error.invalidArgument("a key ending in '/' is a folder and holds no bytes");
    }
    try {
      fs.mkdir(path, true);
    } catch (StrataException e) {
      if (e.code() != StatusCode.ALREADY_EXISTS) {
        throw e;
      }
    }
    out.header(HttpHeaderNames.ETAG, "\"d41d8cd98f00b204e9800998ecf8427e\"");
    out.empty(200);
  }

  private void makeParents(String path) {
    String parent = path.substring(0, path.lastIndexOf('/'));
    if (parent.indexOf('/', 1) < 0) {
      return;
    }
    // Looked at first: a folder that exists (most PUTs' case) needs no mkdir, a call to its
    // owner, when its status is cached.
    if (fs.findStatus(parent).map(FileInfo::directory).orElse(false)) {
      return;
    }
    try {
      fs.mkdir(parent, true);
    } catch (StrataException e) {
      if (e.code() == StatusCode.ALREADY_EXISTS) {
        return;
      }
      if (e.code() == StatusCode.NOT_A_DIRECTORY) {
        throw new S3Error(
            409, "InvalidObjectState", "a part of the key is an object, not a folder: " + path);
      }
      throw e;
    }
  }
}
