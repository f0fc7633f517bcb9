package io.strata.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FileInStreamTest {
  private final byte[] data = new byte[10_000];
  private final AtomicInteger calls = new AtomicInteger();

  FileInStreamTest() {
    new Random(9).nextBytes(data);
  }

  private FileInStream stream(int bufferSize) {
    FileInfo info = new FileInfo("/f", "f", false, data.length, 0, 0644, "u", "g", "fp", "file:///f", -1);
    return new FileInStream(info, (offset, dst, at, length) -> {
      calls.incrementAndGet();
      int n = (int) Math.min(length, data.length - offset);
      System.arraycopy(data, (int) offset, dst, at, n);
      return n;
    }, bufferSize);
  }

  @Test
  void streamingRead_returnsEveryByte_inFewRangeReads() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FileInStream in = stream(4096)) {
      byte[] small = new byte[100];
      int n;
      while ((n = in.read(small, 0, small.length)) > 0) {
        out.write(small, 0, n);
      }
      assertThat(in.read()).isEqualTo(-1);
    }
    assertThat(out.toByteArray()).isEqualTo(data);
    assertThat(calls).hasValue(3);
  }

  @Test
  void randomPositionedReads_matchTheSource_andLeaveTheStreamAlone() {
    Random r = new Random(4);
    try (FileInStream in = stream(1024)) {
      in.seek(500);
      for (int i = 0; i < 200; i++) {
        int pos = r.nextInt(data.length + 50);
        int len = r.nextInt(3000);
        byte[] b = new byte[len];
        int n = in.positionedRead(pos, b, 0, len);
        if (pos >= data.length) {
          assertThat(n).isEqualTo(-1);
        } else {
          assertThat(n).isEqualTo(Math.min(len, data.length - pos));
          assertThat(Arrays.copyOf(b, n)).isEqualTo(Arrays.copyOfRange(data, pos, pos + n));
        }
      }
      assertThat(in.getPos()).isEqualTo(500);
      assertThat(in.read()).isEqualTo(data[500] & 0xFF);
    }
  }

  @Test
  void seekSkipAndReadFully() throws Exception {
    try (FileInStream in = stream(1024)) {
      in.seek(9_990);
      assertThat(in.skip(100)).isEqualTo(10);
      assertThat(in.read()).isEqualTo(-1);
      byte[] b = new byte[20];
      in.readFully(5, b, 0, 20);
      assertThat(b).isEqualTo(Arrays.copyOfRange(data, 5, 25));
      assertThatThrownBy(() -> in.readFully(9_995, b, 0, 20)).isInstanceOf(EOFException.class);
      assertThatThrownBy(() -> in.seek(-1)).hasMessageContaining("negative");
    }
  }

  @Test
  void closedStream_refusesReads() {
    FileInStream in = stream(1024);
    in.close();
    assertThatThrownBy(() -> in.read()).hasMessageContaining("closed");
  }
}
