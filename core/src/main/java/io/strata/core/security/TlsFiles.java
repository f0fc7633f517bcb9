package io.strata.core.security;

import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.CertificateUtils;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A process's certificate, key and authorities as files, loaded into the key and trust managers and
 * loaded again whenever a file changes ({@link #reloadIfChanged}, run every reload interval). A
 * certificate and a key that do not belong together (an operator's renewal caught half-way) are not
 * loaded: the current pair serves on until both files agree. gRPC's own file reloading is not used:
 * it checks at most once a minute and loads a half-renewed pair.
 */
final class TlsFiles {
  private static final Logger LOG = LoggerFactory.getLogger(TlsFiles.class);
  private static final byte[] PROBE =
      "strata key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

  private final Path cert;
  private final Path key;
  private final Path ca;
  private final AdvancedTlsX509KeyManager keys;
  private final List<AdvancedTlsX509TrustManager> trusts;
  private List<FileTime> loaded;
  private String lastProblem;

  /**
   * Loads the files now: throws if they cannot be read or do not agree.
   *
   * @param cert null with {@code key} for a client without a certificate
   * @param ca null to trust the JDK's default authorities (never reloaded)
   */
  TlsFiles(
      Path cert,
      Path key,
      Path ca,
      AdvancedTlsX509KeyManager keys,
      List<AdvancedTlsX509TrustManager> trusts)
      throws IOException, GeneralSecurityException {
    this.cert = cert;
    this.key = key;
    this.ca = ca;
    this.keys = keys;
    this.trusts = trusts;
    if (ca == null) {
      for (AdvancedTlsX509TrustManager t : trusts) {
        t.useSystemDefaultTrustCerts();
      }
    }
    List<FileTime> now = times();
    load();
    loaded = now;
  }

  /** Loads the files again if any changed since they were last loaded; logs what happened. */
  synchronized void reloadIfChanged() {
    try {
      List<FileTime> now = times();
      if (now.equals(loaded)) {
        return;
      }
      load();
      loaded = now;
      lastProblem = null;
      LOG.info("TLS: loaded {} again", cert != null ? cert : ca);
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      String problem = e.getMessage();
      if (!Objects.equals(problem, lastProblem)) {
        LOG.warn("TLS: keeping the certificates in use, the files cannot be loaded: {}", problem);
        lastProblem = problem;
      }
    }
  }

  private List<FileTime> times() throws IOException {
    return List.of(time(cert), time(key), time(ca));
  }

  private static FileTime time(Path p) throws IOException {
    return p == null ? FileTime.fromMillis(0) : Files.getLastModifiedTime(p);
  }

  private void load() throws IOException, GeneralSecurityException {
    if (cert != null) {
      X509Certificate[] chain = certificates(cert);
      PrivateKey k;
      try (InputStream in = Files.newInputStream(key)) {
        k = CertificateUtils.getPrivateKey(in);
      }
      if (!belongTogether(k, chain[0].getPublicKey())) {
        throw new GeneralSecurityException(key + " is not the key of " + cert);
      }
      keys.updateIdentityCredentials(chain, k);
    }
    if (ca != null) {
      X509Certificate[] roots = certificates(ca);
      for (AdvancedTlsX509TrustManager t : trusts) {
        t.updateTrustCredentials(roots);
      }
    }
  }

  private static X509Certificate[] certificates(Path file)
      throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(file)) {
      X509Certificate[] certs = CertificateUtils.getX509Certificates(in);
      if (certs.length == 0) {
        throw new GeneralSecurityException(file + " holds no PEM certificate");
      }
      return certs;
    }
  }

  /** Whether {@code key} signs what {@code pub} verifies. */
  static boolean belongTogether(PrivateKey key, PublicKey pub) throws GeneralSecurityException {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "EC" -> "SHA256withECDSA";
          case "RSA" -> "SHA256withRSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          default ->
              throw new GeneralSecurityException(
                  "keys of type " + key.getAlgorithm() + " are not supported (use EC or RSA)");
        };
    if (!key.getAlgorithm().equals(pub.getAlgorithm())) {
      return false;
    }
    Signature sign = Signature.getInstance(algorithm);
    sign.initSign(key);
    sign.update(PROBE);
    byte[] signature = sign.sign();
    Signature verify = Signature.getInstance(algorithm);
    verify.initVerify(pub);
    verify.update(PROBE);
    return verify.verify(signature);
  }
}
