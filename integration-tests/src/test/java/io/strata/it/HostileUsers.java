package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Role;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Tokens;
import io.strata.master.load.LoadControl;
import io.strata.testkit.MiniCluster;
import io.strata.testkit.TestCa;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The cluster issue 54's and 78's attacks are made on, as a cluster user would make them: a
 * TOKEN-mode cluster with TLS on a local folder whose files belong to real numeric owners (alice is
 * uid 4001, mallory 4002; tokens name them by uid, which the workers map to those ids), mallory
 * attacking through the shell and the Java client. Started once for the classes that use it (each
 * attack family has its own: {@link HostileUsersTest}, {@link HostileUsersJobsTest}, {@link
 * HostileUsersClusterTest}), closed when the run ends (JUnit closes what its root store holds); the
 * helpers their attacks share.
 */
final class HostileUsers implements BeforeAllCallback, AutoCloseable {
  static final String ALICE = "4001";
  static final String MALLORY = "4002";

  static Path dir;
  static MiniCluster cluster;
  static ClusterSecret secret;
  static Path ufs;
  static TestCa ca;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    assumeTrue(TestCa.available(), "openssl is not installed (apt-get install -y openssl)");
    context
        .getRoot()
        .getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(
            HostileUsers.class,
            k -> {
              try {
                start();
              } catch (Exception e) {
                throw new IllegalStateException("cannot start the hostile users' cluster", e);
              }
              return new HostileUsers();
            },
            HostileUsers.class);
  }

  private static void start() throws Exception {
    dir = Files.createTempDirectory("hostile-users-");
    Path file = SecretFiles.write(dir.resolve("cluster"), SecretFiles.CLUSTER);
    secret = ClusterSecret.load(file);
    ca = TestCa.create(dir.resolve("ca"), "cluster");
    TestCa.Issued node = ca.issue("node");
    cluster =
        MiniCluster.builder()
            // Two: a change made through one worker reaches the other only by its watch.
            .workers(2)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, file.toString())
            // Every port speaks TLS, as a hardened cluster's do; the attacks go through it.
            .property(SecurityKeys.TLS_ENABLED, "true")
            .property(SecurityKeys.TLS_CERT_FILE, node.cert().toString())
            .property(SecurityKeys.TLS_KEY_FILE, node.key().toString())
            .property(SecurityKeys.TLS_CA_FILE, ca.cert().toString())
            // The processes share one certificate, "node": the Raft port takes no other.
            .property(SecurityKeys.TLS_RAFT_PEERS, "node")
            .start();
    ufs = cluster.ufsRoot();
    folder("home", 0, "rwxr-xr-x");
    folder("home/ali", 4001, "rwx------");
    file("home/ali/secret", 4001, "rw-------", "alice's own");
    folder("tmp", 0, "rwxrwxrwt");
    folder("tmp/m", 4002, "rwxr-xr-x");
    // Put in mallory's folder by someone else: hers to remove, not to rewrite.
    file("tmp/m/payroll.csv", 0, "rw-r--r--", "salaries");
    // Loaded whole by its users: a shared folder with one of alice's own inside.
    folder("shared", 0, "rwxrwxrwt");
    folder("shared/a", 4001, "rwx------");
    file("shared/a/diary", 4001, "rw-------", "alice's diary");
    for (int i = 0; i < LoadControl.MAX_RUNNING_PER_USER + 1; i++) {
      folder("shared/m/l" + i, 4002, "rwxr-xr-x");
      for (int part = 0; part < 3; part++) {
        own(
            Files.write(ufs.resolve("shared/m/l" + i + "/part" + part), new byte[1 << 20]),
            4002,
            "rw-r--r--");
      }
    }
    folder("pub", 4001, "rwxr-xr-x");
    file("pub/draft", 4001, "rw-r--r--", "alice's draft");
    folder("data", 0, "rwxr-xr-x");
    file("data/table.csv", 0, "rw-r--r--", "rows");
  }

  @Override
  public void close() throws IOException {
    if (cluster != null) {
      cluster.close();
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  static ClusterView view(Configuration conf) {
    try (MasterClient master = new MasterClient(conf)) {
      return master.call(
          "getClusterView", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
    }
  }

  static void assertOneLineRefusal(String err, String code, String why) {
    assertThat(err).contains(code, why).doesNotContain("\tat ", "Exception");
    assertThat(err.strip().lines().count()).as(err).isEqualTo(1);
  }

  static void folder(String rel, int uid, String mode) throws IOException {
    Path p = Files.createDirectories(ufs.resolve(rel));
    own(p, uid, mode);
  }

  static void file(String rel, int uid, String mode, String content) throws IOException {
    own(Files.writeString(ufs.resolve(rel), content), uid, mode);
  }

  static void own(Path p, int uid, String mode) throws IOException {
    Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode.replace('t', 'x')));
    if (mode.endsWith("t")) {
      Files.setAttribute(p, "unix:mode", 01777);
    }
  }

  static int uid(Path p) throws IOException {
    return (int) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS);
  }

  static int gid(Path p) throws IOException {
    return (int) Files.getAttribute(p, "unix:gid", LinkOption.NOFOLLOW_LINKS);
  }

  static ShellRunner shellAs(String user) {
    Configuration conf = as(user);
    return new ShellRunner(() -> conf);
  }

  static Configuration as(String user) {
    return as(user, Role.USER);
  }

  static Configuration as(String user, Role role) {
    Configuration conf = cluster.clientConf();
    conf.set(SecurityKeys.SECRET_FILE, "");
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "2s");
    String token = Tokens.issue(secret, user, role, Instant.now().plus(Duration.ofMinutes(10)));
    try {
      Path file = Files.createTempFile(dir, "token-", "");
      Files.writeString(file, token + "\n");
      conf.set(SecurityKeys.TOKEN_FILE, file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return conf;
  }

  static String read(FileSystem fs, String path) {
    try (FileInStream in = fs.open(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void write(FileSystem fs, String path, String content) {
    try (FileOutStream out =
        fs.create(path, new WriteOptions(true, UserKeys.WriteType.THROUGH, 0))) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    }
  }
}
