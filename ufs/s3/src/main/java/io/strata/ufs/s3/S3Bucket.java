package io.strata.ufs.s3;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsStatus;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One bucket's keys, as the S3 under-storage and its streams use them: look-ups, batched deletes,
 * server-side copies, the statuses Strata shows for objects and folders, and errors that name the
 * mount.
 */
final class S3Bucket {
  private static final Logger LOG = LoggerFactory.getLogger(S3Bucket.class);

  /** What files and folders show where their metadata says nothing. */
  static final int FILE_MODE = 0644;

  static final int FOLDER_MODE = 0755;
  private static final int DELETE_BATCH = 1000;
  private static final long MAX_COPY = 5L << 30;

  final S3Client s3;
  final String name;

  /** Names the mount in errors: its URI, and the store's address if not AWS's. */
  final String label;

  private final long largeCopyPart;

  S3Bucket(S3Client s3, String name, String label, long largeCopyPart) {
    this.s3 = s3;
    this.name = name;
    this.label = label;
    this.largeCopyPart = largeCopyPart;
  }

  boolean exists(String key) {
    return head(key) != null;
  }

  /** The status of what a writer just published, by the ETag the store gave it. */
  UfsStatus publishedStatus(String key, String etag, long length) {
    HeadObjectResponse head = head(key);
    String name = key.substring(key.lastIndexOf('/') + 1);
    if (head != null && S3Reader.unquoted(etag).equals(S3Reader.unquoted(head.eTag()))) {
      return file(name, etag, head.contentLength(), head.lastModified());
    }
    // Replaced already: a version nobody will ask for again, named as this writer's own.
    return file(name, etag, length, Instant.EPOCH);
  }

  StrataException error(SdkException e, String what) {
    return S3Errors.toStrata(e, what, label);
  }

  void warn(String what, SdkException e) {
    LOG.warn("{} in {}: {}", what, label, e.toString());
  }

  /** The object's head, or null if there is no object under that key. */
  HeadObjectResponse head(String key) {
    try {
      return s3.headObject(r -> r.bucket(name).key(key));
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return null;
      }
      throw error(e, key);
    } catch (SdkException e) {
      throw error(e, key);
    }
  }

  /** Fails NOT_FOUND unless the folder {@code path} would be in exists (the root always does). */
  void requireParent(S3Location location, StrataPath path) {
    StrataPath parent = path.parent();
    if (!parent.isRoot() && !folderHasKeys(location.folderPrefix(parent))) {
      throw StrataException.notFound("parent of " + path + " does not exist");
    }
  }

  boolean folderHasKeys(String folder) {
    try {
      return s3.listObjectsV2(r -> r.bucket(name).prefix(folder).maxKeys(1)).keyCount() > 0;
    } catch (SdkException e) {
      throw error(e, folder.isEmpty() ? "/" : folder);
    }
  }

  /**
   * A file as S3 describes it. Its time is kept to the second: a HEAD says Last-Modified to the
   * second, a listing to the millisecond, and a file must not seem to change time between the two.
   */
  static UfsStatus file(String name, String etag, long length, Instant modified) {
    return new UfsStatus(
        name,
        false,
        length,
        modified.getEpochSecond() * 1000,
        FILE_MODE,
        "",
        "",
        fingerprint(etag, length, modified));
  }

  static UfsStatus folder(String name) {
    return folder(name, Instant.EPOCH);
  }

  static UfsStatus folder(String name, Instant modified) {
    return new UfsStatus(name, true, 0, modified.toEpochMilli(), FOLDER_MODE, "", "", "");
  }

  /**
   * The status of the object {@code key} (a folder's marker if {@code folder}) as its HEAD
   * describes it, with the POSIX attributes its metadata keeps ({@link S3Metadata}).
   */
  UfsStatus status(String name, String key, HeadObjectResponse head, boolean folder) {
    UfsStatus plain =
        folder
            ? folder(name, head.lastModified())
            : file(name, head.eTag(), head.contentLength(), head.lastModified());
    return S3Metadata.apply(plain, head.metadata(), () -> symlinkTarget(key));
  }

  /** A symbolic link's target: the object's bytes, as s3fs keeps it (at most PATH_MAX). */
  private String symlinkTarget(String key) {
    try {
      return s3.getObjectAsBytes(r -> r.bucket(name).key(key).range("bytes=0-4095")).asUtf8String();
    } catch (SdkException e) {
      throw error(e, key);
    }
  }

  /**
   * Gives the object {@code key}, as {@code head} describes it, the user metadata {@code metadata}:
   * S3 changes metadata only by a copy of the object onto itself (which gives it a new
   * Last-Modified, and so a new version in the cache). The copy is of that version only: an object
   * replaced meanwhile fails (FAILED_PRECONDITION), and is never given the old one's attributes.
   */
  void replaceMetadata(String key, HeadObjectResponse head, Map<String, String> metadata) {
    try {
      if (head.contentLength() > MAX_COPY) {
        new S3LargeCopy(s3, name, largeCopyPart).copy(key, key, head, metadata);
        return;
      }
      s3.copyObject(
          r ->
              r.sourceBucket(name)
                  .sourceKey(key)
                  .destinationBucket(name)
                  .destinationKey(key)
                  .copySourceIfMatch(head.eTag())
                  .metadataDirective(MetadataDirective.REPLACE)
                  .contentType(head.contentType())
                  .metadata(metadata));
    } catch (SdkException e) {
      throw error(e, key);
    }
  }

  /**
   * ETag, length and last-modified second (HEAD gives seconds, listings milliseconds: both must
   * name a version alike).
   */
  static String fingerprint(String etag, long length, Instant modified) {
    String tag = etag == null ? "" : etag.replace("\"", "");
    return "s3:" + tag + ":" + length + ":" + modified.getEpochSecond();
  }

  /** Up to {@code max} objects under {@code folder}, at any depth (its marker included). */
  List<S3Object> objectsUnder(String folder, long max) {
    List<S3Object> objects = new ArrayList<>();
    for (ListObjectsV2Response page :
        s3.listObjectsV2Paginator(r -> r.bucket(name).prefix(folder))) {
      for (S3Object o : page.contents()) {
        objects.add(o);
        if (objects.size() >= max) {
          return objects;
        }
      }
    }
    return objects;
  }

  static List<String> keys(List<S3Object> objects) {
    return objects.stream().map(S3Object::key).toList();
  }

  void deleteKeys(List<String> keys) {
    for (int from = 0; from < keys.size(); from += DELETE_BATCH) {
      List<String> batch = keys.subList(from, Math.min(keys.size(), from + DELETE_BATCH));
      var response =
          s3.deleteObjects(
              r ->
                  r.bucket(name)
                      .delete(
                          d ->
                              d.quiet(true)
                                  .objects(
                                      batch.stream()
                                          .map(k -> ObjectIdentifier.builder().key(k).build())
                                          .toList())));
      if (!response.errors().isEmpty()) {
        throw StrataException.unavailable(
            label
                + " did not delete "
                + response.errors().size()
                + " keys, e.g. "
                + response.errors().get(0).key()
                + " ("
                + response.errors().get(0).code()
                + ")",
            null);
      }
    }
  }

  /** A server-side copy; in parts above S3's 5 GiB limit for one copy. */
  void copy(String from, String to, long size) {
    if (size <= MAX_COPY) {
      s3.copyObject(
          r -> r.sourceBucket(name).sourceKey(from).destinationBucket(name).destinationKey(to));
      return;
    }
    // A multipart copy starts a new object: it takes the source's metadata only when told.
    HeadObjectResponse head = head(from);
    if (head == null) {
      throw StrataException.notFound(from + " does not exist");
    }
    new S3LargeCopy(s3, name, largeCopyPart).copy(from, to, head, head.metadata());
  }

  /** Aborts the unfinished multipart uploads of {@code key}. */
  void abortUploadsOf(String key) {
    for (MultipartUpload u :
        s3.listMultipartUploadsPaginator(r -> r.bucket(name).prefix(key)).uploads()) {
      if (u.key().equals(key)) {
        s3.abortMultipartUpload(r -> r.bucket(name).key(key).uploadId(u.uploadId()));
      }
    }
  }
}
