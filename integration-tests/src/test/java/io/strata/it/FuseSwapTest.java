package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.security.SecretFiles;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.ForkedProcess;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 78, high 3: a FUSE mount run as root (allow_other, default_permissions) serves two local
 * users, alice (4001) and mallory (4002), on a local store whose worker runs as root. The kernel
 * checks mallory's requests against attributes it cached (here for a minute); she swaps her own
 * folder for a link into alice's home through another path (the store itself), then, within that
 * minute, moves, writes and reads through the mount by the name the kernel still takes for her
 * folder. Every request ends at the store's refusal to follow a link on the way to an entry:
 * alice's files stay as they were.
 */
class FuseSwapTest {
  private static final int ALICE = 4001;
  private static final int MALLORY = 4002;

  @TempDir Path dir;
  @TempDir Path mnt;

  @Test
  void aFolderSwappedForALinkBehindTheKernelsBack_leadsNowhereThroughTheMount() throws Exception {
    FuseHost.assumeMountable();
    FuseHost.assumeOtherUsers();
    Path secret = SecretFiles.write(dir.resolve("secret"), SecretFiles.CLUSTER);
    try (ForkedCluster cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, secret.toString())
            // What a training mount sets: the kernel trusts what it looked up for a minute.
            .property(FuseKeys.ATTR_TIMEOUT, "60s")
            .property(FuseKeys.ENTRY_TIMEOUT, "60s")
            .start()) {
      Path ufs = cluster.ufsRoot();
      // Mallory reaches the store by its own path too: search on the folders above it.
      for (Path p = ufs; p.getNameCount() > 1; p = p.getParent()) {
        Set<PosixFilePermission> bits = Files.getPosixFilePermissions(p);
        bits.add(PosixFilePermission.OTHERS_EXECUTE);
        Files.setPosixFilePermissions(p, bits);
      }
      folder(ufs.resolve("home"), 0, "rwxr-xr-x");
      folder(ufs.resolve("home/ali"), ALICE, "rwxr-xr-x");
      file(ufs.resolve("home/ali/.bashrc"), ALICE, "rw-r--r--", "alice's\n");
      file(ufs.resolve("home/ali/secret"), ALICE, "rw-------", "alice's only\n");
      folder(ufs.resolve("tmp"), 0, "rwxrwxrwx");
      folder(ufs.resolve("tmp/m"), MALLORY, "rwxr-xr-x");
      folder(ufs.resolve("tmp/m/d"), MALLORY, "rwxr-xr-x");
      file(ufs.resolve("tmp/m/x"), MALLORY, "rw-r--r--", "mallory's\n");
      file(ufs.resolve("tmp/m/d/secret"), MALLORY, "rw-r--r--", "decoy\n");
      ForkedProcess fuse = cluster.mountFuse(mnt, "/");
      try {
        Path d = mnt.resolve("tmp/m/d");
        // The kernel looks up her folder and a file in it, as hers: cached for a minute.
        assertThat(asMallory("stat", "-c", "%u %F", d.toString()).out())
            .isEqualTo(MALLORY + " directory\n");
        assertThat(asMallory("cat", d.resolve("secret").toString()).out()).isEqualTo("decoy\n");

        // Through the store, not the mount: her folder becomes a link to alice's home.
        FuseHost.Run swap =
            FuseHost.as(
                MALLORY, ufs, "sh", "-c", "mv tmp/m/d tmp/m/d.old && ln -s ../../home/ali tmp/m/d");
        assertThat(swap.code()).as(swap.out()).isZero();

        FuseHost.Run moved =
            asMallory("mv", mnt.resolve("tmp/m/x").toString(), d.resolve(".bashrc").toString());
        FuseHost.Run written = asMallory("sh", "-c", "echo evil > " + d.resolve(".bashrc"));
        FuseHost.Run read = asMallory("cat", d.resolve("secret").toString());
        FuseHost.Run made = asMallory("mkdir", d.resolve("planted").toString());

        assertThat(moved.code()).as("mv into the swapped folder: %s", moved.out()).isNotZero();
        assertThat(written.code()).as("a write into it: %s", written.out()).isNotZero();
        assertThat(read.out()).as("a read through it").doesNotContain("alice's only");
        assertThat(made.code()).as("a mkdir in it: %s", made.out()).isNotZero();
        assertThat(Files.readString(ufs.resolve("home/ali/.bashrc"))).isEqualTo("alice's\n");
        assertThat(Files.getAttribute(ufs.resolve("home/ali/.bashrc"), "unix:uid"))
            .isEqualTo(ALICE);
        assertThat(Files.readString(ufs.resolve("home/ali/secret"))).isEqualTo("alice's only\n");
        try (Stream<Path> home = Files.list(ufs.resolve("home/ali"))) {
          assertThat(home.map(p -> p.getFileName().toString()))
              .containsExactlyInAnyOrder(".bashrc", "secret");
        }
        assertThat(Files.isSymbolicLink(ufs.resolve("tmp/m/d"))).isTrue();

        // The mount still serves: what mallory may do, she does.
        FuseHost.Run own = asMallory("sh", "-c", "echo fine > tmp/m/d.old/mine");
        assertThat(own.code()).as(own.out()).isZero();
        assertThat(Files.readString(ufs.resolve("tmp/m/d.old/mine"))).isEqualTo("fine\n");
      } finally {
        fuse.stop();
      }
    }
  }

  /** {@code cmd} as mallory, in the mount's root. */
  private FuseHost.Run asMallory(String... cmd) throws Exception {
    return FuseHost.as(MALLORY, mnt, cmd);
  }

  private static void folder(Path p, int uid, String mode) throws Exception {
    Files.createDirectories(p);
    own(p, uid, mode);
  }

  private static void file(Path p, int uid, String mode, String content) throws Exception {
    Files.writeString(p, content);
    own(p, uid, mode);
  }

  private static void own(Path p, int uid, String mode) throws Exception {
    Files.setAttribute(p, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(p, "unix:gid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
  }
}
