package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.strata.testkit.ScriptConf;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A FUSE mount's life through the real scripts and its own process: {@code strata fuse
 * mount|list|unmount}, {@code strata-start.sh fuse}, {@code strata-stop.sh}, a crash (kill -9)
 * leaving a stale mount that the next mount clears, and SIGTERM unmounting cleanly.
 */
class FuseScriptsTest {
  @TempDir Path work;
  private Scripts scripts;
  private Path mnt;
  private String name;
  private ScriptConf site;

  @BeforeEach
  void startCluster() throws Exception {
    FuseHost.assumeMountable();
    site =
        ScriptConf.create(
            Scripts.ROOT,
            work,
            "strata.worker.page.store.mem.size=64MiB",
            "strata.fuse.web.port=0");
    scripts = new Scripts(site);
    Files.createDirectories(work.resolve("ufs/data"));
    Files.writeString(work.resolve("ufs/data/hello.txt"), "hello through the scripts\n");
    mnt = Files.createDirectories(work.resolve("mnt"));
    name = "fuse" + mnt.toString().replace('/', '_');
    Scripts.Result start = scripts.run("bin/strata-start.sh", "local");
    assertThat(start.code()).as(start.out()).isZero();
  }

  @AfterEach
  void stopEverything() throws Exception {
    if (scripts == null) {
      return;
    }
    scripts.run("bin/strata-stop.sh");
    if (Files.readString(Path.of("/proc/mounts")).contains(" " + mnt + " ")) {
      new ProcessBuilder("fusermount", "-u", "-z", mnt.toString()).start().waitFor();
    }
  }

  @Test
  void mountListCrashRemountTerminateUnmount_leaveNoMountBehind() throws Exception {
    Scripts.Result mount = scripts.run("bin/strata", "fuse", "mount", mnt.toString(), "/data");
    assertThat(mount.code()).as(mount.out()).isZero();
    assertThat(mount.out()).contains(name + " started", "strata:/data mounted on " + mnt);
    assertThat(mnt.resolve("hello.txt")).hasContent("hello through the scripts");
    // Issue 54: local mode's mount holds the cluster secret; every account of the host reaches
    // its web port on loopback, so thread dumps ask for an administrator's (or service's) token.
    java.util.regex.Matcher web =
        java.util.regex.Pattern.compile("web (\\d+)").matcher(mount.out());
    assertThat(web.find()).as(mount.out()).isTrue();
    assertThat(stacks(Integer.parseInt(web.group(1)), null).statusCode()).isEqualTo(401);
    // As root, the mount is served by Strata's own FUSE loop (the default engine): its threads.
    assertThat(stacks(Integer.parseInt(web.group(1)), site.metricsAuthorization()).body())
        .contains("fuse-kernel-");
    assertThat(scripts.run("bin/strata", "fuse", "list").out())
        .containsPattern(mnt + " +strata:/data +rw +ok");
    // What the kernel asked of it (issue 79), from the mount's own /metrics: a read-write mount
    // passes nothing through.
    Scripts.Result stat = scripts.run("bin/strata", "fuse", "stat", mnt.toString());
    assertThat(stat.code()).as(stat.out()).isZero();
    assertThat(stat.out())
        .contains("Strata's own FUSE loop", "opens passed through: 0")
        .containsPattern("(?m)^lookup +[1-9]");
    assertThat(scripts.run("bin/strata", "fuse", "stat", mnt.toString(), "--json").out())
        .contains("\"engine\":\"strata\"", "\"lookup\":", "\"passthrough_opens\":0");
    Scripts.Result noMount = scripts.run("bin/strata", "fuse", "stat", work.toString());
    assertThat(noMount.code()).isNotZero();
    assertThat(noMount.out().strip())
        .startsWith("strata: NOT_FOUND: " + work + " is not a mount this host's scripts started");
    Scripts.Result twice = scripts.run("bin/strata", "fuse", "mount", mnt.toString(), "/data");
    assertThat(twice.code()).as(twice.out()).isZero();
    assertThat(twice.out().strip()).startsWith(mnt + " is already mounted (pid ");
    assertThat(twice.out()).doesNotContain("started");

    // A crash leaves the mount behind: listed as stale, every call fails (no hang), and the next
    // mount on the folder clears it.
    long crashed = scripts.pid(name);
    new ProcessBuilder("kill", "-KILL", String.valueOf(crashed)).start().waitFor();
    await().atMost(Duration.ofSeconds(10)).until(() -> !Scripts.running(crashed));
    assertThat(scripts.run("bin/strata", "fuse", "list").out()).contains(mnt.toString(), "stale");
    assertThatThrownBy(() -> Files.readString(mnt.resolve("hello.txt")))
        .isInstanceOf(IOException.class);
    Scripts.Result again = scripts.run("bin/strata-start.sh", "fuse", mnt.toString(), "/data");
    assertThat(again.code()).as(again.out()).isZero();
    assertThat(mnt.resolve("hello.txt")).hasContent("hello through the scripts");
    assertThat(work.resolve("logs/" + name + ".log"))
        .content()
        .contains("left by a process that died");

    // SIGTERM (a container's stop, systemd) unmounts before the process ends.
    long running = scripts.pid(name);
    new ProcessBuilder("kill", "-TERM", String.valueOf(running)).start().waitFor();
    await().atMost(Duration.ofSeconds(30)).until(() -> !Scripts.running(running));
    assertThat(Files.readString(Path.of("/proc/mounts"))).doesNotContain(" " + mnt + " ");

    assertThat(scripts.run("bin/strata", "fuse", "mount", mnt.toString(), "/data").code()).isZero();
    Scripts.Result unmount = scripts.run("bin/strata", "fuse", "unmount", mnt.toString());
    assertThat(unmount.code()).as(unmount.out()).isZero();
    assertThat(unmount.out()).contains("stopped " + name);
    assertThat(Files.readString(Path.of("/proc/mounts"))).doesNotContain(" " + mnt + " ");
    assertNotListed();
    Scripts.Result notMounted = scripts.run("bin/strata", "fuse", "unmount", mnt.toString());
    assertThat(notMounted.code()).isNotZero();
    assertThat(notMounted.out().strip())
        .isEqualTo("strata: NOT_FOUND: " + mnt + " is not a Strata mount");
  }

  private static java.net.http.HttpResponse<String> stacks(int port, String authorization)
      throws Exception {
    var get =
        java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + port + "/stacks"))
            .timeout(Duration.ofSeconds(10));
    if (authorization != null) {
      get.header("Authorization", authorization);
    }
    return java.net.http.HttpClient.newHttpClient()
        .send(get.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  /**
   * mount(8)'s way in ({@code mount -t fuse.strata} runs the helper so), with FUSE options; and an
   * unknown option refused in one line, by the helper and by {@code strata fuse mount} alike.
   */
  @Test
  void theMountHelperAndDashO_takeOptionsAsFuseFileSystemsDo() throws Exception {
    Scripts.Result helper =
        scripts.run(
            "bin/mount.fuse.strata",
            "strata:/data",
            mnt.toString(),
            "-o",
            "ro,attr_timeout=2,immutable,nosuid,_netdev");
    assertThat(helper.code()).as(helper.out()).isZero();
    assertThat(mnt.resolve("hello.txt")).hasContent("hello through the scripts");
    assertThat(Files.readAllLines(Path.of("/proc/mounts")))
        .anySatisfy(l -> assertThat(l).contains(" " + mnt + " fuse.strata ro,nosuid"));
    assertThatThrownBy(() -> Files.writeString(mnt.resolve("new.txt"), "x"))
        .hasMessageContaining("Read-only file system");
    assertThat(scripts.run("bin/strata", "fuse", "unmount", mnt.toString()).code()).isZero();

    Scripts.Result unknown =
        scripts.run("bin/strata", "fuse", "mount", mnt.toString(), "/data", "-o", "ro,turbo");
    assertThat(unknown.code()).isNotZero();
    assertThat(unknown.out().strip())
        .startsWith("strata: INVALID_ARGUMENT: unknown mount option 'turbo' (known: ro, rw,")
        .doesNotContain("\n");
    assertThat(Files.readString(Path.of("/proc/mounts"))).doesNotContain(" " + mnt + " ");
  }

  /** A host without libfuse 2 (hidden here in a mount namespace of this test's own). */
  @Test
  void withoutLibfuse_mountSaysWhatToInstall() throws Exception {
    Path lib = Path.of("/usr/lib/x86_64-linux-gnu/libfuse.so.2").toRealPath();
    String hide = "mount --bind /dev/null " + lib + " && exec \"$@\"";
    Scripts.Result mount =
        scripts.run(
            "unshare",
            "--mount",
            "--propagation",
            "private",
            "bash",
            "-c",
            hide,
            "hide",
            "bin/strata",
            "fuse",
            "mount",
            mnt.toString());
    assertThat(mount.code()).isNotZero();
    assertThat(mount.out().strip().lines())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .startsWith("strata: FAILED_PRECONDITION: libfuse 2 cannot be loaded")
        .contains("apt-get install fuse libfuse2");
    assertThat(Files.readString(Path.of("/proc/mounts"))).doesNotContain(" " + mnt + " ");
  }

  @Test
  void mountingOnABusyOrMissingFolder_failsWithOneClearLine() throws Exception {
    Files.writeString(mnt.resolve("already-here.txt"), "x");
    Scripts.Result busy = scripts.run("bin/strata", "fuse", "mount", mnt.toString());
    assertThat(busy.code()).isNotZero();
    assertThat(busy.out().strip())
        .isEqualTo("strata: INVALID_ARGUMENT: mount point " + mnt + " is not empty");

    Scripts.Result missing =
        scripts.run("bin/strata", "fuse", "mount", work.resolve("nowhere").toString());
    assertThat(missing.code()).isNotZero();
    assertThat(missing.out().strip())
        .isEqualTo(
            "strata: NOT_FOUND: mount point "
                + work.resolve("nowhere")
                + " does not exist or is not a folder");
    assertNotListed();
  }

  /**
   * {@code fuse list} no longer shows this test's mount. Other Strata mounts of the host (another
   * suite's, on a shared machine) may be listed, so "no Strata mounts" is only expected when the
   * kernel lists none.
   */
  private void assertNotListed() throws Exception {
    String list = scripts.run("bin/strata", "fuse", "list").out();
    assertThat(list).doesNotContain(mnt.toString());
    if (!Files.readString(Path.of("/proc/mounts")).contains(" fuse.strata ")) {
      assertThat(list).contains("no Strata mounts");
    }
  }
}
