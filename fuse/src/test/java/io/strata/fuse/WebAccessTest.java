package io.strata.fuse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Role;
import io.strata.core.security.SecurityMode;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WebAccessTest {
  @TempDir Path dir;

  @Test
  void aMountWithTheSecret_asksForTokens_andServesThreadDumpsToAdmins() throws Exception {
    Configuration conf = new Configuration();
    conf.set(SecurityKeys.SECRET_FILE, secret().toString());
    WebAccess access = WebAccess.of(conf);
    assertThat(access.security().mode()).isEqualTo(SecurityMode.TOKEN);
    assertThat(access.stacks()).isTrue();
  }

  @Test
  void aMountWithAUsersTokenOnly_servesNoThreadDumps_andStaysOnLoopback() throws Exception {
    ClusterSecret cluster = ClusterSecret.load(secret());
    Path token =
        Files.writeString(
            dir.resolve("token"),
            Tokens.issue(cluster, "alice", Role.USER, Instant.now().plusSeconds(600)));
    Configuration conf = new Configuration();
    conf.set(SecurityKeys.TOKEN_FILE, token.toString());
    assertThat(WebAccess.of(conf).stacks()).isFalse();
    conf.set(FuseKeys.BIND_HOST, "0.0.0.0");
    assertThatThrownBy(() -> WebAccess.of(conf))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.FAILED_PRECONDITION))
        .hasMessageContaining("loopback only, not 0.0.0.0");
  }

  private Path secret() throws Exception {
    Path file = dir.resolve("secret");
    if (!Files.exists(file)) {
      Files.writeString(file, "a-test-secret-of-more-than-thirty-two-bytes\n");
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
    return file;
  }
}
