package io.strata.worker.kv;

class MemoryKvStoreTest extends KvStoreContract {
  @Override
  KvStore open() {
    return new MemoryKvStore();
  }
}
