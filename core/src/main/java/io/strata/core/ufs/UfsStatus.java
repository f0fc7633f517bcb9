package io.strata.core.ufs;

/**
 * What the under-storage says of one file or directory.
 *
 * @param fingerprint identifies this version of the file's bytes (for a local file: length, mtime
 *     in ns and inode); a file rewritten or replaced gets a different fingerprint
 */
public record UfsStatus(
    String name,
    boolean directory,
    long length,
    long mtimeMs,
    int mode,
    String owner,
    String group,
    String fingerprint) {}
