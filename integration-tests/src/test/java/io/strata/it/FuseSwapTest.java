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
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 78, high 3: a FUSE mount run as root (allow_other, default_permissions) serves two local
 * users, alice (4001) and mallory (4002), on a local store whose worker runs as root. The kernel
 * checks mallory's requests against attributes and names it cached (here for a minute); she changes
 * the store behind its back (through the store itself, as another mount or host would), then,
 * within that minute, acts through the mount on what the kernel still takes for hers or for
 * nothing. Every request ends at a refusal: alice's files stay as they were. Each attack runs on
 * both engines (jnr-fuse and Strata's own loop), each on a mount of its own over one cluster.
 */
class FuseSwapTest {
  private static final int ALICE = 4001;
  private static final int MALLORY = 4002;

  @TempDir static Path dir;

  private static ForkedCluster cluster;
  private static Path ufs;
  private static final Map<String, Path> mounts = new HashMap<>();
  private static final Map<String, ForkedProcess> fuses = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    FuseHost.assumeMountable();
    FuseHost.assumeOtherUsers();
    Path secret = SecretFiles.write(dir.resolve("secret"), SecretFiles.CLUSTER);
    // The users reach their mounts in this folder.
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    cluster =
        ForkedCluster.builder()
            .masters(1)
            .workers(1)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, secret.toString())
            // What a training mount sets: the kernel trusts what it looked up for a minute.
            .property(FuseKeys.ATTR_TIMEOUT, "60s")
            .property(FuseKeys.ENTRY_TIMEOUT, "60s")
            .start();
    ufs = cluster.ufsRoot();
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
    // Java sets no sticky bit.
    assertThat(new ProcessBuilder("chmod", "1777", ufs.resolve("tmp").toString()).start().waitFor())
        .isZero();
  }

  @AfterAll
  static void stop() throws Exception {
    for (ForkedProcess fuse : fuses.values()) {
      fuse.stop();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"jnr", "strata"})
  void aFolderSwappedForALinkBehindTheKernelsBack_leadsNowhereThroughTheMount(String engine)
      throws Exception {
    Path mnt = mount(engine);
    String m = "tmp/swap-" + engine;
    folder(ufs.resolve(m), MALLORY, "rwxr-xr-x");
    folder(ufs.resolve(m + "/d"), MALLORY, "rwxr-xr-x");
    file(ufs.resolve(m + "/x"), MALLORY, "rw-r--r--", "mallory's\n");
    file(ufs.resolve(m + "/d/secret"), MALLORY, "rw-r--r--", "decoy\n");
    Path d = mnt.resolve(m + "/d");
    // The kernel looks up her folder and a file in it, as hers: cached for a minute.
    assertThat(asMallory(mnt, "stat", "-c", "%u %F", d.toString()).out())
        .isEqualTo(MALLORY + " directory\n");
    assertThat(asMallory(mnt, "cat", d.resolve("secret").toString()).out()).isEqualTo("decoy\n");

    // Through the store, not the mount: her folder becomes a link to alice's home.
    onStore("mv " + m + "/d " + m + "/d.old && ln -s ../../home/ali " + m + "/d");

    FuseHost.Run moved =
        asMallory(mnt, "mv", mnt.resolve(m + "/x").toString(), d.resolve(".bashrc").toString());
    FuseHost.Run written = asMallory(mnt, "sh", "-c", "echo evil > " + d.resolve(".bashrc"));
    FuseHost.Run read = asMallory(mnt, "cat", d.resolve("secret").toString());
    FuseHost.Run made = asMallory(mnt, "mkdir", d.resolve("planted").toString());

    assertThat(moved.code()).as("mv into the swapped folder: %s", moved.out()).isNotZero();
    assertThat(written.code()).as("a write into it: %s", written.out()).isNotZero();
    assertThat(read.out()).as("a read through it").doesNotContain("alice's only");
    assertThat(made.code()).as("a mkdir in it: %s", made.out()).isNotZero();
    assertAlicesHomeUnchanged();
    assertThat(Files.isSymbolicLink(ufs.resolve(m + "/d"))).isTrue();

    // The mount still serves: what mallory may do, she does.
    FuseHost.Run own = asMallory(mnt, "sh", "-c", "echo fine > " + m + "/d.old/mine");
    assertThat(own.code()).as(own.out()).isZero();
    assertThat(Files.readString(ufs.resolve(m + "/d.old/mine"))).isEqualTo("fine\n");
  }

  /**
   * The sticky folder's rule (only the owner of an entry may remove or replace it) on names the
   * kernel took for mallory's or for nothing: a file of hers that alice's replaced, and a name that
   * was free when the kernel looked and is alice's now.
   */
  @ParameterizedTest
  @ValueSource(strings = {"jnr", "strata"})
  void inAStickyFolder_alicesFilesAreNotMallorysToRemoveOrReplace_whateverTheKernelCached(
      String engine) throws Exception {
    Path mnt = mount(engine);
    String t = "tmp/" + engine + "-";
    file(ufs.resolve(t + "alice"), ALICE, "rw-r--r--", "alice's\n");
    file(ufs.resolve(t + "mine"), MALLORY, "rw-r--r--", "mallory's\n");
    file(ufs.resolve(t + "x"), MALLORY, "rw-r--r--", "mallory's x\n");
    file(ufs.resolve(t + "y"), MALLORY, "rw-r--r--", "mallory's y\n");
    // What the kernel knows: her own file, and a name with nothing under it.
    assertThat(asMallory(mnt, "cat", t + "mine").out()).isEqualTo("mallory's\n");
    assertThat(asMallory(mnt, "stat", t + "free").code()).isNotZero();

    // Where the kernel knows alice's file: it refuses by itself.
    assertThat(asMallory(mnt, "rm", "-f", t + "alice").code()).isNotZero();
    assertThat(asMallory(mnt, "mv", t + "x", t + "alice").code()).isNotZero();

    // Behind its back, through the store: her file goes, alice's takes its name and the free one.
    onStore("rm " + t + "mine");
    file(ufs.resolve(t + "mine"), ALICE, "rw-r--r--", "alice's mine\n");
    file(ufs.resolve(t + "free"), ALICE, "rw-r--r--", "alice's free\n");

    FuseHost.Run removed = asMallory(mnt, "rm", "-f", t + "mine");
    FuseHost.Run replaced = asMallory(mnt, "mv", t + "x", t + "free");
    FuseHost.Run over = asMallory(mnt, "mv", t + "y", t + "mine");
    FuseHost.Run chmod = asMallory(mnt, "chmod", "666", t + "mine");

    assertThat(Files.readString(ufs.resolve(t + "alice"))).isEqualTo("alice's\n");
    assertThat(Files.readString(ufs.resolve(t + "mine")))
        .as("rm: %s; mv over: %s", removed.out(), over.out())
        .isEqualTo("alice's mine\n");
    assertThat(Files.readString(ufs.resolve(t + "free")))
        .as("mv: %s", replaced.out())
        .isEqualTo("alice's free\n");
    for (String name : new String[] {"alice", "mine", "free"}) {
      assertThat(Files.getAttribute(ufs.resolve(t + name), "unix:uid")).isEqualTo(ALICE);
    }
    assertThat(Files.getPosixFilePermissions(ufs.resolve(t + "mine")))
        .as("chmod: %s", chmod.out())
        .isEqualTo(PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(removed.code()).isNotZero();
    assertThat(replaced.code()).isNotZero();
    assertThat(over.code()).isNotZero();
  }

  /**
   * Hard links to alice's private file: refused through the mount, and a file of mallory's that
   * became a link to it behind the kernel's back links the link, never alice's file.
   */
  @ParameterizedTest
  @ValueSource(strings = {"jnr", "strata"})
  void aHardLinkToAlicesFile_isNeverMade_evenByWayOfASwappedName(String engine) throws Exception {
    Path mnt = mount(engine);
    String m = "tmp/link-" + engine;
    folder(ufs.resolve(m), MALLORY, "rwxr-xr-x");
    file(ufs.resolve(m + "/f"), MALLORY, "rw-r--r--", "mallory's\n");
    assertThat(asMallory(mnt, "cat", m + "/f").out()).isEqualTo("mallory's\n");

    FuseHost.Run direct = asMallory(mnt, "ln", "home/ali/secret", m + "/direct");
    onStore("rm " + m + "/f && ln -s ../../home/ali/secret " + m + "/f");
    FuseHost.Run swapped = asMallory(mnt, "ln", m + "/f", m + "/swapped");
    FuseHost.Run read = asMallory(mnt, "cat", m + "/swapped");

    assertThat(direct.code()).as("ln of alice's file: %s", direct.out()).isNotZero();
    assertThat(Files.exists(ufs.resolve(m + "/direct"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    assertThat(Files.getAttribute(ufs.resolve("home/ali/secret"), "unix:nlink"))
        .as("ln by the swapped name: %s", swapped.out())
        .isEqualTo(1);
    assertThat(read.out()).doesNotContain("alice's only");
    assertAlicesHomeUnchanged();
  }

  /**
   * Writes through names the kernel took for mallory's files, that alice's replaced behind its
   * back: a truncating write, an append and a read-write open each end at a refusal, with alice's
   * bytes neither changed nor shown. What mallory may write she still writes, as POSIX has it: her
   * own file in a folder she may not write, and alice's file whose group she is in.
   */
  @ParameterizedTest
  @ValueSource(strings = {"jnr", "strata"})
  void aWriteThroughANameTheKernelTookForMallorys_actsAsMallory(String engine) throws Exception {
    Path mnt = mount(engine);
    String t = "tmp/w-" + engine + "-";
    for (String name : new String[] {"trunc", "append", "rw"}) {
      file(ufs.resolve(t + name), MALLORY, "rw-------", "mallory's\n");
      assertThat(asMallory(mnt, "cat", t + name).out()).isEqualTo("mallory's\n");
    }
    folder(ufs.resolve("srv"), 0, "rwxr-xr-x");
    file(ufs.resolve("srv/own-" + engine), MALLORY, "rw-r--r--", "old\n");
    file(ufs.resolve("srv/group-" + engine), ALICE, "rw-rw-r--", "alice's\n");
    Files.setAttribute(ufs.resolve("srv/group-" + engine), "unix:gid", MALLORY);
    // Set-user-id: a write by another than root takes it off, as the kernel's own writes do.
    assertThat(
            new ProcessBuilder("chmod", "4664", ufs.resolve("srv/group-" + engine).toString())
                .start()
                .waitFor())
        .isZero();

    onStore("rm " + t + "trunc " + t + "append " + t + "rw");
    for (String name : new String[] {"trunc", "append", "rw"}) {
      file(ufs.resolve(t + name), ALICE, "rw-------", "alice's only\n");
    }

    FuseHost.Run truncated = asMallory(mnt, "sh", "-c", "echo evil > " + t + "trunc");
    FuseHost.Run appended = asMallory(mnt, "sh", "-c", "echo evil >> " + t + "append");
    FuseHost.Run readWrite = asMallory(mnt, "sh", "-c", "cat <> " + t + "rw");
    for (String name : new String[] {"trunc", "append", "rw"}) {
      assertThat(Files.readString(ufs.resolve(t + name)))
          .as("%s: %s / %s", name, truncated.out(), appended.out())
          .isEqualTo("alice's only\n");
      assertThat(Files.getAttribute(ufs.resolve(t + name), "unix:uid")).isEqualTo(ALICE);
    }
    assertThat(readWrite.out()).doesNotContain("alice's only");

    FuseHost.Run own = asMallory(mnt, "sh", "-c", "echo new > srv/own-" + engine);
    FuseHost.Run group = asMallory(mnt, "sh", "-c", "echo mallorys > srv/group-" + engine);
    assertThat(own.code()).as(own.out()).isZero();
    assertThat(group.code()).as(group.out()).isZero();
    assertThat(Files.readString(ufs.resolve("srv/own-" + engine))).isEqualTo("new\n");
    assertThat(Files.readString(ufs.resolve("srv/group-" + engine))).isEqualTo("mallorys\n");
    assertThat(Files.getAttribute(ufs.resolve("srv/group-" + engine), "unix:uid")).isEqualTo(ALICE);
    assertThat((int) Files.getAttribute(ufs.resolve("srv/group-" + engine), "unix:mode") & 07777)
        .isEqualTo(0664);
    assertThat(Files.getAttribute(ufs.resolve("srv/own-" + engine), "unix:uid")).isEqualTo(MALLORY);
  }

  private static void assertAlicesHomeUnchanged() throws Exception {
    assertThat(Files.readString(ufs.resolve("home/ali/.bashrc"))).isEqualTo("alice's\n");
    assertThat(Files.getAttribute(ufs.resolve("home/ali/.bashrc"), "unix:uid")).isEqualTo(ALICE);
    assertThat(Files.readString(ufs.resolve("home/ali/secret"))).isEqualTo("alice's only\n");
    assertThat(Files.getAttribute(ufs.resolve("home/ali/secret"), "unix:nlink")).isEqualTo(1);
    try (Stream<Path> home = Files.list(ufs.resolve("home/ali"))) {
      assertThat(home.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder(".bashrc", "secret");
    }
  }

  /** The mount of {@code engine} over the cluster's root, made on first use. */
  private static Path mount(String engine) throws Exception {
    if (!mounts.containsKey(engine)) {
      Path mnt = Files.createDirectories(dir.resolve("mnt-" + engine));
      fuses.put(engine, cluster.mountFuse(mnt, "/", Map.of(FuseKeys.ENGINE.name(), engine)));
      mounts.put(engine, mnt);
    }
    return mounts.get(engine);
  }

  /** A shell command run as mallory in the store's root, as she could from another host. */
  private static void onStore(String command) throws Exception {
    FuseHost.Run run = FuseHost.as(MALLORY, ufs, "sh", "-c", command);
    assertThat(run.code()).as(run.out()).isZero();
  }

  /** {@code cmd} as mallory, in the mount's root. */
  private static FuseHost.Run asMallory(Path mnt, String... cmd) throws Exception {
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
