package io.strata.ufs.hdfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Streams parked between runs, on Hadoop's local file system. */
class ParkedStreamsTest {
  @TempDir Path dir;
  private FileSystem fs;
  private org.apache.hadoop.fs.Path file;

  @BeforeEach
  void writeFile() throws IOException {
    Path f = dir.resolve("f");
    byte[] bytes = new byte[4096];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    Files.write(f, bytes);
    fs = FileSystem.getLocal(new Configuration());
    file = new org.apache.hadoop.fs.Path(f.toUri());
  }

  @Test
  void aParkedStream_isTakenOnce_byTheRunThatStartsWhereItStopped_ofItsVersionOnly()
      throws IOException {
    try (ParkedStreams parked = new ParkedStreams(Duration.ofMinutes(1))) {
      FSDataInputStream in = fs.open(file);
      in.seek(100);
      assertThat(parked.take("v1", 100)).isNull();
      parked.park("v1", 100, in);
      assertThat(parked.take("v1", 99)).isNull();
      assertThat(parked.take("v2", 100)).isNull();
      FSDataInputStream taken = parked.take("v1", 100);
      assertThat(taken).isSameAs(in);
      assertThat(taken.read()).as("it goes on where it stopped").isEqualTo(100);
      assertThat(parked.take("v1", 100)).as("taken once").isNull();
      taken.close();
    }
  }

  @Test
  void aStreamLeftParked_isClosedOnceIdle_andAllAreClosedWithTheirCache() throws IOException {
    FSDataInputStream idle = fs.open(file);
    FSDataInputStream kept = fs.open(file);
    try (ParkedStreams parked = new ParkedStreams(Duration.ofMillis(200))) {
      parked.park("v", 0, idle);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThatThrownBy(idle::read).isInstanceOf(IOException.class));
      assertThat(parked.take("v", 0)).isNull();
      parked.park("v", 10, kept);
    }
    assertThatThrownBy(kept::read).as("closed with the cache").isInstanceOf(IOException.class);
  }

  @Test
  void parkingWhereAnotherIsParked_closesTheOneBefore() throws IOException {
    FSDataInputStream first = fs.open(file);
    FSDataInputStream second = fs.open(file);
    try (ParkedStreams parked = new ParkedStreams(Duration.ofMinutes(1))) {
      parked.park("v", 5, first);
      parked.park("v", 5, second);
      assertThatThrownBy(first::read).isInstanceOf(IOException.class);
      assertThat(parked.take("v", 5)).isSameAs(second);
      second.close();
    }
  }
}
