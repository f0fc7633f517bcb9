package io.strata.hadoop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 78: a {@code strata://host:port/} path sent the user's token to whatever host it named. A
 * client with a token now names only the masters it is configured for; no connection is made to any
 * other.
 */
class UriMastersTest {
  @TempDir Path dir;

  private Configuration withToken() throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "a-users-token");
    Configuration hadoop = new Configuration(false);
    hadoop.set(CommonKeys.MASTER_RPC_ADDRESSES.name(), "127.0.0.1:7700,127.0.0.2:7700");
    hadoop.set(SecurityKeys.TOKEN_FILE.name(), token.toString());
    return hadoop;
  }

  @Test
  void aUriNamingOtherMasters_isRefusedWhileTheClientHoldsAToken() throws Exception {
    assertThatThrownBy(
            () -> StrataConfs.of(URI.create("strata://evil.example:7700/x"), withToken()))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> {
              assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED);
              assertThat(e.getMessage())
                  .contains("strata://evil.example:7700/ names masters this client is not")
                  .contains("127.0.0.1:7700,127.0.0.2:7700")
                  .contains("strata.user.uri.masters.any=true")
                  .doesNotContain("a-users-token");
            });
    // One configured master and one other: refused as well.
    assertThatThrownBy(
            () ->
                StrataConfs.of(
                    URI.create("strata://127.0.0.1:7700,evil.example:7700/"), withToken()))
        .isInstanceOf(StrataException.class);
  }

  @Test
  void configuredMasters_orAnOptIn_areServed() throws Exception {
    assertThat(
            StrataConfs.of(URI.create("strata://127.0.0.2:7700/x"), withToken())
                .get(CommonKeys.MASTER_RPC_ADDRESSES))
        .containsExactly("127.0.0.2:7700");

    Configuration optIn = withToken();
    optIn.set(UserKeys.URI_MASTERS_ANY.name(), "true");
    assertThat(
            StrataConfs.of(URI.create("strata://other.example:7700/"), optIn)
                .get(CommonKeys.MASTER_RPC_ADDRESSES))
        .containsExactly("other.example:7700");
  }
}
