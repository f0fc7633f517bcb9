package io.strata.s3;

import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The access keys the endpoint accepts: lines {@code ACCESS_KEY:SECRET_KEY} of a file only its
 * owner may read ({@code #} starts a comment). Made with one new pair at the first start if it does
 * not exist; read again when it changes, so that a key added or removed counts without a restart.
 */
final class S3Credentials implements SigV4.Secrets {
  private static final String KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  private static final String SECRET_CHARS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

  private final Path file;
  private volatile Map<String, String> secrets;
  private volatile FileTime readAt;

  private S3Credentials(Path file) {
    this.file = file;
  }

  /** The keys of {@code file}; one new pair written there first if it does not exist. */
  static S3Credentials load(Path file) throws IOException {
    S3Credentials c = new S3Credentials(file);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      c.create();
    }
    c.reload();
    return c;
  }

  Path file() {
    return file;
  }

  @Override
  public Optional<String> secretOf(String accessKey) {
    String secret = secrets.get(accessKey);
    if (secret == null && changed()) {
      reloadQuietly();
      secret = secrets.get(accessKey);
    }
    return Optional.ofNullable(secret);
  }

  /** The first pair of the file, which tests and the start script print. */
  Map.Entry<String, String> first() {
    return secrets.entrySet().iterator().next();
  }

  private void create() throws IOException {
    SecureRandom random = new SecureRandom();
    String line =
        "# Access keys of Strata's S3 endpoint: ACCESS_KEY:SECRET_KEY, one pair per line.\n"
            + pick(random, KEY_CHARS, 20)
            + ":"
            + pick(random, SECRET_CHARS, 40)
            + "\n";
    Files.createDirectories(file.toAbsolutePath().getParent());
    try {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (FileAlreadyExistsException e) {
      return;
    }
    Files.writeString(file, line, StandardCharsets.UTF_8);
  }

  private static String pick(SecureRandom random, String chars, int n) {
    StringBuilder out = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      out.append(chars.charAt(random.nextInt(chars.length())));
    }
    return out.toString();
  }

  private boolean changed() {
    try {
      return !Files.getLastModifiedTime(file).equals(readAt);
    } catch (IOException e) {
      return false;
    }
  }

  private void reloadQuietly() {
    try {
      reload();
    } catch (IOException | StrataException e) {
      // Keep the keys read before: a file being edited is read again at the next unknown key.
    }
  }

  private synchronized void reload() throws IOException {
    Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
    if (mode.contains(PosixFilePermission.GROUP_READ)
        || mode.contains(PosixFilePermission.OTHERS_READ)) {
      throw StrataException.invalidArgument(
          file + " holds secrets and must be readable by its owner only (chmod 600 " + file + ")");
    }
    FileTime at = Files.getLastModifiedTime(file);
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    Map<String, String> read = new LinkedHashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).trim();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || colon == line.length() - 1) {
        throw StrataException.invalidArgument(
            file + " line " + (i + 1) + " is not ACCESS_KEY:SECRET_KEY");
      }
      read.put(line.substring(0, colon), line.substring(colon + 1));
    }
    if (read.isEmpty()) {
      throw StrataException.invalidArgument(file + " holds no ACCESS_KEY:SECRET_KEY line");
    }
    secrets = Collections.unmodifiableMap(read);
    readAt = at;
  }
}
