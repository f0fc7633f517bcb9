package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.strata.client.FileInStream;
import io.strata.client.FileSystem;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.ForkedCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What a worker keeps on its host is its own user's (issue 25, item 4): cached pages, their index,
 * cached metadata and the domain socket are closed to other local users whatever the umask, and a
 * local user other than the worker's can neither read a segment file nor connect to the socket.
 */
class LocalConfidentialityTest {
  @Test
  void cachedPagesIndexMetadataAndSocket_areTheWorkersUsersAlone() throws Exception {
    try (ForkedCluster cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .domainSockets()
            .ssd("64MiB")
            .property(WorkerKeys.SEGMENT_SIZE, "4MiB")
            .start()) {
      byte[] data = new byte[3 << 20];
      new Random(11).nextBytes(data);
      Files.write(cluster.ufsRoot().resolve("secret.bin"), data);
      try (FileSystem fs = FileSystem.create(cluster.clientConf());
          FileInStream in = fs.open("/secret.bin")) {
        assertThat(in.readAllBytes()).isEqualTo(data);
      }
      Path segments = only(cluster.dir(), "segments", true);
      Path index = only(cluster.dir(), "index", true);
      Path metadata = only(cluster.dir(), "metadata", true);
      Path socket = socketIn(cluster.dir());
      Path segment;
      try (Stream<Path> files = Files.walk(segments)) {
        segment =
            files
                .filter(p -> p.getFileName().toString().startsWith("seg-"))
                .findFirst()
                .orElseThrow();
      }
      for (Path folder : List.of(segments, index, metadata)) {
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)))
            .as(folder.toString())
            .isEqualTo("rwx------");
      }
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(segment)))
          .isEqualTo("rw-------");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)))
          .isEqualTo("rw-------");

      assumeThat(FuseHost.onPath("setpriv"))
          .as("running as another user needs setpriv (util-linux)")
          .isTrue();
      assertThat(FuseHost.asNobody("cat", segment.toString()))
          .as("another user reads a segment file")
          .contains("Permission denied");
      assertThat(
              FuseHost.asNobody(
                  "perl",
                  "-MIO::Socket::UNIX",
                  "-e",
                  "IO::Socket::UNIX->new(Peer => '"
                      + socket
                      + "') or die \"connect: $!\\n\"; print \"connected\\n\""))
          .as("another user connects to the domain socket")
          .contains("connect: Permission denied")
          .doesNotContain("connected");
    }
  }

  /** The one folder called {@code name} under {@code dir}. */
  private static Path only(Path dir, String name, boolean folder) throws Exception {
    try (Stream<Path> all = Files.walk(dir)) {
      List<Path> found =
          all.filter(p -> p.getFileName().toString().equals(name))
              .filter(p -> Files.isDirectory(p) == folder)
              .toList();
      assertThat(found).as("%s under %s", name, dir).hasSize(1);
      return found.get(0);
    }
  }

  private static Path socketIn(Path dir) throws Exception {
    try (Stream<Path> all = Files.walk(dir)) {
      return all.filter(
              p -> {
                try {
                  return ((Integer) Files.getAttribute(p, "unix:mode") & 0170000) == 0140000;
                } catch (java.io.IOException e) {
                  return false;
                }
              })
          .findFirst()
          .orElseThrow();
    }
  }
}
