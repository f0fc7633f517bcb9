package io.strata.worker.ufs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PageBuffersTest {
  private static final int PAGE = 64 << 10;

  @Test
  void aReleasedPage_isHandedOutAgain_emptyAndWhole() {
    PageBuffers buffers =
        new PageBuffers(UnpooledByteBufAllocator.DEFAULT, PAGE, 0, () -> 4L * PAGE);
    ByteBuf first = buffers.directBuffer(PAGE, PAGE);
    long address = first.memoryAddress();
    assertThat(address % 4096).as("page-aligned").isZero();
    first.writeZero(PAGE);
    first.release();

    ByteBuf again = buffers.directBuffer(PAGE, PAGE);
    try {
      assertThat(again.memoryAddress()).isEqualTo(address);
      assertThat(again.readableBytes()).isZero();
      assertThat(again.capacity()).isEqualTo(PAGE);
      assertThat(again.maxCapacity()).isEqualTo(PAGE);
      assertThat(again.isDirect()).isTrue();
      assertThat(buffers.kept()).isZero();
    } finally {
      again.release();
    }
  }

  @Test
  void otherSizes_comeFromTheFallback_andAreNotKept() {
    PageBuffers buffers =
        new PageBuffers(UnpooledByteBufAllocator.DEFAULT, PAGE, 0, () -> 4L * PAGE);
    ByteBuf tail = buffers.directBuffer(PAGE / 2, PAGE / 2);
    assertThat(tail.alloc()).isSameAs(UnpooledByteBufAllocator.DEFAULT);
    tail.release();
    assertThat(buffers.kept()).isZero();
  }

  @Test
  void pagesReleasedBeyondTheBound_areDropped() {
    PageBuffers buffers =
        new PageBuffers(UnpooledByteBufAllocator.DEFAULT, PAGE, 0, () -> 2L * PAGE);
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      held.add(buffers.directBuffer(PAGE, PAGE));
    }
    held.forEach(ByteBuf::release);
    assertThat(buffers.kept()).isEqualTo(2);
  }

  @Test
  void theBound_isAskedAtEachRelease() {
    AtomicLong bound = new AtomicLong(PAGE);
    PageBuffers buffers = new PageBuffers(UnpooledByteBufAllocator.DEFAULT, PAGE, 0, bound::get);
    List<ByteBuf> held = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      held.add(buffers.directBuffer(PAGE, PAGE));
    }
    held.remove(0).release();
    held.remove(0).release();
    assertThat(buffers.kept()).as("one page's bound").isEqualTo(1);

    bound.set(3L * PAGE);
    held.forEach(ByteBuf::release);
    assertThat(buffers.kept()).as("room grew (the memory tier emptied)").isEqualTo(3);

    for (int i = 0; i < 3; i++) {
      buffers.directBuffer(PAGE, PAGE).release();
    }
    assertThat(buffers.kept()).isEqualTo(3);
  }
}
