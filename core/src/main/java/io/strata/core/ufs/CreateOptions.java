package io.strata.core.ufs;

/**
 * How to create a file.
 *
 * @param mode permission bits; 0 leaves them to the UFS's default (umask)
 */
public record CreateOptions(boolean overwrite, boolean createParents, int mode) {
  public static final CreateOptions DEFAULT = new CreateOptions(false, true, 0);
}
