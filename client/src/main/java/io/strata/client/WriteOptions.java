package io.strata.client;

import io.strata.core.conf.UserKeys.WriteType;

/**
 * How to create a file.
 *
 * @param writeType null uses strata.user.write.type
 * @param mode permission bits, 0 for the UFS default
 */
public record WriteOptions(boolean overwrite, WriteType writeType, int mode) {
  public static final WriteOptions DEFAULT = new WriteOptions(false, null, 0);

  public static WriteOptions overwriting() {
    return new WriteOptions(true, null, 0);
  }
}
