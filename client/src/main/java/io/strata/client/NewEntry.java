package io.strata.client;

import io.strata.core.proto.CreateNodeRequest;

/**
 * What a POSIX creator gives a new folder, file or node: its permission bits (setuid, setgid and
 * sticky included) and its numeric owner and group; -1 leaves each to the under-storage's default
 * (and stores without numeric owners ignore them).
 */
public record NewEntry(int mode, long uid, long gid) {
  public static final NewEntry DEFAULT = new NewEntry(-1, -1, -1);

  CreateNodeRequest.Builder applyTo(CreateNodeRequest.Builder b) {
    if (uid >= 0) {
      b.setUid((int) uid);
    }
    if (gid >= 0) {
      b.setGid((int) gid);
    }
    return b;
  }
}
