package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MemTierTest {
  static Stream<BiFunction<Long, Consumer<PageId>, MemTier>> tiers() {
    return Stream.of(ClockMemTier::new, TinyLfuMemTier::new);
  }

  static ByteBuf page(int size, int fill) {
    // At once: paranoid leak detection records a stack trace per buffer operation.
    byte[] bytes = new byte[size];
    java.util.Arrays.fill(bytes, (byte) fill);
    return PooledByteBufAllocator.DEFAULT.directBuffer(size).writeBytes(bytes);
  }

  @ParameterizedTest
  @MethodSource("tiers")
  void staysWithinCapacity_releasesWhatItEvicts_andSaysSo(
      BiFunction<Long, Consumer<PageId>, MemTier> make) {
    List<PageId> evicted = new ArrayList<>();
    MemTier tier = make.apply(64L * 1024, evicted::add);
    List<ByteBuf> offered = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ByteBuf p = page(4096, i);
      tier.put(new PageId(1, 2, i), p);
      offered.add(p);
      assertThat(tier.used()).isLessThanOrEqualTo(64 * 1024);
    }
    assertThat(evicted).isNotEmpty();
    tier.setCapacity(8 * 1024);
    assertThat(tier.used()).isLessThanOrEqualTo(8 * 1024);
    tier.close();
    assertThat(tier.used()).isZero();
    for (ByteBuf p : offered) {
      assertThat(p.refCnt()).as("only the test's reference is left").isEqualTo(1);
      p.release();
    }
  }

  @ParameterizedTest
  @MethodSource("tiers")
  void replace_swapsTheBuffer_releasingTheOldOne_andKeepsTheCount(
      BiFunction<Long, Consumer<PageId>, MemTier> make) {
    List<PageId> evicted = new ArrayList<>();
    MemTier tier = make.apply(1L << 20, evicted::add);
    PageId id = new PageId(3, 4, 0);
    ByteBuf first = page(4096, 1);
    ByteBuf second = page(4096, 1);
    tier.put(id, first);
    assertThat(tier.replace(id, second)).isTrue();
    assertThat(tier.replace(new PageId(3, 4, 1), second)).isFalse();
    assertThat(first.refCnt()).as("the tier let go of the old buffer").isEqualTo(1);
    assertThat(second.refCnt()).isEqualTo(2);
    ByteBuf got = tier.get(id);
    assertThat(got.getByte(0)).isEqualTo((byte) 1);
    got.setByte(0, 9);
    assertThat(second.getByte(0))
        .as("the tier hands out the new buffer's bytes")
        .isEqualTo((byte) 9);
    got.release();
    assertThat(tier.used()).isEqualTo(4096);
    assertThat(tier.pages()).isEqualTo(1);
    assertThat(evicted).as("a replacement is no eviction").isEmpty();
    tier.close();
    assertThat(second.refCnt()).isEqualTo(1);
    first.release();
    second.release();
  }

  @ParameterizedTest
  @MethodSource("tiers")
  void get_givesAnIndependentReference_thatOutlivesEviction(
      BiFunction<Long, Consumer<PageId>, MemTier> make) {
    MemTier tier = make.apply(1L << 20, id -> {});
    ByteBuf p = page(8, 7);
    PageId id = new PageId(0, 0, 0);
    tier.put(id, p);
    p.release();
    ByteBuf a = tier.get(id);
    ByteBuf b = tier.get(id);
    a.readByte();
    assertThat(b.readerIndex()).isZero();
    tier.remove(id);
    assertThat(tier.get(id)).isNull();
    assertThat(a.getByte(3)).isEqualTo((byte) 7);
    a.release();
    b.release();
    assertThat(a.refCnt()).isZero();
    tier.close();
  }

  @Test
  void clock_givesARecentlyReadPageASecondChance() {
    List<PageId> evicted = new ArrayList<>();
    ClockMemTier tier = new ClockMemTier(3 * 4096, evicted::add);
    for (int i = 0; i < 3; i++) {
      ByteBuf p = page(4096, i);
      tier.put(new PageId(0, 0, i), p);
      p.release();
    }
    // A full sweep clears every bit; then reading page 0 marks it again, so page 1 goes first.
    ByteBuf spill = page(4096, 9);
    tier.put(new PageId(0, 0, 3), spill);
    spill.release();
    evicted.clear();
    tier.get(new PageId(0, 0, 1)).release();
    ByteBuf more = page(4096, 8);
    tier.put(new PageId(0, 0, 4), more);
    more.release();
    assertThat(evicted).doesNotContain(new PageId(0, 0, 1)).hasSize(1);
    tier.close();
  }
}
