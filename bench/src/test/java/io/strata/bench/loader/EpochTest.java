package io.strata.bench.loader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.strata.core.util.Commands;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The loader reads every sample and catches a wrong byte: a fast wrong read is no result. */
class EpochTest {
  @TempDir Path dir;

  @Test
  void anEpochReadsEverySample_andFailsOnOneWrongByte() throws Exception {
    assumeThat(Commands.onPath("python3")).as("needs python3 (apt-get install python3)").isTrue();
    Path files = dir.resolve("files");
    Path manifest = Dataset.files(files, 40, 8 << 10, 4);
    Path shards = Dataset.shards(dir.resolve("shards"), 2, 3 << 20);
    Epoch epoch = Epoch.in(Files.createDirectories(dir.resolve("work")));

    Epoch.Result r = epoch.run(manifest, files, 3, 1, false);
    assertThat(r.samples()).isEqualTo(40);
    try (var walk = Files.walk(files)) {
      long total = walk.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
      assertThat(r.bytes()).isEqualTo(total);
    }
    assertThat(epoch.run(shards, dir.resolve("shards"), 2, 2, true).bytes()).isEqualTo(6L << 20);

    Path one = files.resolve("class002/0000002.jpg");
    byte[] b = Files.readAllBytes(one);
    b[b.length / 2] ^= 1;
    Files.write(one, b);
    assertThatThrownBy(() -> epoch.run(manifest, files, 2, 3, false))
        .hasMessageContaining("1 samples of the wrong bytes")
        .hasMessageContaining("class002/0000002.jpg");
  }
}
