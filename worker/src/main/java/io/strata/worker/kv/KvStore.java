package io.strata.worker.kv;

import java.util.function.BiConsumer;

/**
 * The small key-value interface the worker's persistent state sits on: get, put, delete, a scan by
 * prefix, and batches. Keys and values are bytes; their layouts are in {@link KeyLayout}.
 * Implementations are thread-safe; {@link RocksKvStore} persists, {@link MemoryKvStore} does not,
 * and one test suite runs against both.
 */
public interface KvStore extends AutoCloseable {
  byte[] get(byte[] key);

  void put(byte[] key, byte[] value);

  void delete(byte[] key);

  /** Calls {@code visitor} for every entry whose key starts with {@code prefix}, in key order. */
  default void scan(byte[] prefix, BiConsumer<byte[], byte[]> visitor) {
    scan(prefix, prefix, Integer.MAX_VALUE, visitor);
  }

  /**
   * Calls {@code visitor} for at most {@code limit} entries whose keys start with {@code prefix},
   * from the first key at or after {@code from}, in key order: a page of a long run of keys without
   * reading what comes before it.
   */
  void scan(byte[] prefix, byte[] from, int limit, BiConsumer<byte[], byte[]> visitor);

  /** Applies all the writes of {@code batch} at once. */
  void write(Batch batch);

  /** Bytes on disk (0 for a memory store). */
  long sizeOnDisk();

  @Override
  void close();

  /** Writes applied together by {@link #write}. */
  final class Batch {
    private final java.util.List<Op> ops = new java.util.ArrayList<>();

    public Batch put(byte[] key, byte[] value) {
      ops.add(new Op(key, value, null));
      return this;
    }

    public Batch delete(byte[] key) {
      ops.add(new Op(key, null, null));
      return this;
    }

    /**
     * Deletes every key from {@code from} (inclusive) to {@code to} (exclusive) at once, however
     * many: RocksDB writes one range tombstone.
     */
    public Batch deleteRange(byte[] from, byte[] to) {
      ops.add(new Op(from, null, to));
      return this;
    }

    public boolean isEmpty() {
      return ops.isEmpty();
    }

    java.util.List<Op> ops() {
      return ops;
    }

    /** A put (a value), a delete (none), or a range's delete (keys from key to rangeEnd). */
    static final class Op {
      private final byte[] key;
      private final byte[] value;
      private final byte[] rangeEnd;

      Op(byte[] key, byte[] value, byte[] rangeEnd) {
        this.key = key;
        this.value = value;
        this.rangeEnd = rangeEnd;
      }

      byte[] key() {
        return key;
      }

      byte[] value() {
        return value;
      }

      byte[] rangeEnd() {
        return rangeEnd;
      }
    }
  }
}
