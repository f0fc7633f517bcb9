package io.strata.fuse;

import static io.strata.fuse.MountlessWrites.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Changes in place, published whole, without a mount (see {@link MountlessWrites}). */
class InPlaceChangesTest {
  @TempDir static Path spill;
  private static MountlessWrites w;

  @BeforeAll
  static void start() throws Exception {
    w = new MountlessWrites(spill);
  }

  @AfterAll
  static void stop() {
    w.close();
  }

  @Test
  void aChange_isUnseenUntilItsRelease_thenPublishedWhole() {
    w.put("/change", "0123456789");
    Update u = w.inPlace.of("/change", w.fs.getStatus("/change"));

    assertThat(w.inPlace.write(u, bytes("AB"), 2, 3)).isEqualTo(2);
    assertThat(w.inPlace.truncate(u, 8)).isZero();
    assertThat(w.read("/change")).as("before the release").isEqualTo("0123456789");
    assertThat(u.pendingSize()).isEqualTo(8);
    assertThat(w.open.updateOf("/change")).contains(u);

    assertThat(w.inPlace.release(u)).isZero();
    assertThat(w.read("/change")).isEqualTo("012AB567");
    assertThat(w.open.updateOf("/change")).isEmpty();
  }

  @Test
  void aClosedFileTruncated_isCutAtOnce() {
    w.put("/cut", "0123456789");

    assertThat(w.inPlace.truncate("/cut", w.fs.getStatus("/cut"), 4)).isZero();

    assertThat(w.read("/cut")).isEqualTo("0123");
  }

  @Test
  void zerosOverARange_keepTheSize_andAGrowthPadsWithZeros() {
    w.put("/zeros", "0123456789");
    Update u = w.inPlace.of("/zeros", w.fs.getStatus("/zeros"));

    assertThat(w.inPlace.allocate(u, 2, 5, true, true)).isZero();
    assertThat(w.inPlace.allocate(u, 10, 12, false, false)).isZero();
    w.inPlace.release(u);

    assertThat(w.read("/zeros")).isEqualTo("01\0\0\0" + "56789\0\0");
  }

  @Test
  void aWritePastTheLargestFile_isEfbig_andChangesNothing() {
    w.put("/big", "small");
    Update u = w.inPlace.of("/big", w.fs.getStatus("/big"));

    assertThat(w.inPlace.write(u, bytes("x"), 1, InPlaceChanges.MAX_FILE)).isEqualTo(-Errno.EFBIG);
    assertThat(w.inPlace.truncate(u, InPlaceChanges.MAX_FILE + 1)).isEqualTo(-Errno.EFBIG);
    assertThat(u.dirty()).isFalse();
    w.inPlace.release(u);

    assertThat(w.read("/big")).isEqualTo("small");
  }
}
