package io.strata.bench.read;

import io.strata.core.conf.ConfKey;
import io.strata.core.conf.SecurityKeys;
import io.strata.testkit.TestCa;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/** The TLS side of {@code strata bench read}: a cluster with TLS on every port, and its cost. */
final class SecureCluster {
  private SecureCluster() {}

  /** The settings of a cluster with TLS, its authority and certificate made in {@code dir}. */
  static Map<ConfKey<?>, String> settings(Path dir) throws IOException {
    if (!TestCa.available()) {
      throw new IllegalStateException(
          "the tls transport makes its certificates with openssl, which is not installed");
    }
    TestCa ca = TestCa.create(dir, "bench");
    TestCa.Issued node = ca.issue("node");
    return Map.of(
        SecurityKeys.TLS_ENABLED, "true",
        SecurityKeys.TLS_CERT_FILE, node.cert().toString(),
        SecurityKeys.TLS_KEY_FILE, node.key().toString(),
        SecurityKeys.TLS_CA_FILE, ca.cert().toString());
  }

  /**
   * Adds TLS's speed over plain TCP's (medians of the same run) to {@code out}, and prints it:
   * {@code tls_vs_tcp} (sequential, 4 threads), {@code tls_1t_vs_tcp}, and {@code
   * tls_4k_ops_vs_tcp} (random 4 KiB reads, 1 thread).
   */
  static void compare(Map<String, Object> out) {
    ratio(out, "tls_vs_tcp", "tls_seq_mbs", "tcp_seq_mbs");
    ratio(out, "tls_1t_vs_tcp", "tls_1t_seq_mbs", "tcp_1t_seq_mbs");
    ratio(out, "tls_4k_ops_vs_tcp", "tls_ops_4k", "tcp_ops_4k");
  }

  private static void ratio(Map<String, Object> out, String key, String tls, String tcp) {
    if (out.get(tls) instanceof Double t && out.get(tcp) instanceof Double p) {
      out.put(key, t / p);
      System.out.printf(Locale.ROOT, "%-20s %.3f (TLS %.0f, plain %.0f)%n", key, t / p, t, p);
    }
  }
}
