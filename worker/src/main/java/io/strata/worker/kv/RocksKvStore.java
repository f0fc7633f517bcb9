package io.strata.worker.kv;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.OwnerOnly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.TtlDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A {@link KvStore} in RocksDB. Writes go to the WAL without fsync: a process that dies keeps them
 * (the OS has them), and what a machine crash loses is only cache. With a TTL, RocksDB's TTL
 * database drops entries older than it during compaction.
 */
public final class RocksKvStore implements KvStore {
  static {
    RocksDB.loadLibrary();
  }

  private final Path dir;
  private final Options options;
  private final LRUCache blockCache;
  private final RocksDB db;
  private final WriteOptions writeOptions = new WriteOptions().setSync(false);

  private RocksKvStore(Path dir, long blockCacheBytes, int ttlSeconds) {
    this.dir = dir;
    this.blockCache = new LRUCache(blockCacheBytes);
    this.options =
        new Options()
            .setCreateIfMissing(true)
            .setMaxOpenFiles(256)
            .setKeepLogFileNum(2)
            .setTableFormatConfig(
                new BlockBasedTableConfig()
                    .setBlockCache(blockCache)
                    .setFilterPolicy(new org.rocksdb.BloomFilter(10, false)));
    try {
      OwnerOnly.folder(dir);
      this.db =
          ttlSeconds > 0
              ? TtlDB.open(options, dir.toString(), ttlSeconds, false)
              : RocksDB.open(options, dir.toString());
    } catch (RocksDBException | java.io.IOException e) {
      options.close();
      blockCache.close();
      String why =
          e.getMessage() != null && e.getMessage().contains("lock")
              ? " (is another worker using this folder?)"
              : "";
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "cannot open the store in " + dir + ": " + e.getMessage() + why,
          e);
    }
  }

  /** A store without expiry. */
  public static RocksKvStore open(Path dir, long blockCacheBytes) {
    return new RocksKvStore(dir, blockCacheBytes, 0);
  }

  /** A store whose entries RocksDB drops once older than {@code ttlSeconds}. */
  public static RocksKvStore openWithTtl(Path dir, long blockCacheBytes, int ttlSeconds) {
    return new RocksKvStore(dir, blockCacheBytes, Math.max(1, ttlSeconds));
  }

  @Override
  public byte[] get(byte[] key) {
    try {
      return db.get(key);
    } catch (RocksDBException e) {
      throw failure("read", e);
    }
  }

  @Override
  public void put(byte[] key, byte[] value) {
    try {
      db.put(writeOptions, key, value);
    } catch (RocksDBException e) {
      throw failure("write", e);
    }
  }

  @Override
  public void delete(byte[] key) {
    try {
      db.delete(writeOptions, key);
    } catch (RocksDBException e) {
      throw failure("write", e);
    }
  }

  @Override
  public void scan(byte[] prefix, byte[] from, int limit, BiConsumer<byte[], byte[]> visitor) {
    byte[] start = java.util.Arrays.compareUnsigned(from, prefix) > 0 ? from : prefix;
    try (ReadOptions ro = new ReadOptions().setFillCache(false);
        RocksIterator it = db.newIterator(ro)) {
      int seen = 0;
      for (it.seek(start);
          seen < limit && it.isValid() && MemoryKvStore.startsWith(it.key(), prefix);
          it.next(), seen++) {
        visitor.accept(it.key(), it.value());
      }
    }
  }

  @Override
  public void write(Batch batch) {
    try (WriteBatch wb = new WriteBatch()) {
      for (KvStore.Batch.Op op : batch.ops()) {
        if (op.rangeEnd() != null) {
          wb.deleteRange(op.key(), op.rangeEnd());
        } else if (op.value() == null) {
          wb.delete(op.key());
        } else {
          wb.put(op.key(), op.value());
        }
      }
      db.write(writeOptions, wb);
    } catch (RocksDBException e) {
      throw failure("write", e);
    }
  }

  @Override
  public long sizeOnDisk() {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    } catch (java.io.IOException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    db.close();
    writeOptions.close();
    options.close();
    blockCache.close();
  }

  private StrataException failure(String what, RocksDBException e) {
    return StrataException.internal(
        "cannot " + what + " the store in " + dir + ": " + e.getMessage(), e);
  }
}
