package io.strata.ufs.s3;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The writes of what S3 keeps for POSIX in object metadata ({@link S3Metadata}): a new mode, owner
 * or times of an object or folder, and new objects that are links or special files.
 */
final class S3MetadataWrites {
  private final S3Location location;
  private final S3Bucket bucket;

  S3MetadataWrites(S3Location location, S3Bucket bucket) {
    this.location = location;
    this.bucket = bucket;
  }

  /** How an entry's metadata changes, given its type bits and default permissions. */
  interface MetadataChange {
    Map<String, String> apply(Map<String, String> old, int type, int defaultPerm);
  }

  /**
   * Rewrites the metadata of the object at {@code path}, or of its folder's marker (made if the
   * folder has none: a folder S3 only implies by its keys has nowhere else to keep it).
   */
  void change(StrataPath path, MetadataChange change) {
    if (path.isRoot()) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "the root of " + bucket.label + " has no object to keep a mode, owner or time in");
    }
    String key = location.key(path);
    HeadObjectResponse head = bucket.head(key);
    if (head != null) {
      bucket.replaceMetadata(
          key, head, change.apply(head.metadata(), S3Metadata.S_IFREG, S3Bucket.FILE_MODE));
      return;
    }
    // A folder's marker is empty: written anew rather than copied onto itself.
    String marker = location.folderPrefix(path);
    HeadObjectResponse folder = bucket.head(marker);
    if (folder == null && !bucket.folderHasKeys(marker)) {
      throw StrataException.notFound(path + " does not exist");
    }
    Map<String, String> metadata =
        change.apply(
            folder == null ? Map.of() : folder.metadata(),
            S3Metadata.S_IFDIR,
            S3Bucket.FOLDER_MODE);
    try {
      bucket.s3.putObject(
          r -> r.bucket(location.bucket()).key(marker).metadata(metadata), RequestBody.empty());
    } catch (SdkException e) {
      throw bucket.error(e, path.toString());
    }
  }

  /** The metadata of the object at {@code path}, or of its folder's marker (none if implied). */
  Map<String, String> read(StrataPath path) {
    if (path.isRoot()) {
      return Map.of();
    }
    HeadObjectResponse head = bucket.head(location.key(path));
    if (head != null) {
      return head.metadata();
    }
    String marker = location.folderPrefix(path);
    HeadObjectResponse folder = bucket.head(marker);
    if (folder != null) {
      return folder.metadata();
    }
    if (bucket.folderHasKeys(marker)) {
      return Map.of();
    }
    throw StrataException.notFound(path + " does not exist");
  }

  /** A new object of {@code bytes} with {@code metadata}, where no entry is. */
  void putNew(StrataPath path, Map<String, String> metadata, String bytes) {
    String key = location.key(path);
    if (path.isRoot() || bucket.exists(key) || bucket.folderHasKeys(location.folderPrefix(path))) {
      throw StrataException.alreadyExists(path + " already exists");
    }
    bucket.requireParent(location, path);
    try {
      bucket.s3.putObject(
          r -> r.bucket(location.bucket()).key(key).metadata(metadata).ifNoneMatch("*"),
          RequestBody.fromString(bytes, StandardCharsets.UTF_8));
    } catch (SdkException e) {
      throw bucket.error(e, path.toString());
    }
  }
}
