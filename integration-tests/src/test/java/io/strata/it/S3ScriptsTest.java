package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.strata.testkit.ScriptConf;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The S3 endpoint that {@code bin/strata-start.sh local} starts, used by the clients pipelines use
 * (boto3 and the AWS CLI, with their own defaults), and one namespace with the shell.
 */
class S3ScriptsTest {
  private static final Pattern ENDPOINT =
      Pattern.compile("S3 endpoint (http://[0-9.]+:\\d+), access keys in ([^\\s;]+)");

  /** The Python environment of the pipeline clients (PyArrow, s3fs), made by .ci/run. */
  static final Path PIPELINES =
      Path.of(System.getProperty("user.home"), ".cache", "strata", "pipelines");

  // One cluster for every client: each start is seconds of the suite's time.
  @TempDir static Path work;
  private static Scripts scripts;
  private static String endpoint;
  private static String access;
  private static String secret;

  @BeforeAll
  static void startCluster() throws Exception {
    ScriptConf site =
        ScriptConf.create(Scripts.ROOT, work, "strata.worker.page.store.mem.size=64MiB");
    scripts = new Scripts(site);
    Scripts.Result start = scripts.run("bin/strata-start.sh", "local");
    assertThat(start.code()).as(start.out()).isZero();
    Matcher m = ENDPOINT.matcher(start.out());
    assertThat(m.find()).as("the ready line names the endpoint: %s", start.out()).isTrue();
    endpoint = m.group(1);
    Path keys = Path.of(m.group(2));
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(keys)))
        .isEqualTo("rw-------");
    String pair =
        Files.readAllLines(keys).stream().filter(l -> !l.startsWith("#")).findFirst().orElseThrow();
    access = pair.substring(0, pair.indexOf(':'));
    secret = pair.substring(pair.indexOf(':') + 1);
  }

  @AfterAll
  static void stop() throws Exception {
    if (scripts != null) {
      Scripts.Result stop = scripts.run("bin/strata-stop.sh");
      assertThat(stop.out()).contains("stopped s3");
    }
  }

  @Test
  void boto3_withItsDefaults() throws Exception {
    Scripts.Result probe = scripts.run("python3", "-c", "import boto3");
    assumeThat(probe.code())
        .as("boto3 is missing (apt-get install python3-boto3): %s", probe.out())
        .isZero();
    Path check = Path.of("src/test/resources/s3/boto3_check.py").toAbsolutePath();
    Scripts.Result r = scripts.run("python3", check.toString(), endpoint, access, secret);
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(r.out()).contains("boto3 checks passed");
    // One namespace: what boto3 wrote, the shell reads.
    Scripts.Result ls = scripts.run("bin/strata", "fs", "ls", "/boto/dir");
    assertThat(ls.out()).contains("one.bin");
  }

  /**
   * Issue 56: PyArrow's S3 file system and fsspec's s3fs, as pipelines use them, write and read a
   * Parquet dataset through the endpoint; the shell sees the same files. Their Python environment
   * is the one {@code .ci/run} makes ({@link #PIPELINES}), apart from the system's boto3.
   */
  @Test
  void pyarrowAndS3fs_writeAndReadAParquetDataset() throws Exception {
    Path python = PIPELINES.resolve("bin/python");
    Scripts.Result probe =
        Files.isExecutable(python)
            ? scripts.run(python.toString(), "-c", "import pyarrow, s3fs")
            : null;
    assumeThat(probe != null && probe.code() == 0)
        .as(
            "PyArrow and s3fs are missing: python3 -m venv %s && %s/bin/pip install pyarrow s3fs"
                + " (.ci/run does it)",
            PIPELINES, PIPELINES)
        .isTrue();
    Path check = Path.of("src/test/resources/s3/pipelines_check.py").toAbsolutePath();
    Scripts.Result r =
        scripts.run(python.toString(), check.toString(), endpoint, access, secret, "pipelines");
    assertThat(r.code()).as(r.out()).isZero();
    assertThat(r.out()).contains("pipelines checks passed: 20000 rows in 10 files");
    Scripts.Result ls = scripts.run("bin/strata", "fs", "ls", "/pipelines/features/label=3");
    assertThat(ls.out()).as(ls.out()).contains(".parquet");
    assertThat(scripts.run("bin/strata", "fs", "cat", "/pipelines/from-fsspec.txt").out())
        .isEqualTo("written by s3fs");
  }

  @Test
  void awsCli_copiesListsAndRemoves() throws Exception {
    assumeThat(FuseHost.onPath("aws"))
        .as("the AWS CLI is missing (apt-get install awscli)")
        .isTrue();
    Map<String, String> env =
        Map.of(
            "AWS_ACCESS_KEY_ID",
            access,
            "AWS_SECRET_ACCESS_KEY",
            secret,
            "AWS_DEFAULT_REGION",
            "us-east-1",
            "AWS_CONFIG_FILE",
            work.resolve("aws-config").toString(),
            "AWS_SHARED_CREDENTIALS_FILE",
            work.resolve("aws-credentials").toString());
    Path file = work.resolve("hello.txt");
    Files.writeString(file, "hello through the AWS CLI\n");
    assertThat(aws(env, "s3", "mb", "s3://cli").code()).isZero();
    Scripts.Result cp = aws(env, "s3", "cp", file.toString(), "s3://cli/in/hello.txt");
    assertThat(cp.code()).as(cp.out()).isZero();
    Scripts.Result ls = aws(env, "s3", "ls", "s3://cli/in/");
    assertThat(ls.out()).as(ls.out()).contains("hello.txt");
    Scripts.Result cat = aws(env, "s3", "cp", "s3://cli/in/hello.txt", "-");
    assertThat(cat.out()).isEqualTo("hello through the AWS CLI\n");
    assertThat(scripts.run("bin/strata", "fs", "cat", "/cli/in/hello.txt").out())
        .isEqualTo("hello through the AWS CLI\n");
    // Past the CLI's 8 MiB threshold: a multipart upload, parts in parallel.
    Path big = work.resolve("big.bin");
    byte[] bytes = new byte[20 << 20];
    new java.util.Random(3).nextBytes(bytes);
    Files.write(big, bytes);
    Scripts.Result up = aws(env, "s3", "cp", big.toString(), "s3://cli/big.bin");
    assertThat(up.code()).as(up.out()).isZero();
    Path back = work.resolve("back.bin");
    Scripts.Result down = aws(env, "s3", "cp", "s3://cli/big.bin", back.toString());
    assertThat(down.code()).as(down.out()).isZero();
    assertThat(Files.readAllBytes(back)).isEqualTo(bytes);
    assertThat(aws(env, "s3", "rm", "s3://cli/in/hello.txt").code()).isZero();
    Scripts.Result missing =
        aws(env, "s3api", "head-object", "--bucket", "cli", "--key", "in/hello.txt");
    assertThat(missing.code()).isNotZero();
    assertThat(missing.out()).contains("404");
  }

  private static Scripts.Result aws(Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new java.util.ArrayList<>(List.of("aws", "--endpoint-url", endpoint));
    cmd.addAll(List.of(args));
    return scripts.run(env, cmd.toArray(String[]::new));
  }
}
