package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.conf.SecurityKeys;
import io.strata.core.security.SecretFiles;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FUSE mount of a TOKEN-mode cluster (issue 25): the FUSE process proves itself with the cluster
 * secret on gRPC and on the data plane, and the kernel checks the local users' permissions ({@code
 * default_permissions}), so a local user without read permission on a file cannot read it through
 * the mount.
 */
class TokenModeFuseTest {
  @TempDir Path dir;
  @TempDir Path mnt;

  @Test
  void theMountServesItsUsers_asThePermissionBitsSay() throws Exception {
    FuseHost.assumeMountable();
    FuseHost.assumeOtherUsers();
    Path secret = SecretFiles.write(dir.resolve("secret"), SecretFiles.CLUSTER);
    try (ForkedCluster cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, secret.toString())
            .start()) {
      Path ufs = cluster.ufsRoot();
      Files.writeString(ufs.resolve("public.txt"), "for everyone\n");
      Files.setPosixFilePermissions(
          ufs.resolve("public.txt"), PosixFilePermissions.fromString("rw-r--r--"));
      Files.writeString(ufs.resolve("private.txt"), "root's only\n");
      Files.setPosixFilePermissions(
          ufs.resolve("private.txt"), PosixFilePermissions.fromString("rw-------"));
      ForkedProcess fuse = cluster.mountFuse(mnt, "/");
      try {
        assertThat(Files.readString(mnt.resolve("private.txt"))).isEqualTo("root's only\n");
        assertThat(FuseHost.asNobody("cat", mnt.resolve("public.txt").toString()))
            .isEqualTo("for everyone\n");
        assertThat(FuseHost.asNobody("cat", mnt.resolve("private.txt").toString()))
            .contains("Permission denied")
            .doesNotContain("root's only");
        Files.writeString(mnt.resolve("written.txt"), "through the mount\n");
        assertThat(Files.readString(ufs.resolve("written.txt"))).isEqualTo("through the mount\n");
      } finally {
        fuse.stop();
      }
    }
  }
}
