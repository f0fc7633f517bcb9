package io.strata.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The parts of unfinished multipart uploads, in a local folder of the endpoint's (owner-only): one
 * folder per upload, named by its random id, holding {@code upload} (bucket and key) and {@code
 * part-N} files, each written to a temporary name and renamed whole. Nothing reaches the cluster
 * until the upload completes; uploads idle past their age are removed.
 */
final class UploadStore {
  /** An upload: its id, bucket and key, and when its last part arrived. */
  record Upload(String id, String bucket, String key, String owner, Instant touched) {}

  /**
   * A stored part: its number, length, the MD5 that is its ETag, and its checksum (in the upload's
   * algorithm, else in the one the part came with; null if neither).
   */
  record Part(
      int number,
      long length,
      String etag,
      Instant written,
      ChecksumAlgorithm checksumAlgorithm,
      String checksum) {}

  /** The whole object's checksum an upload was created to have: its algorithm and type. */
  record Checksum(ChecksumAlgorithm algorithm, String type) {
    static final String COMPOSITE = "COMPOSITE";
    static final String FULL_OBJECT = "FULL_OBJECT";
  }

  static final int MAX_PART_NUMBER = 10_000;

  private static final Pattern ID = Pattern.compile("[0-9a-f]{32}");
  private static final String UPLOAD_FILE = "upload";
  private static final String METADATA_FILE = "metadata";
  private static final String CHECKSUM_FILE = "checksum";
  private static final int BUFFER = 256 << 10;

  private final Path root;
  private final SecureRandom random = new SecureRandom();

  UploadStore(Path root) throws IOException {
    this.root = root;
    Files.createDirectories(root);
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx------"));
  }

  /**
   * A new upload of {@code bucket}/{@code key} by {@code owner} (the user an access key names, ""
   * for the endpoint's own keys): only its owner sees, continues, completes or aborts it.
   */
  Upload create(String bucket, String key, String owner, ObjectMetadata metadata, Checksum checksum)
      throws IOException {
    byte[] id = new byte[16];
    random.nextBytes(id);
    String name = HexFormat.of().formatHex(id);
    Path dir = Files.createDirectory(root.resolve(name));
    Path temp = dir.resolve(UPLOAD_FILE + ".tmp");
    // Keys may hold newlines: kept encoded.
    Files.writeString(
        temp,
        AwsUri.encode(bucket, false)
            + "\n"
            + AwsUri.encode(key, true)
            + "\n"
            + AwsUri.encode(owner, true)
            + "\n",
        StandardCharsets.UTF_8);
    // The object's metadata, given when the upload began and kept when it completes.
    Files.write(dir.resolve(METADATA_FILE), metadata.encode(""));
    if (checksum != null) {
      Files.writeString(
          dir.resolve(CHECKSUM_FILE), checksum.algorithm().name() + " " + checksum.type());
    }
    Files.move(temp, dir.resolve(UPLOAD_FILE), StandardCopyOption.ATOMIC_MOVE);
    return new Upload(name, bucket, key, owner, Instant.now());
  }

  /** The upload {@code id} of {@code bucket}/{@code key} by {@code owner}, or NoSuchUpload. */
  Upload get(String id, String bucket, String key, String owner) throws IOException {
    Optional<Upload> u = read(id);
    if (u.isEmpty()
        || !u.get().bucket().equals(bucket)
        || !u.get().key().equals(key)
        || !u.get().owner().equals(owner)) {
      throw noSuchUpload();
    }
    return u.get();
  }

  /** Every upload of {@code bucket} by {@code owner}, by key, oldest first. */
  List<Upload> list(String bucket, String owner) throws IOException {
    List<Upload> uploads = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
      for (Path d : dirs) {
        read(d.getFileName().toString())
            .filter(u -> u.bucket().equals(bucket) && u.owner().equals(owner))
            .ifPresent(uploads::add);
      }
    }
    uploads.sort(Comparator.comparing(Upload::key).thenComparing(Upload::touched));
    return uploads;
  }

  /**
   * Removes every upload of {@code bucket}, whoever began it: a deleted bucket's unfinished uploads
   * go with it, as in S3, and never show up in a new bucket of that name.
   */
  void removeBucket(String bucket) throws IOException {
    List<Upload> gone = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
      for (Path d : dirs) {
        read(d.getFileName().toString())
            .filter(u -> u.bucket().equals(bucket))
            .ifPresent(gone::add);
      }
    }
    for (Upload u : gone) {
      remove(u);
    }
  }

  /** The checksum {@code upload} was created to have; null if it named none. */
  Checksum checksum(Upload upload) throws IOException {
    try {
      String kept = Files.readString(root.resolve(upload.id()).resolve(CHECKSUM_FILE)).trim();
      int space = kept.indexOf(' ');
      ChecksumAlgorithm algorithm =
          space < 0 ? null : ChecksumAlgorithm.named(kept.substring(0, space));
      return algorithm == null ? null : new Checksum(algorithm, kept.substring(space + 1));
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /**
   * Writes part {@code number} of {@code upload} from {@code in} (replacing an earlier one of that
   * number only once the new one is whole); its MD5 is its ETag, and its checksum in {@code
   * algorithm} (null: none) is kept beside it, with the algorithm's name.
   */
  Part put(Upload upload, int number, InputStream in, long maxLength, ChecksumAlgorithm algorithm)
      throws IOException {
    Path dir = root.resolve(upload.id());
    Path temp = dir.resolve("part-" + number + "." + Long.toHexString(random.nextLong()) + ".tmp");
    MessageDigest md5 = ChecksumAlgorithm.digest("MD5");
    ChecksumAlgorithm.Running sum = algorithm == null ? null : algorithm.start();
    long length = 0;
    boolean done = false;
    try (OutputStream out = Files.newOutputStream(temp)) {
      byte[] buf = new byte[BUFFER];
      int n;
      while ((n = in.read(buf)) >= 0) {
        length += n;
        if (length > maxLength) {
          throw new S3Error(
              400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size");
        }
        md5.update(buf, 0, n);
        if (sum != null) {
          sum.update(buf, 0, n);
        }
        out.write(buf, 0, n);
      }
      done = true;
    } finally {
      if (!done) {
        Files.deleteIfExists(temp);
      }
    }
    String etag = "\"" + HexFormat.of().formatHex(md5.digest()) + "\"";
    String checksum = sum == null ? null : sum.base64();
    Path part = dir.resolve("part-" + number);
    Path checksumFile = dir.resolve("part-" + number + ".checksum");
    // A part's bytes, ETag and checksum change together: two puts of one number racing here (or
    // a Complete reading the parts) never mix one's bytes with the other's ETag.
    synchronized (this) {
      try {
        Files.move(temp, part, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (NoSuchFileException e) {
        // Aborted meanwhile.
        Files.deleteIfExists(temp);
        throw noSuchUpload();
      }
      Files.writeString(dir.resolve("part-" + number + ".etag"), etag);
      if (checksum != null) {
        Files.writeString(checksumFile, algorithm.name() + " " + checksum);
      } else {
        Files.deleteIfExists(checksumFile);
      }
    }
    Files.setLastModifiedTime(
        dir.resolve(UPLOAD_FILE), java.nio.file.attribute.FileTime.from(Instant.now()));
    return new Part(number, length, etag, Instant.now(), algorithm, checksum);
  }

  /** The parts of {@code upload} by number. */
  synchronized List<Part> parts(Upload upload) throws IOException {
    List<Part> parts = new ArrayList<>();
    Path dir = root.resolve(upload.id());
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "part-*")) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        if (name.endsWith(".tmp") || name.endsWith(".etag") || name.endsWith(".checksum")) {
          continue;
        }
        int number = Integer.parseInt(name.substring("part-".length()));
        Path etag = dir.resolve(name + ".etag");
        if (!Files.exists(etag)) {
          continue;
        }
        Path checksumFile = dir.resolve(name + ".checksum");
        String[] checksum =
            Files.exists(checksumFile)
                ? Files.readString(checksumFile).trim().split(" ", 2)
                : new String[0];
        ChecksumAlgorithm algorithm =
            checksum.length == 2 ? ChecksumAlgorithm.named(checksum[0]) : null;
        parts.add(
            new Part(
                number,
                Files.size(f),
                Files.readString(etag).trim(),
                Files.getLastModifiedTime(f).toInstant(),
                algorithm,
                algorithm == null ? null : checksum[1]));
      }
    } catch (NoSuchFileException e) {
      throw noSuchUpload();
    }
    parts.sort(Comparator.comparingInt(Part::number));
    return parts;
  }

  /** The metadata {@code upload} began with (none for an upload made before it was kept). */
  ObjectMetadata metadata(Upload upload) throws IOException {
    try {
      return ObjectMetadata.decode(
          Optional.of(Files.readAllBytes(root.resolve(upload.id()).resolve(METADATA_FILE))), "");
    } catch (NoSuchFileException e) {
      return ObjectMetadata.NONE;
    }
  }

  InputStream open(Upload upload, int number) throws IOException {
    return Files.newInputStream(root.resolve(upload.id()).resolve("part-" + number));
  }

  /** Removes {@code upload} and its parts. */
  void remove(Upload upload) throws IOException {
    removeFolder(root.resolve(upload.id()));
  }

  /** Removes uploads idle for longer than {@code maxAge}; returns how many. */
  int expire(Duration maxAge) throws IOException {
    int removed = 0;
    Instant before = Instant.now().minus(maxAge);
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
      for (Path d : dirs) {
        Optional<Upload> u = read(d.getFileName().toString());
        if (u.isEmpty() || u.get().touched().isBefore(before)) {
          removeFolder(d);
          removed++;
        }
      }
    }
    return removed;
  }

  private Optional<Upload> read(String id) throws IOException {
    if (!ID.matcher(id).matches()) {
      return Optional.empty();
    }
    Path file = root.resolve(id).resolve(UPLOAD_FILE);
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      if (lines.size() < 2) {
        return Optional.empty();
      }
      return Optional.of(
          new Upload(
              id,
              AwsUri.decode(lines.get(0)),
              AwsUri.decode(lines.get(1)),
              lines.size() > 2 ? AwsUri.decode(lines.get(2)) : "",
              Files.getLastModifiedTime(file).toInstant()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  private static void removeFolder(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(f);
      }
    }
  }

  static S3Error noSuchUpload() {
    return new S3Error(
        404,
        "NoSuchUpload",
        "The specified multipart upload does not exist. The upload ID may be invalid, or the upload"
            + " may have been aborted or completed.");
  }
}
