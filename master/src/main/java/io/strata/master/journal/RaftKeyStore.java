package io.strata.master.journal;

import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.AdvancedTlsX509TrustManager.Verification;
import io.strata.core.security.ClusterSecret;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;

/**
 * The key pair with which the masters of a TOKEN-mode cluster without TLS (on loopback: local mode)
 * authenticate one another on the Raft port, so that another account of the host cannot reach the
 * journal there: Ratis takes no token, only a certificate. Kept beside the cluster secret as {@code
 * <secret file>.raft.p12} (0600, its password derived from the secret), made with the JDK's keytool
 * by the first master that needs it: whoever may read the secret holds it, as they are the cluster
 * anyway.
 */
final class RaftKeyStore {
  static final String SUFFIX = ".raft.p12";
  private static final String ALIAS = "raft";
  private static final long KEYTOOL_SECONDS = 60;

  private RaftKeyStore() {}

  /** The key store for {@code secretFile}'s cluster, made first if there is none. */
  static RaftTls loadOrCreate(Path secretFile, ClusterSecret secret) {
    Path file = secretFile.resolveSibling(secretFile.getFileName() + SUFFIX);
    char[] password = password(secret);
    try {
      synchronized (RaftKeyStore.class) {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
          create(file, password);
        }
      }
      return load(file, password);
    } catch (IOException | GeneralSecurityException e) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "cannot set up the Raft port's key pair "
              + file
              + " (masters without TLS authenticate one another with it): "
              + e.getMessage());
    }
  }

  private static char[] password(ClusterSecret secret) {
    return java.util.HexFormat.of()
        .formatHex(secret.derive("strata raft key store".getBytes(StandardCharsets.UTF_8)))
        .toCharArray();
  }

  /**
   * Makes the key store under a lock (masters of one host start together), in a folder of its own
   * (keytool writes with the umask), then moves it into place 0600.
   */
  private static void create(Path file, char[] password) throws IOException {
    Path lockFile = file.resolveSibling(file.getFileName() + ".lock");
    try (FileChannel lockChannel =
        FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      lockChannel.lock(); // released as the channel closes
      if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        return;
      }
      Path dir = Files.createTempDirectory(file.getParent(), ".raft-keys-");
      Path made = dir.resolve("raft.p12");
      try {
        runKeytool(made, password);
        Files.setPosixFilePermissions(made, PosixFilePermissions.fromString("rw-------"));
        Files.move(made, file, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(made);
        Files.deleteIfExists(dir);
      }
    }
  }

  private static void runKeytool(Path store, char[] password) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(
        List.of(
            "-genkeypair",
            "-alias",
            ALIAS,
            "-keyalg",
            "EC",
            "-groupname",
            "secp256r1",
            "-sigalg",
            "SHA256withECDSA",
            "-dname",
            "CN=strata-raft",
            "-ext",
            "SAN=dns:localhost,ip:127.0.0.1,ip:::1",
            "-validity",
            "36500",
            "-storetype",
            "PKCS12",
            "-keystore",
            store.toString(),
            // From the environment: a command line is readable by every account of the host.
            "-storepass:env",
            "STRATA_RAFT_STORE_PASSWORD",
            "-noprompt"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put("STRATA_RAFT_STORE_PASSWORD", new String(password));
    Process p = pb.start();
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    }
    try {
      if (!p.waitFor(KEYTOOL_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("keytool did not finish in " + KEYTOOL_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      throw new IOException("interrupted while keytool ran", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException("keytool failed: " + out);
    }
  }

  private static RaftTls load(Path file, char[] password)
      throws IOException, GeneralSecurityException {
    for (PosixFilePermission p : Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS)) {
      if (p.name().startsWith("GROUP") || p.name().startsWith("OTHERS")) {
        throw new IOException("it is readable by others: chmod 600 it");
      }
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      store.load(in, password);
    }
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, password);
    // The peers' certificates are this one: the same key pair on every master of the host.
    AdvancedTlsX509TrustManager trust =
        AdvancedTlsX509TrustManager.newBuilder()
            .setVerification(Verification.CERTIFICATE_ONLY_VERIFICATION)
            .build();
    trust.updateTrustCredentials(
        new X509Certificate[] {(X509Certificate) store.getCertificate(ALIAS)});
    return new RaftTls(keys.getKeyManagers()[0], trust);
  }
}
