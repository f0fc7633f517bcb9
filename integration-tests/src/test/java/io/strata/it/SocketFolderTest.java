package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 78: where a local worker's socket path is too long for a socket address, the scripts used
 * {@code /tmp/strata-UID-CKSUM-N.sock}, a name any account could compute and take first (to stop
 * the worker from starting, or to listen in its place for the tokens clients send). Now the folder
 * comes from mktemp, owner-only, recorded in the local data folder and used again only while it is
 * still this account's, 0700 and no link.
 */
class SocketFolderTest {
  @TempDir Path data;

  @Test
  void theSocketFolder_isUnpredictable_ownerOnly_andNotTakenBackOnceTamperedWith()
      throws Exception {
    Path first = socketFolder();
    try {
      assertThat(first.getFileName().toString()).matches("strata-[A-Za-z0-9]{10}");
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(first)))
          .isEqualTo("rwx------");
      assertThat(socketFolder()).as("the recorded folder, again").isEqualTo(first);

      Files.setPosixFilePermissions(first, PosixFilePermissions.fromString("rwxrwxrwx"));
      Path second = socketFolder();
      assertThat(second).as("a folder others may write is not used").isNotEqualTo(first);

      Files.delete(second);
      Files.createSymbolicLink(second, first);
      Path third = socketFolder();
      assertThat(third).as("nor a link put in its place").isNotEqualTo(second);
      Files.delete(second);
      Files.delete(third);
    } finally {
      Files.deleteIfExists(first);
    }
  }

  private Path socketFolder() throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
            "bash",
            "-c",
            ". \"$1/bin/strata-process.sh\" && strata_socket_folder",
            "bash",
            Scripts.ROOT.toString());
    pb.environment().put("STRATA_LOCAL_DATA_DIR", data.toString());
    pb.environment().remove("XDG_RUNTIME_DIR");
    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    return Path.of(out);
  }
}
