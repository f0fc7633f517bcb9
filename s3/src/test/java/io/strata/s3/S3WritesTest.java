package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.client.FileSystem;
import io.strata.testkit.MiniCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Writes through the S3 endpoint: copies, multipart uploads (staged, paged listings, aborted),
 * bucket deletes, and the writes S3 refuses because their writer would believe something untrue.
 */
class S3WritesTest {
  @TempDir static Path conf;

  private static MiniCluster cluster;
  private static S3Process endpoint;
  private static S3Client s3;
  private static FileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().start();
    endpoint = TestEndpoints.start(cluster.clientConf(), conf);
    s3 = TestEndpoints.client(endpoint);
    fs = cluster.fileSystem();
  }

  @AfterAll
  static void stop() throws Exception {
    TestEndpoints.close(s3, endpoint, cluster);
  }

  /**
   * Folders that deleted keys left behind are no keys: the bucket deletes, its unfinished uploads
   * with it; one with a key does not.
   */
  @Test
  void aBucketOfEmptyFolders_isDeleted_oneWithAKeyIsNot() {
    s3.createBucket(b -> b.bucket("emptied"));
    s3.putObject(p -> p.bucket("emptied").key("a/b/c.txt"), RequestBody.fromString("c"));
    s3.putObject(p -> p.bucket("emptied").key("a/d.txt"), RequestBody.fromString("d"));
    s3.deleteObject(d -> d.bucket("emptied").key("a/b/c.txt"));
    assertThatThrownBy(() -> s3.deleteBucket(d -> d.bucket("emptied")))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BucketNotEmpty"));
    assertThat(s3.getObjectAsBytes(g -> g.bucket("emptied").key("a/d.txt")).asUtf8String())
        .isEqualTo("d");
    s3.deleteObject(d -> d.bucket("emptied").key("a/d.txt"));
    s3.createMultipartUpload(c -> c.bucket("emptied").key("unfinished"));
    s3.deleteBucket(d -> d.bucket("emptied"));
    assertThat(fs.exists("/emptied")).isFalse();
    // Its unfinished upload went with it: a new bucket of that name has none.
    s3.createBucket(b -> b.bucket("emptied"));
    assertThat(s3.listMultipartUploads(l -> l.bucket("emptied")).uploads()).isEmpty();
    s3.deleteBucket(d -> d.bucket("emptied"));
  }

  /**
   * Writes whose writer would believe something untrue are refused, as S3 refuses them: a part
   * copied from past the source's end (cut short, the object would be wrong), object lock on a
   * store that keeps none, a copy onto itself that changes nothing.
   */
  @Test
  void writesThatWouldMisleadTheirWriter_areRefused() {
    s3.createBucket(b -> b.bucket("strict"));
    s3.putObject(p -> p.bucket("strict").key("src"), RequestBody.fromString("0123456789"));
    String id = s3.createMultipartUpload(c -> c.bucket("strict").key("dst")).uploadId();
    assertS3Error(
        () ->
            s3.uploadPartCopy(
                u ->
                    u.sourceBucket("strict")
                        .sourceKey("src")
                        .copySourceRange("bytes=5-10")
                        .destinationBucket("strict")
                        .destinationKey("dst")
                        .uploadId(id)
                        .partNumber(1)),
        "InvalidArgument");
    s3.abortMultipartUpload(a -> a.bucket("strict").key("dst").uploadId(id));
    assertS3Error(
        () ->
            s3.putObject(
                p ->
                    p.bucket("strict")
                        .key("locked")
                        .objectLockMode("COMPLIANCE")
                        .objectLockRetainUntilDate(java.time.Instant.now().plusSeconds(3600)),
                RequestBody.fromString("x")),
        "InvalidRequest");
    assertThat(fs.exists("/strict/locked")).isFalse();
    assertS3Error(
        () ->
            s3.copyObject(
                c ->
                    c.sourceBucket("strict")
                        .sourceKey("src")
                        .destinationBucket("strict")
                        .destinationKey("src")),
        "InvalidRequest");
    s3.copyObject(
        c ->
            c.sourceBucket("strict")
                .sourceKey("src")
                .destinationBucket("strict")
                .destinationKey("src")
                .metadataDirective("REPLACE")
                .metadata(java.util.Map.of("k", "v")));
    assertThat(s3.headObject(h -> h.bucket("strict").key("src")).metadata())
        .containsEntry("k", "v");
  }

  /**
   * CreateBucket refuses what S3 refuses (names: S3HostileInputTest): an object ownership it does
   * not know, and a location constraint other than the endpoint's region (us-east-1, the default,
   * is named by none); the bucket is not made.
   */
  @Test
  void createBucket_refusesWhatS3Refuses() {
    assertS3Error(
        () -> s3.createBucket(b -> b.bucket("owned").objectOwnership("Nobody")), "InvalidArgument");
    for (String region : List.of("us-west-1", "us-east-1")) {
      assertS3Error(
          () ->
              s3.createBucket(
                  b ->
                      b.bucket("placed")
                          .createBucketConfiguration(c -> c.locationConstraint(region))),
          "InvalidLocationConstraint");
    }
    assertThat(s3.listBuckets().buckets().stream().map(Bucket::name))
        .doesNotContain("owned", "placed");

    s3.createBucket(b -> b.bucket("owned").objectOwnership("BucketOwnerEnforced"));
    s3.headBucket(h -> h.bucket("owned"));
  }

  /**
   * A missing bucket is named before a missing upload or source key, and a part number out of
   * 1-10,000 before either, as S3 orders its checks.
   */
  @Test
  void missingBuckets_andBadPartNumbers_areNamedFirst() {
    assertS3Error(
        () ->
            s3.uploadPart(
                u -> u.bucket("gone").key("k").uploadId("nope").partNumber(1),
                RequestBody.fromString("x")),
        "NoSuchBucket");
    assertS3Error(
        () -> s3.abortMultipartUpload(a -> a.bucket("gone").key("k").uploadId("nope")),
        "NoSuchBucket");
    s3.createBucket(b -> b.bucket("target"));
    assertS3Error(
        () ->
            s3.copyObject(
                c ->
                    c.sourceBucket("gone")
                        .sourceKey("k")
                        .destinationBucket("target")
                        .destinationKey("k")),
        "NoSuchBucket");
    assertS3Error(
        () ->
            s3.uploadPartCopy(
                c ->
                    c.sourceBucket("target")
                        .sourceKey("k")
                        .destinationBucket("target")
                        .destinationKey("k")
                        .uploadId("nope")
                        .partNumber(0)),
        "InvalidArgument");
    assertS3Error(
        () -> s3.abortMultipartUpload(a -> a.bucket("target").key("k").uploadId("nope")),
        "NoSuchUpload");
  }

  /**
   * A website redirect is kept and given back, and refused unless a path or an http(s) URL; an
   * upload's whole-object checksum is asked for as S3 takes it or refused before it begins.
   */
  @Test
  void redirectsAndUploadChecksums_areCheckedBeforeAnythingIsWritten() {
    s3.createBucket(b -> b.bucket("checked"));
    assertS3Error(
        () ->
            s3.putObject(
                p -> p.bucket("checked").key("r").websiteRedirectLocation("elsewhere"),
                RequestBody.fromString("x")),
        "InvalidRedirectLocation");
    s3.putObject(
        p -> p.bucket("checked").key("r").websiteRedirectLocation("/other"),
        RequestBody.fromString("x"));
    assertThat(s3.headObject(h -> h.bucket("checked").key("r")).websiteRedirectLocation())
        .isEqualTo("/other");
    // A copy takes the redirect from its own request only, as S3 copies.
    s3.copyObject(
        c ->
            c.sourceBucket("checked")
                .sourceKey("r")
                .destinationBucket("checked")
                .destinationKey("r2"));
    assertThat(s3.headObject(h -> h.bucket("checked").key("r2")).websiteRedirectLocation())
        .isNull();
    assertS3Error(
        () ->
            s3.createMultipartUpload(
                c -> c.bucket("checked").key("m").checksumType(ChecksumType.FULL_OBJECT)),
        "InvalidRequest");
    assertS3Error(
        () ->
            s3.createMultipartUpload(
                c ->
                    c.bucket("checked")
                        .key("m")
                        .checksumAlgorithm(ChecksumAlgorithm.SHA1)
                        .checksumType(ChecksumType.FULL_OBJECT)),
        "InvalidRequest");
    assertThat(s3.listMultipartUploads(l -> l.bucket("checked")).uploads()).isEmpty();
  }

  private static void assertS3Error(Runnable call, String code) {
    assertThatThrownBy(call::run)
        .isInstanceOfSatisfying(
            S3Exception.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code));
  }

  @Test
  void deleteObjects_andCopy() {
    s3.createBucket(b -> b.bucket("many"));
    s3.putObject(p -> p.bucket("many").key("one"), RequestBody.fromString("1"));
    s3.putObject(p -> p.bucket("many").key("two"), RequestBody.fromString("2"));
    s3.copyObject(
        c ->
            c.sourceBucket("many")
                .sourceKey("one")
                .destinationBucket("many")
                .destinationKey("copies/one"));
    assertThat(s3.getObjectAsBytes(g -> g.bucket("many").key("copies/one")).asUtf8String())
        .isEqualTo("1");
    var result =
        s3.deleteObjects(
            d ->
                d.bucket("many")
                    .delete(
                        x ->
                            x.objects(
                                Stream.of("one", "two", "missing")
                                    .map(k -> ObjectIdentifier.builder().key(k).build())
                                    .toList())));
    assertThat(result.deleted()).hasSize(3);
    assertThat(fs.exists("/many/one")).isFalse();
    assertThatThrownBy(() -> s3.deleteBucket(b -> b.bucket("many")))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BucketNotEmpty"));
  }

  @Test
  void multipart_completesWhole_andAbortLeavesNothing() throws Exception {
    s3.createBucket(b -> b.bucket("parts"));
    byte[] data = new byte[12 << 20];
    new Random(11).nextBytes(data);
    String id = s3.createMultipartUpload(c -> c.bucket("parts").key("big/object.bin")).uploadId();
    List<CompletedPart> parts = new java.util.ArrayList<>();
    int[][] spans = {{0, 5 << 20}, {5 << 20, 10 << 20}, {10 << 20, 12 << 20}};
    for (int i = 0; i < spans.length; i++) {
      int n = i + 1;
      byte[] part = java.util.Arrays.copyOfRange(data, spans[i][0], spans[i][1]);
      var r =
          s3.uploadPart(
              u ->
                  u.bucket("parts")
                      .key("big/object.bin")
                      .uploadId(id)
                      .partNumber(n)
                      .checksumAlgorithm(ChecksumAlgorithm.CRC32),
              RequestBody.fromBytes(part));
      parts.add(
          CompletedPart.builder()
              .partNumber(n)
              .eTag(r.eTag())
              .checksumCRC32(r.checksumCRC32())
              .build());
    }
    assertThat(s3.listParts(l -> l.bucket("parts").key("big/object.bin").uploadId(id)).parts())
        .hasSize(3);
    // A page at a time, as clients that resume an upload list its parts.
    var firstTwo =
        s3.listParts(l -> l.bucket("parts").key("big/object.bin").uploadId(id).maxParts(2));
    assertThat(firstTwo.isTruncated()).isTrue();
    assertThat(firstTwo.nextPartNumberMarker()).isEqualTo(2);
    assertThat(firstTwo.maxParts()).isEqualTo(2);
    assertThat(firstTwo.storageClassAsString()).isEqualTo("STANDARD");
    assertThat(
            s3
                .listPartsPaginator(
                    l -> l.bucket("parts").key("big/object.bin").uploadId(id).maxParts(2))
                .parts()
                .stream()
                .map(p -> p.partNumber()))
        .containsExactly(1, 2, 3);
    // Not published before it completes.
    assertThat(fs.exists("/parts/big/object.bin")).isFalse();
    s3.completeMultipartUpload(
        c ->
            c.bucket("parts")
                .key("big/object.bin")
                .uploadId(id)
                .multipartUpload(m -> m.parts(parts)));
    assertThat(s3.getObjectAsBytes(g -> g.bucket("parts").key("big/object.bin")).asByteArray())
        .isEqualTo(data);
    assertThat(conf.resolve("uploads")).isEmptyDirectory();

    // A part copied from a range of another object; then an upload aborted.
    String copy = s3.createMultipartUpload(c -> c.bucket("parts").key("copied")).uploadId();
    var copied =
        s3.uploadPartCopy(
            u ->
                u.sourceBucket("parts")
                    .sourceKey("big/object.bin")
                    .copySourceRange("bytes=0-99")
                    .destinationBucket("parts")
                    .destinationKey("copied")
                    .uploadId(copy)
                    .partNumber(1));
    s3.completeMultipartUpload(
        c ->
            c.bucket("parts")
                .key("copied")
                .uploadId(copy)
                .multipartUpload(
                    m ->
                        m.parts(
                            CompletedPart.builder()
                                .partNumber(1)
                                .eTag(copied.copyPartResult().eTag())
                                .build())));
    assertThat(s3.getObjectAsBytes(g -> g.bucket("parts").key("copied")).asByteArray())
        .isEqualTo(java.util.Arrays.copyOf(data, 100));
    String aborted = s3.createMultipartUpload(c -> c.bucket("parts").key("gone")).uploadId();
    s3.uploadPart(
        u -> u.bucket("parts").key("gone").uploadId(aborted).partNumber(1),
        RequestBody.fromString("never published"));
    assertThat(s3.listMultipartUploads(l -> l.bucket("parts")).uploads()).hasSize(1);
    String second = s3.createMultipartUpload(c -> c.bucket("parts").key("gone2")).uploadId();
    var one = s3.listMultipartUploads(l -> l.bucket("parts").maxUploads(1));
    assertThat(one.uploads()).extracting(u -> u.key()).containsExactly("gone");
    assertThat(one.isTruncated()).isTrue();
    assertThat(
            s3.listMultipartUploads(
                    l ->
                        l.bucket("parts")
                            .maxUploads(1)
                            .keyMarker(one.nextKeyMarker())
                            .uploadIdMarker(one.nextUploadIdMarker()))
                .uploads())
        .extracting(u -> u.key())
        .containsExactly("gone2");
    s3.abortMultipartUpload(a -> a.bucket("parts").key("gone2").uploadId(second));
    s3.abortMultipartUpload(a -> a.bucket("parts").key("gone").uploadId(aborted));
    assertThat(fs.exists("/parts/gone")).isFalse();
    assertThat(conf.resolve("uploads")).isEmptyDirectory();
    assertThatThrownBy(() -> s3.listParts(l -> l.bucket("parts").key("gone").uploadId(aborted)))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NoSuchUpload"));
    // A small part that is not the last: refused at completion, and nothing published.
    String small = s3.createMultipartUpload(c -> c.bucket("parts").key("small")).uploadId();
    List<CompletedPart> smallParts = new java.util.ArrayList<>();
    for (int n = 1; n <= 2; n++) {
      int number = n;
      var r =
          s3.uploadPart(
              u -> u.bucket("parts").key("small").uploadId(small).partNumber(number),
              RequestBody.fromString("tiny " + number));
      smallParts.add(CompletedPart.builder().partNumber(n).eTag(r.eTag()).build());
    }
    assertThatThrownBy(
            () ->
                s3.completeMultipartUpload(
                    c ->
                        c.bucket("parts")
                            .key("small")
                            .uploadId(small)
                            .multipartUpload(m -> m.parts(smallParts))))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("EntityTooSmall"));
    assertThat(fs.exists("/parts/small")).isFalse();
    s3.abortMultipartUpload(a -> a.bucket("parts").key("small").uploadId(small));
  }
}
