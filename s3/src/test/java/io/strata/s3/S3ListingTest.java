package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.testkit.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.ListBucketsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Issue 56, listings at any size: a bucket whose folders hold more entries than the endpoint asks
 * its worker for at once (it reads a folder a page at a time and never whole) lists every key once,
 * in S3's order, through pages, markers, prefixes and delimiters, with AWS's own client.
 */
class S3ListingTest {
  @TempDir static Path conf;

  private static MiniCluster cluster;
  private static S3Process endpoint;
  private static S3Client s3;

  /** Every key of the bucket "big", in S3's order. */
  private static final List<String> KEYS = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().start();
    // 2,508 entries in the bucket's top folder (the endpoint asks for 1,000 at a time), with
    // names whose order differs between names and keys (the folder "n" sorts as "n/", after "n-1"
    // and "n.2", before "n0"), written
    // into the under-storage directly, as a data set already there is.
    Path bucket = cluster.ufsRoot().resolve("big");
    for (int i = 0; i < 2_500; i++) {
      write(bucket, String.format("k%05d", i));
    }
    for (String name : List.of("n-1", "n.2", "n0", "m-/x", "o")) {
      write(bucket, name);
    }
    for (int i = 0; i < 50; i++) {
      write(bucket, String.format("n/%03d", i));
      write(bucket, String.format("n-1.d/%03d", i));
    }
    KEYS.sort(S3Order::compare);
    endpoint = TestEndpoints.start(cluster.clientConf(), conf);
    s3 = TestEndpoints.client(endpoint);
  }

  private static void write(Path bucket, String key) throws Exception {
    Path f = bucket.resolve(key);
    Files.createDirectories(f.getParent());
    Files.writeString(f, key);
    KEYS.add(key);
  }

  @AfterAll
  static void stop() throws Exception {
    TestEndpoints.close(s3, endpoint, cluster);
  }

  private static List<String> keys(ListObjectsV2Response r) {
    return r.contents().stream().map(S3Object::key).toList();
  }

  @Test
  void everyKey_onceAndInOrder_throughPagesOfAnySize() {
    for (int maxKeys : List.of(1000, 333)) {
      List<String> listed =
          s3.listObjectsV2Paginator(l -> l.bucket("big").maxKeys(maxKeys)).contents().stream()
              .map(S3Object::key)
              .toList();
      assertThat(listed).as("max-keys %d", maxKeys).isEqualTo(KEYS);
    }
  }

  @Test
  void fromAMarker_withAPrefix_andWithTheDelimiter() {
    String marker = "k01234";
    assertThat(keys(s3.listObjectsV2(l -> l.bucket("big").startAfter(marker).maxKeys(1000))))
        .isEqualTo(KEYS.subList(KEYS.indexOf(marker) + 1, KEYS.indexOf(marker) + 1001));
    // A marker inside a folder whose name sorts before names that sort before its key.
    assertThat(keys(s3.listObjectsV2(l -> l.bucket("big").startAfter("n-1.d/048").maxKeys(5))))
        .containsExactly("n-1.d/049", "n.2", "n/000", "n/001", "n/002");
    assertThat(keys(s3.listObjectsV2(l -> l.bucket("big").prefix("n").maxKeys(1000))))
        .isEqualTo(KEYS.stream().filter(k -> k.startsWith("n")).toList());

    ListObjectsV2Response top =
        s3.listObjectsV2(l -> l.bucket("big").prefix("m").delimiter("/").maxKeys(1000));
    assertThat(top.commonPrefixes().stream().map(CommonPrefix::prefix)).containsExactly("m-/");
    List<String> tail = new ArrayList<>();
    List<String> prefixes = new ArrayList<>();
    s3.listObjectsV2Paginator(l -> l.bucket("big").startAfter("k02499").delimiter("/").maxKeys(2))
        .forEach(
            page -> {
              tail.addAll(keys(page));
              page.commonPrefixes().forEach(p -> prefixes.add(p.prefix()));
            });
    assertThat(tail).containsExactly("n-1", "n.2", "n0", "o");
    assertThat(prefixes).containsExactly("m-/", "n-1.d/", "n/");
  }

  /**
   * ListBuckets in pages, as S3 has taken {@code prefix}, {@code max-buckets} and a continuation
   * token since 2024: every bucket of the prefix once, in name order; a count out of 1-10,000
   * refused as AWS refuses it.
   */
  @Test
  void buckets_byPrefix_inPages() {
    for (String b : List.of("pg-c", "pg-a", "pg-b", "other")) {
      s3.createBucket(c -> c.bucket(b));
    }
    ListBucketsResponse first = s3.listBuckets(l -> l.prefix("pg-").maxBuckets(2));
    assertThat(first.buckets().stream().map(Bucket::name)).containsExactly("pg-a", "pg-b");
    assertThat(first.prefix()).isEqualTo("pg-");
    assertThat(first.continuationToken()).isNotNull();
    ListBucketsResponse second =
        s3.listBuckets(
            l -> l.prefix("pg-").maxBuckets(2).continuationToken(first.continuationToken()));
    assertThat(second.buckets().stream().map(Bucket::name)).containsExactly("pg-c");
    assertThat(second.continuationToken()).isNull();
    assertThat(s3.listBuckets().buckets().stream().map(Bucket::name))
        .contains("big", "other", "pg-a", "pg-b", "pg-c")
        .isSorted();

    for (int wrong : List.of(0, 10_001)) {
      assertThatThrownBy(() -> s3.listBuckets(l -> l.maxBuckets(wrong)))
          .isInstanceOfSatisfying(
              S3Exception.class,
              e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument"));
    }
  }
}
