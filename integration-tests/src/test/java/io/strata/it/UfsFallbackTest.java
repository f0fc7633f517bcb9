package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.UserKeys;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.testkit.MiniCluster;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * strata.user.ufs.fallback.enabled, switched on a running cluster, lets readers go on without
 * workers.
 */
class UfsFallbackTest {
  @Test
  void withNoWorkerLeft_readsFail_untilFallbackIsSwitchedOnLive() throws Exception {
    try (MiniCluster cluster = MiniCluster.builder().workers(1).start()) {
      byte[] data = new byte[200_000];
      new Random(4).nextBytes(data);
      Files.write(cluster.ufsRoot().resolve("f.bin"), data);
      var conf = cluster.clientConf();
      conf.set(UserKeys.CONF_SYNC_INTERVAL, "200ms");
      conf.set(UserKeys.READ_TIMEOUT, "2s");
      // The open brings no bytes: the reads below need a worker (a file that came whole is read
      // from memory).
      conf.set(UserKeys.OPEN_FIRST_BYTES, "0");
      try (FileSystem fs = FileSystem.create(conf);
          FileInStream in = fs.open("/f.bin")) {
        cluster.worker(0).close();
        byte[] got = new byte[1000];
        assertThatThrownBy(() -> in.readFully(5000, got, 0, got.length))
            .isInstanceOf(StrataException.class)
            .satisfies(
                e -> assertThat(((StrataException) e).code()).isEqualTo(StatusCode.UNAVAILABLE));
        ShellRunner.Run on =
            new ShellRunner(cluster::clientConf)
                .run("conf", "updateConf", UserKeys.UFS_FALLBACK.name() + "=true");
        assertThat(on.code()).as(on.err()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> fs.conf().get(UserKeys.UFS_FALLBACK));
        in.readFully(5000, got, 0, got.length);
        assertThat(got).isEqualTo(Arrays.copyOfRange(data, 5000, 6000));
        // An open with no worker left: the status and every byte from the under-storage.
        try (FileInStream again = fs.open("/f.bin")) {
          assertThat(again.readAllBytes()).isEqualTo(data);
        }
      }
    }
  }
}
