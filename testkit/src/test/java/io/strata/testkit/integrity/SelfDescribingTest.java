package io.strata.testkit.integrity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SelfDescribingTest {
  @Test
  void aWholeVersionIsThatVersion() {
    byte[] v7 = SelfDescribing.content(3, 7, 100_000);

    assertThat(SelfDescribing.versionOf(3, 0, v7, v7.length)).isEqualTo(7);
    assertThat(SelfDescribing.describe(3, 0, v7, v7.length, 8)).isEqualTo("[0, 100000) version 7");
  }

  @Test
  void aReadMixingVersionsAndZerosIsOfNoVersion_andSaysWhereEachRunLies() {
    byte[] read = SelfDescribing.content(3, 5, 200_000);
    System.arraycopy(SelfDescribing.content(3, 9, 65_536), 0, read, 0, 65_536);
    Arrays.fill(read, 65_536, 69_632, (byte) 0);

    assertThat(SelfDescribing.versionOf(3, 0, read, read.length)).isEqualTo(-1);
    assertThat(SelfDescribing.describe(3, 0, read, read.length, 8))
        .isEqualTo("[0, 65536) version 9, [65536, 69632) zeros, [69632, 200000) version 5");
  }

  @Test
  void anUnalignedReadIsTakenAsTheVersionAroundIt() {
    byte[] v2 = SelfDescribing.content(1, 2, 4096);
    byte[] read = Arrays.copyOfRange(v2, 1000, 1090);

    assertThat(SelfDescribing.versionOf(1, 1000, read, read.length)).isEqualTo(2);
    assertThat(SelfDescribing.describe(1, 1000, read, read.length, 8))
        .isEqualTo("[1000, 1090) version 2");
  }

  @Test
  void anotherFilesBytesAndNoiseAreNamedAsSuch() {
    byte[] read = SelfDescribing.content(1, 2, 128);
    System.arraycopy(SelfDescribing.content(4, 6, 64), 32, read, 32, 32);
    read[100] ^= 1;

    assertThat(SelfDescribing.describe(1, 0, read, read.length, 8))
        .isEqualTo(
            "[0, 32) version 2, [32, 64) file 4 version 6, [64, 96) version 2,"
                + " [96, 128) other bytes");
  }

  @Test
  void bytesOfTheRightVersionFromTheWrongOffsetAreNamedWithTheirShift() {
    byte[] v3 = SelfDescribing.content(2, 3, 1 << 20);
    byte[] read = Arrays.copyOf(v3, 256 << 10);
    System.arraycopy(v3, 655_360, read, 131_072, 65_536);

    assertThat(SelfDescribing.versionOf(2, 0, read, read.length)).isEqualTo(-1);
    assertThat(SelfDescribing.describe(2, 0, read, read.length, 8))
        .isEqualTo(
            "[0, 131072) version 3, [131072, 196608) version 3 shifted by -524288 bytes,"
                + " [196608, 262144) version 3");
  }

  @Test
  void aPieceOfABlockAfterAShiftedRunIsTriedAsItsVersionInPlace() {
    byte[] v3 = SelfDescribing.content(2, 3, 4096);
    byte[] read = Arrays.copyOf(v3, 74);
    System.arraycopy(v3, 1024, read, 32, 32);

    assertThat(SelfDescribing.describe(2, 0, read, read.length, 8))
        .isEqualTo(
            "[0, 32) version 3, [32, 64) version 3 shifted by -992 bytes, [64, 74) version 3");
  }

  @Test
  void onlyTheFirstRunsAreNamed() {
    byte[] read = new byte[32 * 6];
    for (int b = 0; b < 6; b++) {
      System.arraycopy(SelfDescribing.content(1, b % 2, 32 * 6), 32 * b, read, 32 * b, 32);
    }

    assertThat(SelfDescribing.describe(1, 0, read, read.length, 2))
        .isEqualTo("[0, 32) version 0, [32, 64) version 1, and 4 more runs");
  }
}
