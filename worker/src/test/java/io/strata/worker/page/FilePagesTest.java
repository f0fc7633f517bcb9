package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.worker.TestFiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class FilePagesTest {
  private static final int PAGE = 4096;

  private final PageStore store = TestFiles.pageStore(1 << 20, new SimpleMeterRegistry());
  private final FilePages files = new FilePages(store, PAGE);

  @AfterEach
  void tearDown() {
    store.close();
  }

  private void cache(PageId.FileKey key, long index, int length) {
    ByteBuf page = Unpooled.directBuffer(length).writeZero(length);
    try {
      assertThat(store.admit(key.page(index), page, true)).isTrue();
    } finally {
      page.release();
    }
  }

  @Test
  void aVersionsCachedBytes_countItsShortLastPage_andFreeDropsOnlyThatVersion() {
    long length = 2L * PAGE + 100;
    PageId.FileKey v1 = files.key("file:///d/a", "v1");
    PageId.FileKey v2 = files.key("file:///d/a", "v2");
    cache(v1, 0, PAGE);
    cache(v1, 2, 100);
    cache(v2, 0, PAGE);

    assertThat(files.cachedBytes(v1, length)).isEqualTo(PAGE + 100);
    assertThat(files.free(v1, length)).isEqualTo(PAGE + 100);
    assertThat(files.cachedBytes(v1, length)).isZero();
    assertThat(files.cachedBytes(v2, length)).as("another version stays").isEqualTo(PAGE);
    assertThat(files.free(v1, length)).as("nothing left to drop").isZero();
  }

  /**
   * Issue 78: a sparse file of 8 EiB (a real one costs nothing on ext4) once made free, pin and TTL
   * walk 2^51 page indexes; they now walk what the store holds of it.
   */
  @Test
  @Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aVersionOfEightExbibytes_isCountedAndFreedByWhatTheStoreHolds() {
    long length = Long.MAX_VALUE;
    long last = length / PAGE;
    PageId.FileKey huge = files.key("file:///d/sparse", "v1");
    PageId.FileKey other = files.key("file:///d/other", "v1");
    cache(huge, 0, PAGE);
    cache(huge, last, (int) (length % PAGE));
    cache(huge, last + 1, PAGE);
    cache(other, 0, PAGE);

    long held = PAGE + length % PAGE;
    assertThat(files.cachedBytes(huge, length)).as("the pages of its length only").isEqualTo(held);
    assertThat(files.free(huge, length)).isEqualTo(held);
    assertThat(files.cachedBytes(huge, length)).isZero();
    assertThat(files.cachedBytes(other, PAGE)).as("another file stays").isEqualTo(PAGE);
  }

  @Test
  void freeUnder_dropsTheNotedVersionsBelowAFolder_only() {
    PageId.FileKey inside = files.key("file:///d/sub/a", "v1");
    PageId.FileKey beside = files.key("file:///d/subway", "v1");
    cache(inside, 0, PAGE);
    cache(beside, 0, PAGE);
    store.versions().note("file:///d/sub/a", "v1", PAGE);
    store.versions().note("file:///d/subway", "v1", PAGE);

    assertThat(files.freeUnder("file:///d/sub")).isEqualTo(PAGE);
    assertThat(files.cachedBytes(beside, PAGE)).isEqualTo(PAGE);
  }
}
