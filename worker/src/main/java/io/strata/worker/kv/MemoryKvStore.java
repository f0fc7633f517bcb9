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
  public void scan(byte[] prefix, BiConsumer<byte[], byte[]> visitor) {
    for (Map.Entry<byte[], byte[]> e : map.tailMap(prefix, true).entrySet()) {
      if (!startsWith(e.getKey(), prefix)) {
        break;
      }
      visitor.accept(e.getKey(), e.getValue());
    }
  }

  @Override
  public synchronized void write(Batch batch) {
    for (byte[][] op : batch.ops()) {
      if (op[1] == null) {
        map.remove(op[0]);
      } else {
        map.put(op[0], op[1]);
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
