package io.strata.core.path;

import com.google.common.base.Splitter;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.List;

/**
 * A normalized absolute path in Strata's namespace: starts with '/', no empty, "." or ".."
 * components, no trailing slash (except the root itself). Parsing resolves "." and ".." and refuses
 * a path that would climb above the root, so no request can name anything outside a mount's UFS
 * root. Immutable.
 */
public final class StrataPath implements Comparable<StrataPath> {
  public static final StrataPath ROOT = new StrataPath("/");
  public static final int MAX_LENGTH = 16384;

  private final String path;

  private StrataPath(String path) {
    this.path = path;
  }

  /** Parses and normalizes; throws INVALID_ARGUMENT naming the path if it is malformed. */
  public static StrataPath of(String raw) {
    if (raw == null || raw.isEmpty()) {
      throw StrataException.invalidArgument("empty path");
    }
    if (raw.length() > MAX_LENGTH) {
      throw new StrataException(
          StatusCode.NAME_TOO_LONG, "path longer than " + MAX_LENGTH + " characters");
    }
    if (raw.charAt(0) != '/') {
      throw StrataException.invalidArgument("path must be absolute (start with /): " + raw);
    }
    if (raw.indexOf('\0') >= 0) {
      throw StrataException.invalidArgument(
          "path contains a NUL character: " + raw.replace('\0', '?'));
    }
    List<String> parts = new ArrayList<>();
    for (String part : Splitter.on('/').split(raw)) {
      if (part.isEmpty() || part.equals(".")) {
        continue;
      }
      if (part.equals("..")) {
        if (parts.isEmpty()) {
          throw StrataException.invalidArgument("path climbs above the root: " + raw);
        }
        parts.remove(parts.size() - 1);
      } else {
        parts.add(part);
      }
    }
    return parts.isEmpty() ? ROOT : new StrataPath("/" + String.join("/", parts));
  }

  public boolean isRoot() {
    return path.length() == 1;
  }

  /** The last component; empty for the root. */
  public String name() {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  /** The parent; the root's parent is the root. */
  public StrataPath parent() {
    int slash = path.lastIndexOf('/');
    return slash <= 0 ? ROOT : new StrataPath(path.substring(0, slash));
  }

  public StrataPath child(String name) {
    if (name.isEmpty()
        || name.equals(".")
        || name.equals("..")
        || name.indexOf('/') >= 0
        || name.indexOf('\0') >= 0) {
      throw StrataException.invalidArgument("invalid file name: " + name);
    }
    return new StrataPath(isRoot() ? "/" + name : path + "/" + name);
  }

  /** Whether this path is {@code ancestor} or lies below it. */
  public boolean isUnder(StrataPath ancestor) {
    return ancestor.isRoot() || path.equals(ancestor.path) || path.startsWith(ancestor.path + "/");
  }

  /** This path relative to {@code ancestor}, without a leading slash ("" when equal). */
  public String relativeTo(StrataPath ancestor) {
    if (!isUnder(ancestor)) {
      throw new IllegalArgumentException(path + " is not under " + ancestor);
    }
    return ancestor.isRoot()
        ? path.substring(1)
        : path.substring(Math.min(path.length(), ancestor.path.length() + 1));
  }

  public int depth() {
    return isRoot() ? 0 : (int) path.chars().filter(c -> c == '/').count();
  }

  @Override
  public String toString() {
    return path;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StrataPath other && path.equals(other.path);
  }

  @Override
  public int hashCode() {
    return path.hashCode();
  }

  @Override
  public int compareTo(StrataPath o) {
    return path.compareTo(o.path);
  }
}
