package io.strata.ufs.s3;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileType;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.CreateOptions;
import io.strata.core.ufs.UfsOutputStream;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UfsStatus;
import io.strata.core.ufs.UnderFileSystem;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * A bucket, or a prefix of one, as an under-storage, through the AWS SDK for Java v2. Folders are
 * key prefixes ending in "/" (listed with a delimiter; an empty "folder/" object marks an empty
 * one). Files are objects, fingerprinted by ETag, length and last-modified second; pages are read
 * with ranged GETs that name the ETag. New objects appear whole on close (one PUT, or a multipart
 * upload completed then). Renames copy then delete, key by key: not atomic. Modes, numeric owners,
 * times and symbolic links live in object metadata as s3fs-fuse and rclone keep them ({@link
 * S3Metadata}); an object without them shows 0644 (a folder 0755), owned by whoever runs the
 * reader.
 */
public final class S3UnderFileSystem implements UnderFileSystem {
  private static final Logger LOG = LoggerFactory.getLogger(S3UnderFileSystem.class);

  /** {@link UfsOutputStream#token} of a write: its key, whose unfinished uploads to abort. */
  static final String UPLOAD_TOKEN = "s3-upload:";

  private final S3Location location;
  private final S3Settings settings;
  private final SdkHttpClient http;
  private final AwsCredentialsProvider credentials;
  private final S3Client s3;
  private final S3ObjectGets gets;
  private final S3Bucket bucket;
  private final String label;
  private final S3MetadataWrites metadata;
  private final S3Listings listings;

  public S3UnderFileSystem(String uri, S3Settings settings) {
    this.location = S3Location.parse(uri);
    this.settings = settings;
    this.http = S3Clients.http(settings).build();
    this.credentials = S3Clients.credentials(settings);
    this.s3 = S3Clients.build(settings, http, credentials);
    this.gets = new S3ObjectGets(s3, settings, credentials, location.bucket());
    this.label = location.uri() + (settings.endpoint() == null ? "" : " at " + settings.endpoint());
    this.bucket = new S3Bucket(s3, location.bucket(), label, settings.partSize() * 64);
    this.metadata = new S3MetadataWrites(location, bucket);
    this.listings = new S3Listings(s3, location, bucket);
  }

  /** The canonical form of an S3 URI: {@code s3://bucket} or {@code s3://bucket/prefix}. */
  public static String normalize(String uri) {
    return S3Location.parse(uri).uri();
  }

  @Override
  public String uri() {
    return location.uri();
  }

  /**
   * Of the root: a listing of one key under the prefix, so that a missing bucket, wrong credentials
   * or region, or an unreachable store fail here, at mount time.
   */
  @Override
  public UfsStatus getStatus(StrataPath path) {
    if (path.isRoot()) {
      bucket.folderHasKeys(location.prefix());
      return S3Bucket.folder("");
    }
    String key = location.key(path);
    HeadObjectResponse head = bucket.head(key);
    if (head != null) {
      return bucket.status(path.name(), key, head, false);
    }
    String marker = location.folderPrefix(path);
    HeadObjectResponse folder = bucket.head(marker);
    if (folder != null) {
      return bucket.status(path.name(), marker, folder, true);
    }
    if (bucket.folderHasKeys(marker)) {
      return S3Bucket.folder(path.name());
    }
    throw StrataException.notFound(path + " does not exist");
  }

  @Override
  public Stream<UfsStatus> list(StrataPath path) {
    return listings.folder(path);
  }

  /** ListObjectsV2 leaves out the metadata that keeps mode, owner, times and type (S3Metadata). */
  @Override
  public boolean listsAttributes() {
    return false;
  }

  @Override
  public List<UfsStatus> listFiles(StrataPath dir, String startAfter, int limit) {
    return listings.tree(dir, startAfter, limit);
  }

  @Override
  public UfsReader openReader(StrataPath path) {
    String key = location.key(path);
    HeadObjectResponse head = bucket.head(key);
    if (head == null) {
      if (!path.isRoot() && !bucket.folderHasKeys(location.folderPrefix(path))) {
        throw StrataException.notFound(path + " does not exist");
      }
      throw new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory");
    }
    UfsStatus version =
        S3Bucket.file(path.name(), head.eTag(), head.contentLength(), head.lastModified());
    return new S3Reader(s3, gets, location.bucket(), key, version, head.eTag(), label);
  }

  /**
   * No HEAD: the fingerprint names the ETag every ranged GET asks for, and the length. A forged
   * fingerprint only ever reads (and caches) pages under itself, never under the real one's.
   */
  @Override
  public UfsReader openVersion(StrataPath path, String fingerprint) {
    String[] parts = fingerprint.split(":", -1);
    if (parts.length != 4 || !parts[0].equals("s3")) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION, path + " has no S3 version '" + fingerprint + "'");
    }
    long length;
    long second;
    try {
      length = Long.parseLong(parts[2]);
      second = Long.parseLong(parts[3]);
    } catch (NumberFormatException e) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION, path + " has no S3 version '" + fingerprint + "'");
    }
    String etag = "\"" + parts[1] + "\"";
    UfsStatus version = S3Bucket.file(path.name(), etag, length, Instant.ofEpochSecond(second));
    return new S3Reader(s3, gets, location.bucket(), location.key(path), version, etag, label);
  }

  @Override
  public UfsOutputStream create(StrataPath path, CreateOptions options) {
    if (path.isRoot() || bucket.folderHasKeys(location.folderPrefix(path))) {
      throw new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory");
    }
    String key = location.key(path);
    if (!options.overwrite() && bucket.exists(key)) {
      throw StrataException.alreadyExists(path + " already exists");
    }
    if (!options.createParents()) {
      bucket.requireParent(location, path);
    }
    Map<String, String> metadata =
        S3Metadata.ofNew(
            S3Metadata.S_IFREG,
            options.mode(),
            options.uid(),
            options.gid(),
            S3Bucket.FILE_MODE,
            options.createdAtMs() < 0 ? -1 : options.createdAtMs() * 1_000_000);
    if (options.overwrite()) {
      // A file written anew keeps the attributes it has now, as a truncate and write would.
      metadata = S3Xattrs.carriedOver(bucket.head(key), metadata);
    }
    return new S3OutputStream(
        bucket, key, options.overwrite(), (int) settings.partSize(), metadata);
  }

  @Override
  public void mkdirs(StrataPath path, boolean parents) {
    if (path.isRoot() || bucket.folderHasKeys(location.folderPrefix(path))) {
      throw StrataException.alreadyExists(path + " already exists");
    }
    if (bucket.exists(location.key(path))) {
      throw StrataException.alreadyExists(path + " already exists as a file");
    }
    if (!parents) {
      bucket.requireParent(location, path);
    }
    try {
      s3.putObject(
          r ->
              r.bucket(location.bucket())
                  .key(location.folderPrefix(path))
                  .metadata(S3Metadata.ofFolder()),
          RequestBody.empty());
    } catch (SdkException e) {
      throw bucket.error(e, path.toString());
    }
  }

  @Override
  public void delete(StrataPath path, boolean recursive) {
    if (path.isRoot()) {
      throw StrataException.invalidArgument("the root of a mount cannot be deleted");
    }
    String key = location.key(path);
    try {
      if (bucket.exists(key)) {
        s3.deleteObject(r -> r.bucket(location.bucket()).key(key));
        return;
      }
      String folder = location.folderPrefix(path);
      List<String> keys =
          S3Bucket.keys(bucket.objectsUnder(folder, recursive ? Long.MAX_VALUE : 2));
      if (keys.isEmpty()) {
        throw StrataException.notFound(path + " does not exist");
      }
      if (!recursive && (keys.size() > 1 || !keys.get(0).equals(folder))) {
        throw new StrataException(
            StatusCode.DIRECTORY_NOT_EMPTY, path + " is not empty (delete it recursively)");
      }
      bucket.deleteKeys(keys);
    } catch (SdkException e) {
      throw bucket.error(e, path.toString());
    }
  }

  /**
   * A new mode in the object's metadata ({@link S3Metadata}); owners by name are refused: S3 keeps
   * numeric owners only, as s3fs does ({@link #setOwnerIds}).
   */
  @Override
  public void setAttributes(StrataPath path, int mode, String owner, String group) {
    if (!owner.isEmpty() || !group.isEmpty()) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "cannot give "
              + path
              + " an owner by name: S3 ("
              + label
              + ") keeps numeric owners only (x-amz-meta-uid, -gid)");
    }
    if (mode < 0) {
      getStatus(path);
      return;
    }
    metadata.change(path, (old, type, perm) -> S3Metadata.withMode(old, type, mode));
  }

  @Override
  public boolean keepsNumericOwners() {
    return true;
  }

  @Override
  public void setOwnerIds(StrataPath path, long uid, long gid) {
    metadata.change(path, (old, type, perm) -> S3Metadata.withOwner(old, type, perm, uid, gid));
  }

  @Override
  public void setModificationTime(StrataPath path, long epochMs) {
    setTimes(path, TIME_OMIT, epochMs * 1_000_000);
  }

  /** The times in the object's metadata; S3's own Last-Modified is the time of that change. */
  @Override
  public Map<String, byte[]> xattrs(StrataPath path) {
    return S3Xattrs.of(metadata.read(path));
  }

  @Override
  public void setXattr(StrataPath path, String name, byte[] value) {
    metadata.change(path, (old, type, perm) -> S3Xattrs.with(old, name, value));
  }

  @Override
  public void setTimes(StrataPath path, long atimeNs, long mtimeNs) {
    metadata.change(path, (old, type, perm) -> S3Metadata.withTimes(old, atimeNs, mtimeNs));
  }

  /**
   * As s3fs keeps them: an empty object whose mode has the type bits of a FIFO, socket or device
   * (and x-amz-meta-rdev a device's number). Never replaces an entry.
   */
  @Override
  public void createSpecial(StrataPath path, FileType type, int mode, long rdev) {
    int bits =
        switch (type) {
          case FIFO -> 0010000;
          case SOCKET -> 0140000;
          case CHAR_DEVICE -> 0020000;
          case BLOCK_DEVICE -> 0060000;
          default -> throw StrataException.invalidArgument(type + " is not a special file type");
        };
    metadata.putNew(path, S3Metadata.ofNode(bits, mode, rdev), "");
  }

  /**
   * As s3fs keeps one: an object whose bytes are the target, whose mode says it is a link. Never
   * replaces an entry.
   */
  @Override
  public void createSymlink(StrataPath path, String target) {
    metadata.putNew(path, S3Metadata.ofNode(S3Metadata.S_IFLNK, 0777, 0), target);
  }

  /** Copies, then deletes the source: not atomic, and a folder goes key by key. */
  @Override
  public void rename(StrataPath src, StrataPath dst) {
    if (src.isRoot() || dst.isRoot()) {
      throw StrataException.invalidArgument("the root of a mount cannot be renamed");
    }
    if (dst.isUnder(src)) {
      throw StrataException.invalidArgument("cannot move " + src + " into itself (" + dst + ")");
    }
    String dstKey = location.key(dst);
    if (bucket.exists(dstKey) || bucket.folderHasKeys(location.folderPrefix(dst))) {
      throw StrataException.alreadyExists(dst + " already exists");
    }
    bucket.requireParent(location, dst);
    try {
      String srcKey = location.key(src);
      HeadObjectResponse head = bucket.head(srcKey);
      if (head != null) {
        bucket.copy(srcKey, dstKey, head.contentLength());
        s3.deleteObject(r -> r.bucket(location.bucket()).key(srcKey));
        return;
      }
      String from = location.folderPrefix(src);
      String to = location.folderPrefix(dst);
      List<S3Object> objects = bucket.objectsUnder(from, Long.MAX_VALUE);
      if (objects.isEmpty()) {
        throw StrataException.notFound(src + " does not exist");
      }
      for (S3Object o : objects) {
        bucket.copy(o.key(), to + o.key().substring(from.length()), o.size());
      }
      bucket.deleteKeys(S3Bucket.keys(objects));
    } catch (SdkException e) {
      throw bucket.error(e, src.toString());
    }
  }

  /** Aborts the unfinished multipart uploads of the token's key (its writer died). */
  @Override
  public void discard(String token) {
    if (!token.startsWith(UPLOAD_TOKEN)) {
      return;
    }
    String key = token.substring(UPLOAD_TOKEN.length());
    try {
      bucket.abortUploadsOf(key);
    } catch (SdkException e) {
      LOG.warn("cannot abort the unfinished uploads of {} in {}: {}", key, label, e.toString());
    }
  }

  @Override
  public void close() {
    gets.close();
    s3.close();
    http.close();
    if (credentials instanceof SdkAutoCloseable c) {
      c.close();
    }
  }
}
