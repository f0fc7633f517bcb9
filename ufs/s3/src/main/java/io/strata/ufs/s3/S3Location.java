package io.strata.ufs.s3;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StrataException;

/**
 * Where an S3 mount points: a bucket and a key prefix ({@code s3://bucket/prefix}), and how a path
 * under the mount becomes a key.
 *
 * @param prefix empty, or ending with "/"
 */
record S3Location(String bucket, String prefix) {
  static S3Location parse(String uri) {
    if (!uri.startsWith("s3://")) {
      throw StrataException.invalidArgument(
          "not an S3 URI: '" + uri + "' (expected s3://bucket/prefix)");
    }
    String rest = uri.substring("s3://".length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    if (!bucket.matches("[A-Za-z0-9][A-Za-z0-9._\\-]{0,254}")) {
      throw StrataException.invalidArgument(
          "malformed S3 URI '" + uri + "': '" + bucket + "' is not a bucket name");
    }
    if (prefix.contains("//") || prefix.startsWith("/")) {
      throw StrataException.invalidArgument(
          "malformed S3 URI '" + uri + "': empty folder name in the prefix");
    }
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      prefix = prefix + "/";
    }
    return new S3Location(bucket, prefix);
  }

  String uri() {
    return prefix.isEmpty()
        ? "s3://" + bucket
        : "s3://" + bucket + "/" + prefix.substring(0, prefix.length() - 1);
  }

  /** The key of a file at {@code path} (relative to the mount). */
  String key(StrataPath path) {
    return prefix + path.toString().substring(1);
  }

  /** The prefix of every key under the folder at {@code path}: "" or ending with "/". */
  String folderPrefix(StrataPath path) {
    return path.isRoot() ? prefix : key(path) + "/";
  }

  /** The name of a listed key or common prefix under {@code folderPrefix}, without a final "/". */
  static String childName(String folderPrefix, String keyOrPrefix) {
    String name = keyOrPrefix.substring(folderPrefix.length());
    return name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
  }

  /**
   * Whether {@code relative} (a listed key below a folder's prefix) names a path under that folder:
   * no empty, "." or ".." component, no NUL. A bucket may hold any key ("a//b", "a/../b"): such an
   * object has no Strata path, and mapped onto one it would show as another file, or outside its
   * mount.
   */
  static boolean namesAPath(String relative) {
    if (relative.isEmpty() || relative.indexOf('\0') >= 0) {
      return false;
    }
    for (String part : relative.split("/", -1)) {
      if (part.isEmpty() || part.equals(".") || part.equals("..")) {
        return false;
      }
    }
    return true;
  }
}
