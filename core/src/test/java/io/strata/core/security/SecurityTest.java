package io.strata.core.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecurityTest {
  @TempDir Path dir;

  /** Issue 78: a start that names no mode is TOKEN mode on loopback too, never NONE. */
  @Test
  void noModeMeansToken_onLoopbackToo() {
    Configuration conf = new Configuration();
    assertRefused(conf, "TOKEN (the default) needs the cluster secret", "=NONE to trust every");
    conf.set(SecurityKeys.SECRET_FILE, secret("rw-------").toString());
    assertThat(Security.forServer(conf, List.of(MasterKeys.BIND_HOST)).mode())
        .isEqualTo(SecurityMode.TOKEN);
  }

  @Test
  void noneOnLoopback_onlyWhenAskedFor() {
    Configuration conf = new Configuration();
    conf.set(SecurityKeys.MODE, "NONE");
    assertThat(Security.forServer(conf, List.of(MasterKeys.BIND_HOST)).mode())
        .isEqualTo(SecurityMode.NONE);
    conf.set(WorkerKeys.BIND_HOST, "localhost");
    assertThat(Security.forServer(conf, List.of(WorkerKeys.BIND_HOST)).mode())
        .isEqualTo(SecurityMode.NONE);
  }

  @Test
  void aListenerOnTheNetworkMeansTokenModeAndItsSecret() {
    Configuration conf = new Configuration();
    conf.set(WorkerKeys.BIND_HOST, "0.0.0.0");
    assertRefused(conf, "needs the cluster secret", "strata.worker.bind.host is 0.0.0.0");
    conf.set(SecurityKeys.SECRET_FILE, secret("rw-------").toString());
    Security s = Security.forServer(conf, List.of(WorkerKeys.BIND_HOST));
    assertThat(s.mode()).isEqualTo(SecurityMode.TOKEN);
    assertThat(s.credentials().token()).startsWith("st1.");
  }

  @Test
  void noneIsRefusedOnTheNetwork() {
    Configuration conf = new Configuration();
    conf.set(SecurityKeys.MODE, "NONE");
    conf.set(MasterKeys.BIND_HOST, "0.0.0.0");
    assertRefused(conf, "NONE", "bind it to 127.0.0.1");
  }

  @Test
  void tokenModeOnLoopbackStillNeedsItsSecret() {
    Configuration conf = new Configuration();
    conf.set(SecurityKeys.MODE, "TOKEN");
    assertRefused(conf, "needs the cluster secret");
  }

  @Test
  void aSecretOthersCanReadOrTooShortIsRefused() throws Exception {
    Configuration conf = new Configuration();
    conf.set(SecurityKeys.MODE, "TOKEN");
    conf.set(SecurityKeys.SECRET_FILE, secret("rw-r--r--").toString());
    assertRefused(conf, "readable by others", "chmod 600");
    Path shortOne = dir.resolve("short");
    Files.writeString(shortOne, "tiny\n");
    Files.setPosixFilePermissions(shortOne, PosixFilePermissions.fromString("rw-------"));
    conf.set(SecurityKeys.SECRET_FILE, shortOne.toString());
    assertRefused(conf, "fewer than 32");
    conf.set(SecurityKeys.SECRET_FILE, dir.resolve("missing").toString());
    assertRefused(conf, "does not exist");
  }

  @Test
  void theModeKeyTakesNoneOrTokenOnly() {
    Configuration conf = new Configuration();
    assertThatThrownBy(() -> conf.set(SecurityKeys.MODE, "KERBEROS"))
        .hasMessageContaining("must be NONE or TOKEN");
  }

  private Path secret(String mode) {
    try {
      Path f = dir.resolve("secret-" + mode);
      Files.writeString(f, "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlY3JldA==\n");
      Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
      return f;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void assertRefused(Configuration conf, String... why) {
    assertThatThrownBy(
            () -> Security.forServer(conf, List.of(MasterKeys.BIND_HOST, WorkerKeys.BIND_HOST)))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION))
        .hasMessageContainingAll(why);
  }
}
