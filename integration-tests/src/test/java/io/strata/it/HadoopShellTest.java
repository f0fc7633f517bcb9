package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.conf.CommonKeys;
import io.strata.testkit.ForkedCluster;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded {@code strata://} jar as a user drops it in: alone beside Hadoop's client jars on the
 * class path of Hadoop's own shell ({@code hadoop fs}, i.e. {@code FsShell}), which finds the
 * scheme by the service loader. Nothing of Strata's own class path is there.
 */
class HadoopShellTest {
  @TempDir static Path dir;
  private static ForkedCluster cluster;
  private static String root;
  private static String masters;

  @BeforeAll
  static void start() throws Exception {
    cluster = ForkedCluster.builder().masters(1).workers(1).dir(dir.resolve("cluster")).start();
    masters = String.join(",", cluster.clientConf().get(CommonKeys.MASTER_RPC_ADDRESSES));
    root = "strata://" + masters;
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * A Hadoop client's conf folder (what {@code HADOOP_CONF_DIR} puts on the class path): the shell
   * wants a core-site.xml, and this one names the masters for {@code strata:///}.
   */
  private static Path confDir() throws IOException {
    Path conf = dir.resolve("hadoop-conf");
    Files.createDirectories(conf);
    Files.writeString(
        conf.resolve("core-site.xml"),
        "<?xml version=\"1.0\"?>\n<configuration>\n  <property>\n"
            + "    <name>strata.master.rpc.addresses</name>\n    <value>"
            + masters
            + "</value>\n  </property>\n</configuration>\n");
    return conf;
  }

  /**
   * The conf folder, the shaded jar the hadoop module packaged, and Hadoop's client jars from this
   * class path.
   */
  private static String classpath() throws IOException {
    Path target = Path.of("..", "hadoop", "target").toAbsolutePath().normalize();
    Path shaded;
    try (Stream<Path> jars = Files.list(target)) {
      shaded =
          jars.filter(p -> p.getFileName().toString().endsWith("-shaded.jar"))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "no shaded jar in " + target + ": run mvn -pl hadoop package first"));
    }
    List<String> cp = new ArrayList<>(List.of(confDir().toString(), shaded.toString()));
    Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(
            p ->
                Stream.of(
                        "hadoop-client-api",
                        "hadoop-client-runtime",
                        "slf4j-api",
                        "commons-logging")
                    .anyMatch(name -> Path.of(p).getFileName().toString().startsWith(name)))
        .forEach(cp::add);
    return String.join(File.pathSeparator, cp);
  }

  private static ShellRunner.Run hadoopFs(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // A command's JVM lives a second or two: the JIT's top tier and G1's threads only cost it CPU
    // (as for Strata's own shell, bin/strata-common.sh).
    cmd.addAll(List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData"));
    cmd.addAll(List.of("-cp", classpath(), "org.apache.hadoop.fs.FsShell"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("hadoop fs " + String.join(" ", args) + " did not end in 2 min");
    }
    return new ShellRunner.Run(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void hadoopsOwnShell_putsListsCatsGetsAndCountsThroughTheShadedJar() throws Exception {
    byte[] data = new byte[5 << 20];
    new Random(26).nextBytes(data);
    Path local = dir.resolve("local.bin");
    Files.write(local, data);

    ShellRunner.Run mkdir = hadoopFs("-mkdir", "-p", root + "/hd/dir");
    assertThat(mkdir.code()).as(mkdir.err()).isZero();
    ShellRunner.Run put = hadoopFs("-put", local.toString(), root + "/hd/dir/a.bin");
    assertThat(put.code()).as(put.err()).isZero();
    assertThat(Files.readAllBytes(cluster.ufsRoot().resolve("hd/dir/a.bin"))).isEqualTo(data);

    // Written into the under-storage itself, before anyone lists the folder through Strata.
    Files.writeString(cluster.ufsRoot().resolve("hd/dir/note.txt"), "written beside it");
    ShellRunner.Run ls = hadoopFs("-ls", root + "/hd/dir");
    assertThat(ls.code()).as(ls.err()).isZero();
    assertThat(ls.out()).contains("/hd/dir/a.bin", String.valueOf(data.length));

    Path got = dir.resolve("got.bin");
    ShellRunner.Run get = hadoopFs("-get", root + "/hd/dir/a.bin", got.toString());
    assertThat(get.code()).as(get.err()).isZero();
    assertThat(Files.readAllBytes(got)).isEqualTo(data);

    ShellRunner.Run cat = hadoopFs("-cat", root + "/hd/dir/note.txt");
    assertThat(cat.out()).isEqualTo("written beside it");

    ShellRunner.Run du = hadoopFs("-du", "-s", root + "/hd");
    assertThat(du.code()).as(du.err()).isZero();
    assertThat(du.out()).startsWith(String.valueOf(data.length + "written beside it".length()));

    // strata:/// with the masters from core-site.xml.
    ShellRunner.Run configured = hadoopFs("-ls", "strata:///hd/dir");
    assertThat(configured.code()).as(configured.err()).isZero();
    assertThat(configured.out()).contains("/hd/dir/note.txt");

    ShellRunner.Run rm = hadoopFs("-rm", "-r", root + "/hd");
    assertThat(rm.code()).as(rm.err()).isZero();
    assertThat(cluster.ufsRoot().resolve("hd")).doesNotExist();
    ShellRunner.Run missing = hadoopFs("-ls", root + "/hd");
    assertThat(missing.code()).isNotZero();
    assertThat(missing.err()).contains("No such file or directory");
  }
}
