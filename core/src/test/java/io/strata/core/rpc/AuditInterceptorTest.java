package io.strata.core.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.proto.RenameRequest;
import org.junit.jupiter.api.Test;

/** An audit line is one line with one token per field, whatever names a client sends. */
class AuditInterceptorTest {
  @Test
  void aNameWithANewline_cannotEndTheLine_norForgeAField() {
    String forged = "/a\n2026-11-25 user=root op=delete path=/all status=OK";
    String line =
        AuditInterceptor.describe(RenameRequest.newBuilder().setSrc(forged).setDst("/b").build());
    assertThat(line)
        .doesNotContain("\n")
        .startsWith("src=\"/a\\n2026-11-25 user=root")
        .endsWith(" dst=/b");
    assertThat(AuditInterceptor.escaped("plain/path-1")).isEqualTo("plain/path-1");
    assertThat(AuditInterceptor.escaped("a b\"c\\d\u2028\u0085\r"))
        .isEqualTo("\"a b\\\"c\\\\d\\u2028\\u0085\\r\"");
    assertThat(AuditInterceptor.escaped("")).isEqualTo("\"\"");
    assertThat(AuditInterceptor.escaped("x".repeat(5000))).hasSize(AuditInterceptor.MAX_FIELD + 3);
  }
}
