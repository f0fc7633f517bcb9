package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.testkit.MiniCluster;
import io.strata.worker.WorkerMetrics;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ReadThroughCacheTest {
  private static MiniCluster cluster;
  private static FileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().workers(1).start();
    fs = cluster.fileSystem();
  }

  @AfterAll
  static void stop() {
    fs.close();
    cluster.close();
  }

  @Test
  void write_thenReadTwice_secondReadServedFromCache() throws Exception {
    byte[] data = new byte[5 * 1024 * 1024 + 12345];
    new Random(42).nextBytes(data);
    try (FileOutStream out = fs.create("/data/file.bin", WriteOptions.DEFAULT)) {
      out.write(data);
    }
    assertThat(sha256(readAll("/data/file.bin"))).isEqualTo(sha256(data));
    double ufsAfterFirst = metric(WorkerMetrics.UFS_BYTES_READ);
    double cacheAfterFirst = cacheBytes();
    assertThat(sha256(readAll("/data/file.bin"))).isEqualTo(sha256(data));

    assertThat(metric(WorkerMetrics.UFS_BYTES_READ)).isEqualTo(ufsAfterFirst);
    assertThat(cacheBytes() - cacheAfterFirst).isEqualTo(data.length);
  }

  @Test
  void everyProcess_servesMetricsAndHealth() throws Exception {
    for (int port : new int[] {cluster.worker(0).webPort(), cluster.master(0).webPort()}) {
      assertThat(get(port, "/health")).isEqualTo("ok\n");
      assertThat(get(port, "/metrics"))
          .contains("strata_rpc_server_seconds_count", "jvm_memory_used_bytes");
      assertThat(get(port, "/stacks")).contains("\"main\"");
    }
    assertThat(get(cluster.worker(0).webPort(), "/metrics"))
        .contains(
            "strata_worker_cache_hit_ratio",
            "strata_worker_pages_cached",
            "strata_worker_bytes_read_total");
  }

  @Test
  void cacheThroughWrite_isServedFromTheCacheOnItsFirstRead() throws Exception {
    byte[] data = new byte[2 * 1024 * 1024 + 5];
    new Random(7).nextBytes(data);
    try (FileOutStream out =
        fs.create(
            "/data/cached.bin",
            new WriteOptions(false, io.strata.core.conf.UserKeys.WriteType.CACHE_THROUGH, 0))) {
      out.write(data);
    }
    double ufsBefore = metric(WorkerMetrics.UFS_BYTES_READ);
    assertThat(fs.getStatusWithCacheInfo("/data/cached.bin").cachedBytes()).isEqualTo(data.length);
    assertThat(sha256(readAll("/data/cached.bin"))).isEqualTo(sha256(data));
    assertThat(metric(WorkerMetrics.UFS_BYTES_READ)).isEqualTo(ufsBefore);
  }

  @Test
  void getStatus_ofMissingPath_failsWithNotFound() {
    assertThatThrownBy(() -> fs.getStatus("/no/such/file"))
        .isInstanceOfSatisfying(
            StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
    assertThatThrownBy(() -> fs.open("/no/such/file"))
        .isInstanceOfSatisfying(
            StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
  }

  @Test
  void listStatus_showsWrittenFiles() {
    fs.mkdir("/list", true);
    for (String name : new String[] {"b", "a", "c"}) {
      try (FileOutStream out = fs.create("/list/" + name, WriteOptions.DEFAULT)) {
        out.write(name.getBytes(StandardCharsets.UTF_8));
      }
    }
    assertThat(fs.listStatus("/list")).extracting(FileInfo::name).containsExactly("a", "b", "c");
  }

  private byte[] readAll(String path) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (FileInStream in = fs.open(path)) {
      in.transferTo(out);
    }
    return out.toByteArray();
  }

  private double metric(String name) {
    return cluster.worker(0).registry().get(name).counter().count();
  }

  private double cacheBytes() {
    return cluster
        .worker(0)
        .registry()
        .get(WorkerMetrics.BYTES_READ)
        .tag("source", "mem")
        .counter()
        .count();
  }

  private static String get(int port, String path) throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  private static String sha256(byte[] b) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
  }
}
