package io.strata.worker.auth;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.security.Principal;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.Locale;

/** The one-line refusals of {@link Permissions}: who, what, where, and the bits that decided. */
final class Denials {
  private Denials() {}

  /** A refusal for a path that leads where the store would not go. */
  static StrataException path(Principal caller, String op, StrataPath target, String why) {
    return new StrataException(
        StatusCode.PERMISSION_DENIED,
        "permission denied: " + op + " " + target + ": " + caller.user() + "'s path " + why);
  }

  /** A refusal decided by {@code st}, the entry at {@code path} on the way to {@code target}. */
  static StrataException entry(
      Principal caller, String op, StrataPath target, StrataPath path, FileStatus st, String why) {
    return new StrataException(
        StatusCode.PERMISSION_DENIED,
        String.format(
            Locale.ROOT,
            "permission denied: %s %s: %s %s%s (owner %s, group %s, mode %04o)",
            op,
            target,
            caller.user(),
            why,
            path.equals(target) ? "" : " on " + path,
            st.getOwner(),
            st.getGroup(),
            st.getMode() & 07777));
  }

  /** What only a superuser may do. */
  static StrataException superuserOnly(Principal caller, String what) {
    return new StrataException(
        StatusCode.PERMISSION_DENIED,
        "permission denied: " + caller.user() + " may not " + what + " (superuser only)");
  }

  /** "rwx" for the bits of {@code access}. */
  static String bits(int access) {
    return ((access & Permissions.READ) != 0 ? "r" : "")
        + ((access & Permissions.WRITE) != 0 ? "w" : "")
        + ((access & Permissions.SEARCH) != 0 ? "x" : "");
  }
}
