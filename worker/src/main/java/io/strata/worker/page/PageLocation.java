package io.strata.worker.page;

/**
 * Where a page's bytes sit on an SSD tier: a record in a segment file. {@code offset} is the
 * position of the page data (after its record header); {@code crc} is its crc32c.
 */
public record PageLocation(long segment, long offset, int length, int crc) {}
