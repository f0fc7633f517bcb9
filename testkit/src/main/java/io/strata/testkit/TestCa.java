package io.strata.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority for tests of TLS, made with the {@code openssl} command as docs/
 * operations.md tells operators to make theirs (EC P-256 keys in PKCS#8, certificates for localhost
 * and 127.0.0.1, valid for two days), so the documented recipe is the tested one.
 */
public final class TestCa {
  private static final String SUBJECT_NAMES = "subjectAltName=DNS:localhost,IP:127.0.0.1";

  private final Path dir;
  private final Path caCert;
  private final Path caKey;

  /** A certificate and its key. */
  public record Issued(Path cert, Path key) {}

  private TestCa(Path dir, String name) throws IOException {
    this.dir = dir;
    this.caCert = dir.resolve(name + "-ca.pem");
    this.caKey = dir.resolve(name + "-ca.key");
    openssl(
        join(
            List.of("req", "-x509"),
            newKey(caKey),
            List.of("-out", caCert.toString(), "-days", "2", "-subj", "/CN=" + name + " test CA")));
  }

  /** Whether this machine has {@code openssl}; tests of TLS skip, saying so, when it has not. */
  public static boolean available() {
    try {
      return new ProcessBuilder("openssl", "version").start().waitFor() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** A new authority, its files in {@code dir}. */
  public static TestCa create(Path dir, String name) throws IOException {
    Files.createDirectories(dir);
    return new TestCa(dir, name);
  }

  /** The authority's certificate, for {@code strata.security.tls.ca.file}. */
  public Path cert() {
    return caCert;
  }

  /** A certificate for {@code name}, for servers and clients, naming localhost and 127.0.0.1. */
  public Issued issue(String name) throws IOException {
    Path key = dir.resolve(name + ".key");
    Path csr = dir.resolve(name + ".csr");
    Path cert = dir.resolve(name + ".pem");
    Path ext = dir.resolve(name + ".ext");
    Files.writeString(
        ext,
        SUBJECT_NAMES + "\nextendedKeyUsage=serverAuth,clientAuth\n",
        StandardCharsets.US_ASCII);
    openssl(
        join(List.of("req"), newKey(key), List.of("-out", csr.toString(), "-subj", "/CN=" + name)));
    openssl(
        List.of(
            "x509",
            "-req",
            "-in",
            csr.toString(),
            "-CA",
            caCert.toString(),
            "-CAkey",
            caKey.toString(),
            "-CAcreateserial",
            "-out",
            cert.toString(),
            "-days",
            "2",
            "-extfile",
            ext.toString()));
    return new Issued(cert, key);
  }

  /**
   * {@code openssl req}'s arguments for a new EC P-256 key, unencrypted PKCS#8, into {@code key}.
   */
  private static List<String> newKey(Path key) {
    return List.of(
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-keyout",
        key.toString());
  }

  @SafeVarargs
  private static List<String> join(List<String>... parts) {
    List<String> all = new ArrayList<>();
    for (List<String> p : parts) {
      all.addAll(p);
    }
    return all;
  }

  private void openssl(List<String> args) throws IOException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(args);
    Path log = dir.resolve("openssl.log");
    Process p =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    try {
      if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException(
            String.join(" ", command) + " failed: " + Files.readString(log).strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running openssl", e);
    }
  }
}
