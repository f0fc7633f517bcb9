package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MemoryPageStoreTest {
  private static ByteBuf page(int size, int fill) {
    ByteBuf b = PooledByteBufAllocator.DEFAULT.directBuffer(size);
    for (int i = 0; i < size; i++) {
      b.writeByte(fill);
    }
    return b;
  }

  @Test
  void staysWithinCapacity_andReleasesWhatItEvicts() {
    MemoryPageStore store = new MemoryPageStore(64 * 1024, new SimpleMeterRegistry());
    List<ByteBuf> offered = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ByteBuf p = page(4096, i);
      store.put(new PageId(1, 2, i), p);
      offered.add(p);
    }
    store.close();
    assertThat(store.usedBytes()).isZero();
    for (ByteBuf p : offered) {
      assertThat(p.refCnt()).as("only the test's reference is left").isEqualTo(1);
      p.release();
    }
  }

  @Test
  void usage_neverExceedsCapacity() {
    MemoryPageStore store = new MemoryPageStore(64 * 1024, new SimpleMeterRegistry());
    for (int i = 0; i < 100; i++) {
      ByteBuf p = page(4096, i);
      store.put(new PageId(1, 2, i), p);
      p.release();
      assertThat(store.usedBytes()).isLessThanOrEqualTo(64 * 1024);
    }
    assertThat(store.pageCount()).isBetween(1L, 16L);
    store.close();
  }

  @Test
  void get_givesAnIndependentReference() {
    MemoryPageStore store = new MemoryPageStore(1 << 20, new SimpleMeterRegistry());
    ByteBuf p = page(8, 7);
    PageId id = new PageId(0, 0, 0);
    store.put(id, p);
    p.release();
    ByteBuf a = store.get(id);
    ByteBuf b = store.get(id);
    a.readByte();
    assertThat(b.readerIndex()).isZero();
    assertThat(a.getByte(3)).isEqualTo((byte) 7);
    store.remove(id);
    assertThat(store.get(id)).isNull();
    assertThat(a.getByte(0)).as("a reader's reference outlives eviction").isEqualTo((byte) 7);
    a.release();
    b.release();
    assertThat(a.refCnt()).isZero();
    store.close();
  }
}
