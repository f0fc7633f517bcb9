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
  void scan(byte[] prefix, BiConsumer<byte[], byte[]> visitor);

  /** Applies all the writes of {@code batch} at once. */
  void write(Batch batch);

  /** Bytes on disk (0 for a memory store). */
  long sizeOnDisk();

  @Override
  void close();

  /** Writes applied together by {@link #write}. */
  final class Batch {
    private final java.util.List<byte[][]> ops = new java.util.ArrayList<>();

    public Batch put(byte[] key, byte[] value) {
      ops.add(new byte[][] {key, value});
      return this;
    }

    public Batch delete(byte[] key) {
      ops.add(new byte[][] {key, null});
      return this;
    }

    public boolean isEmpty() {
      return ops.isEmpty();
    }

    /** Each op: key and value (value null for a delete). */
    java.util.List<byte[][]> ops() {
      return ops;
    }
  }
}
