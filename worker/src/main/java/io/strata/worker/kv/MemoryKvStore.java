package io.strata.worker.kv;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BiConsumer;

/** A {@link KvStore} in memory: for tests and for a worker configured without persistent state. */
public final class MemoryKvStore implements KvStore {
  private final ConcurrentSkipListMap<byte[], byte[]> map =
      new ConcurrentSkipListMap<>(Arrays::compareUnsigned);

  @Override
  public byte[] get(byte[] key) {
    return map.get(key);
  }

  @Override
  public void put(byte[] key, byte[] value) {
    map.put(key, value);
  }

  @Override
  public void delete(byte[] key) {
    map.remove(key);
  }

  @Override
  public void scan(byte[] prefix, byte[] from, int limit, BiConsumer<byte[], byte[]> visitor) {
    byte[] start = Arrays.compareUnsigned(from, prefix) > 0 ? from : prefix;
    int seen = 0;
    for (Map.Entry<byte[], byte[]> e : map.tailMap(start, true).entrySet()) {
      if (seen++ >= limit || !startsWith(e.getKey(), prefix)) {
        break;
      }
      visitor.accept(e.getKey(), e.getValue());
    }
  }

  @Override
  public synchronized void write(Batch batch) {
    for (Batch.Op op : batch.ops()) {
      if (op.rangeEnd() != null) {
        map.subMap(op.key(), true, op.rangeEnd(), false).clear();
      } else if (op.value() == null) {
        map.remove(op.key());
      } else {
        map.put(op.key(), op.value());
      }
    }
  }

  @Override
  public long sizeOnDisk() {
    return 0;
  }

  @Override
  public void close() {
    map.clear();
  }

  static boolean startsWith(byte[] key, byte[] prefix) {
    return key.length >= prefix.length
        && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
  }
}
