package io.strata.core.ufs;

import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;

/**
 * The extended attributes Strata keeps: those of the user namespace, with Linux's bounds on names
 * and values. Other namespaces (security, system, trusted) belong to the host that mounts, not to
 * the data.
 */
public final class Xattrs {
  public static final String USER = "user.";

  /** Linux's XATTR_NAME_MAX: a name, its namespace included. */
  public static final int MAX_NAME_BYTES = 255;

  /** Linux's XATTR_SIZE_MAX. */
  public static final int MAX_VALUE_BYTES = 64 << 10;

  private Xattrs() {}

  /** Whether Strata keeps attribute {@code name}. */
  public static boolean kept(String name) {
    return name.startsWith(USER) && name.length() > USER.length();
  }

  /** Refuses (INVALID_ARGUMENT) a name or value length Strata does not keep. */
  public static void check(String name, int valueBytes) {
    if (!kept(name)) {
      throw StrataException.invalidArgument(
          "only attributes of the user namespace (user.NAME) are kept: " + name);
    }
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
      throw StrataException.invalidArgument(
          "an attribute name is at most " + MAX_NAME_BYTES + " bytes");
    }
    if (valueBytes > MAX_VALUE_BYTES) {
      throw StrataException.invalidArgument(
          "an attribute value is at most " + MAX_VALUE_BYTES + " bytes: " + name);
    }
  }
}
