package io.strata.core.ufs;

/**
 * How to create a file.
 *
 * @param mode permission bits; 0 leaves them to the UFS's default (umask)
 * @param sync make the bytes durable before the file is published under its final name, so that a
 *     power loss never leaves a file there without its bytes (off only for stores that need not)
 */
public record CreateOptions(boolean overwrite, boolean createParents, int mode, boolean sync) {
  public static final CreateOptions DEFAULT = new CreateOptions(false, true, 0, true);

  public CreateOptions(boolean overwrite, boolean createParents, int mode) {
    this(overwrite, createParents, mode, true);
  }
}
