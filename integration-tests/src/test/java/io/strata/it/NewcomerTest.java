package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.base.Splitter;
import io.strata.testkit.ScriptConf;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 77: what a new user does first, on a clone where nothing was built, with a Maven local
 * repository that holds nothing of Strata whatever this machine's holds (an earlier {@code mvn
 * install} once hid a module the bin/ build could not make): {@code bin/strata-start.sh local}
 * builds and starts, then the README tour's core steps, then {@code bin/strata-stop.sh}. The
 * archive's path (unpacked, no Maven) is {@link DistributionArchiveTest}'s.
 */
class NewcomerTest {
  @TempDir Path work;
  private Scripts scripts;

  @AfterEach
  void stopAnyway() throws Exception {
    if (scripts != null) {
      scripts.run("bin/strata-stop.sh");
    }
  }

  @Test
  void freshClone_buildsAtTheFirstStart_andTheTourReadsFromTheCache() throws Exception {
    Path clone = cloneOfThisCheckout(work.resolve("clone"));
    ScriptConf site =
        ScriptConf.create(
            clone,
            work.resolve("site"),
            "strata.worker.page.store.mem.size=64MiB",
            "strata.fuse.web.port=0");
    scripts = new Scripts(site, clone);
    Map<String, String> maven =
        Map.of("MAVEN_OPTS", "-Dmaven.repo.local=" + repositoryWithoutStrata(work.resolve("m2")));

    Scripts.Result start =
        scripts.run(Duration.ofMinutes(8), maven, "bin/strata-start.sh", "local");
    assertThat(start.code()).as(start.out()).isZero();
    assertThat(start.out()).contains("Building Strata", "Local cluster ready");

    byte[] data = new byte[3_000_000];
    new Random(77).nextBytes(data);
    Path sample = Files.write(work.resolve("sample.bin"), data);
    Scripts.Result copy =
        scripts.run("bin/strata", "fs", "copyFromLocal", sample.toString(), "/datasets/sample.bin");
    assertThat(copy.code()).as(copy.out()).isZero();
    String expected = sha256(data);
    assertThat(catSha256("/datasets/sample.bin"))
        .as("first read, from the UFS")
        .isEqualTo(expected);
    assertThat(catSha256("/datasets/sample.bin")).as("second, from the cache").isEqualTo(expected);
    assertThat(scripts.run("bin/strata", "fs", "stat", "/datasets/sample.bin").out())
        .contains("cached:      3000000 bytes (100%)");

    if (FuseHost.mountable()) {
      Path mnt = Files.createDirectories(work.resolve("mnt"));
      Scripts.Result mount = scripts.run("bin/strata", "fuse", "mount", mnt.toString());
      assertThat(mount.code()).as(mount.out()).isZero();
      try (InputStream in = Files.newInputStream(mnt.resolve("datasets/sample.bin"))) {
        assertThat(sha256(in.readAllBytes())).as("through FUSE").isEqualTo(expected);
      }
    }

    Scripts.Result stop = scripts.run("bin/strata-stop.sh");
    assertThat(stop.code()).as(stop.out()).isZero();
    assertThat(stop.out()).contains("stopped worker", "stopped master");
    assertThat(Files.readString(Path.of("/proc/self/mountinfo")))
        .as("strata-stop.sh unmounts")
        .doesNotContain(work.resolve("mnt").toString());
    Assumptions.assumeTrue(
        FuseHost.mountable(), "the FUSE step needs /dev/fuse, fusermount and libfuse2");
  }

  /** The tracked files of this checkout, as a clone has them (with their changes in progress). */
  private static Path cloneOfThisCheckout(Path clone) throws Exception {
    Process ls = new ProcessBuilder("git", "-C", Scripts.ROOT.toString(), "ls-files", "-z").start();
    List<String> files =
        Splitter.on('\0')
            .omitEmptyStrings()
            .splitToList(new String(ls.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    Assumptions.assumeTrue(ls.waitFor() == 0, "needs a git checkout to copy from");
    for (String f : files) {
      Path target = clone.resolve(f);
      Files.createDirectories(target.getParent());
      Files.copy(Scripts.ROOT.resolve(f), target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    }
    return clone;
  }

  /**
   * A local repository for Maven as a machine that never built Strata has it: this machine's
   * (~/.m2/repository) seen through links, without io/strata. Third-party artifacts stay shared.
   */
  private static Path repositoryWithoutStrata(Path view) throws IOException {
    Files.createDirectories(view);
    Path real = Path.of(System.getProperty("user.home"), ".m2", "repository");
    linkAllBut(real, view, "io");
    linkAllBut(real.resolve("io"), Files.createDirectories(view.resolve("io")), "strata");
    return view;
  }

  private static void linkAllBut(Path from, Path into, String except) throws IOException {
    if (!Files.isDirectory(from)) {
      return;
    }
    try (Stream<Path> entries = Files.list(from)) {
      for (Path entry : entries.toList()) {
        if (!entry.getFileName().toString().equals(except)) {
          Files.createSymbolicLink(into.resolve(entry.getFileName().toString()), entry);
        }
      }
    }
  }

  private String catSha256(String path) throws Exception {
    Process p = scripts.start(Map.of(), "bin/strata", "fs", "cat", path);
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    return sha256(out);
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
