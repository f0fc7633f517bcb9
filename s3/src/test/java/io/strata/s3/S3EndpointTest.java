package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.client.FileSystem;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.S3Keys;
import io.strata.core.conf.WorkerKeys;
import io.strata.testkit.MiniCluster;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The endpoint against AWS's own Java client (SDK v2, its defaults: signed aws-chunked uploads with
 * a CRC32 trailer) over a real in-process cluster.
 */
class S3EndpointTest {
  @TempDir static Path conf;

  private static MiniCluster cluster;
  private static S3Process endpoint;
  private static S3Client s3;
  private static FileSystem fs;

  @BeforeAll
  static void start() throws Exception {
    // As local mode runs: a domain socket and an SSD tier, whose whole files GETs are sent from.
    cluster =
        MiniCluster.builder()
            .domainSockets()
            .ssd("64MiB")
            .property(WorkerKeys.SEGMENT_SIZE, "4MiB")
            .start();
    Configuration c = cluster.clientConf();
    c.set(S3Keys.DOMAINS, "s3.strata.test");
    endpoint = TestEndpoints.start(c, conf);
    s3 = TestEndpoints.client(endpoint);
    fs = cluster.fileSystem();
  }

  @AfterAll
  static void stop() throws Exception {
    TestEndpoints.close(s3, endpoint, cluster);
  }

  @Test
  void theCredentialsFileIsMadeOwnerOnly() throws Exception {
    Path file = conf.resolve("s3-credentials");
    assertThat(Files.getPosixFilePermissions(file))
        .containsExactlyInAnyOrder(
            java.nio.file.attribute.PosixFilePermission.OWNER_READ,
            java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
  }

  /**
   * A GET of an object the worker keeps no whole file of has it kept whole first (from the
   * under-storage), then sends it from that file; ranges too, and the same at the next GET.
   */
  @Test
  void aGetHasTheWorkerKeepTheObjectWhole_thenSendsItFromThatFile() throws Exception {
    byte[] data = new byte[(200 << 10) + 11];
    new Random(9).nextBytes(data);
    Path inUfs = cluster.ufsRoot().resolve("wholes/cold.bin");
    Files.createDirectories(inUfs.getParent());
    Files.write(inUfs, data);
    for (int i = 0; i < 2; i++) {
      assertThat(s3.getObjectAsBytes(g -> g.bucket("wholes").key("cold.bin")).asByteArray())
          .isEqualTo(data);
    }
    var version = fs.getStatus("/wholes/cold.bin");
    Path whole = fs.wholeFile(version).orElseThrow();
    assertThat(Files.size(whole)).isEqualTo(data.length);
    byte[] range =
        s3.getObjectAsBytes(g -> g.bucket("wholes").key("cold.bin").range("bytes=1000-1999"))
            .asByteArray();
    assertThat(range).isEqualTo(java.util.Arrays.copyOfRange(data, 1000, 2000));
  }

  /**
   * Content-Type, the standard headers and x-amz-meta-* come back on HEAD and GET, through copies
   * (COPY and REPLACE) and multipart uploads; a version written another way has none of them.
   */
  @Test
  void metadataComesBackWithItsVersionOnly() throws Exception {
    s3.createBucket(b -> b.bucket("meta"));
    Map<String, String> mine = Map.of("origin", "lab-7", "team", "vision");
    s3.putObject(
        p ->
            p.bucket("meta")
                .key("a.csv")
                .contentType("text/csv")
                .cacheControl("max-age=60")
                .metadata(mine),
        RequestBody.fromString("x,y\n1,2\n"));
    var head = s3.headObject(h -> h.bucket("meta").key("a.csv"));
    assertThat(head.contentType()).isEqualTo("text/csv");
    assertThat(head.cacheControl()).isEqualTo("max-age=60");
    assertThat(head.metadata()).isEqualTo(mine);
    var get = s3.getObjectAsBytes(g -> g.bucket("meta").key("a.csv")).response();
    assertThat(get.contentType()).isEqualTo("text/csv");
    assertThat(get.metadata()).isEqualTo(mine);

    s3.copyObject(
        c ->
            c.sourceBucket("meta")
                .sourceKey("a.csv")
                .destinationBucket("meta")
                .destinationKey("copy.csv"));
    assertThat(s3.headObject(h -> h.bucket("meta").key("copy.csv")).metadata()).isEqualTo(mine);
    s3.copyObject(
        c ->
            c.sourceBucket("meta")
                .sourceKey("a.csv")
                .destinationBucket("meta")
                .destinationKey("replaced.csv")
                .metadataDirective("REPLACE")
                .contentType("application/json")
                .metadata(Map.of("fresh", "yes")));
    var replaced = s3.headObject(h -> h.bucket("meta").key("replaced.csv"));
    assertThat(replaced.metadata()).isEqualTo(Map.of("fresh", "yes"));
    assertThat(replaced.contentType()).isEqualTo("application/json");

    String id =
        s3.createMultipartUpload(
                c -> c.bucket("meta").key("parts.bin").contentType("image/png").metadata(mine))
            .uploadId();
    var part =
        s3.uploadPart(
            u -> u.bucket("meta").key("parts.bin").uploadId(id).partNumber(1),
            RequestBody.fromString("png bytes"));
    s3.completeMultipartUpload(
        c ->
            c.bucket("meta")
                .key("parts.bin")
                .uploadId(id)
                .multipartUpload(
                    m -> m.parts(CompletedPart.builder().partNumber(1).eTag(part.eTag()).build())));
    var parts = s3.headObject(h -> h.bucket("meta").key("parts.bin"));
    assertThat(parts.contentType()).isEqualTo("image/png");
    assertThat(parts.metadata()).isEqualTo(mine);

    // Another version of the key, through Strata's own client: the metadata was a.csv's before.
    try (var out = fs.create("/meta/a.csv", io.strata.client.WriteOptions.overwriting())) {
      out.write("rewritten".getBytes(StandardCharsets.UTF_8));
    }
    fs.invalidate("/meta/a.csv", false);
    var after = s3.headObject(h -> h.bucket("meta").key("a.csv"));
    assertThat(after.metadata()).isEmpty();
    assertThat(after.contentType()).isEqualTo("binary/octet-stream");

    assertThatThrownBy(
            () ->
                s3.putObject(
                    p -> p.bucket("meta").key("big-meta").metadata(Map.of("m", "v".repeat(3000))),
                    RequestBody.fromString("x")))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("MetadataTooLarge"));
    assertThat(fs.exists("/meta/big-meta")).isFalse();
  }

  /**
   * The checksum an upload was verified with comes back on GET and HEAD when asked (the SDK then
   * checks the bytes against it), and not for a range or when not asked.
   */
  @Test
  void theUploadsChecksumComesBackWhenAsked() throws Exception {
    s3.createBucket(b -> b.bucket("asked"));
    byte[] data = new byte[300_000];
    new Random(12).nextBytes(data);
    var put =
        s3.putObject(
            p -> p.bucket("asked").key("s.bin").checksumAlgorithm(ChecksumAlgorithm.SHA256),
            RequestBody.fromBytes(data));
    // The upload's own checksum (a SHA-256 read twice once answered that of no bytes).
    assertThat(put.checksumSHA256())
        .isEqualTo(
            java.util.Base64.getEncoder()
                .encodeToString(java.security.MessageDigest.getInstance("SHA-256").digest(data)));
    var got =
        s3.getObjectAsBytes(
            g ->
                g.bucket("asked")
                    .key("s.bin")
                    .checksumMode(software.amazon.awssdk.services.s3.model.ChecksumMode.ENABLED));
    assertThat(got.asByteArray()).isEqualTo(data);
    assertThat(got.response().checksumSHA256()).isEqualTo(put.checksumSHA256());
    assertThat(
            s3.headObject(
                    h ->
                        h.bucket("asked")
                            .key("s.bin")
                            .checksumMode(
                                software.amazon.awssdk.services.s3.model.ChecksumMode.ENABLED))
                .checksumSHA256())
        .isEqualTo(put.checksumSHA256());
    assertThat(s3.headObject(h -> h.bucket("asked").key("s.bin")).checksumSHA256()).isNull();
    assertThat(
            s3.getObjectAsBytes(
                    g ->
                        g.bucket("asked")
                            .key("s.bin")
                            .range("bytes=0-99")
                            .checksumMode(
                                software.amazon.awssdk.services.s3.model.ChecksumMode.ENABLED))
                .response()
                .checksumSHA256())
        .isNull();
  }

  @Test
  void putGetHeadDelete_roundTripTheBytes() {
    s3.createBucket(b -> b.bucket("round"));
    byte[] data = new byte[3 << 20];
    new Random(7).nextBytes(data);
    var put = s3.putObject(p -> p.bucket("round").key("a/b/data.bin"), RequestBody.fromBytes(data));
    ResponseBytes<GetObjectResponse> got =
        s3.getObjectAsBytes(g -> g.bucket("round").key("a/b/data.bin"));
    assertThat(got.asByteArray()).isEqualTo(data);
    assertThat(got.response().eTag()).isEqualTo(put.eTag());
    // The same bytes through Strata's own client: one namespace.
    assertThat(fs.getStatus("/round/a/b/data.bin").length()).isEqualTo(data.length);
    var head = s3.headObject(h -> h.bucket("round").key("a/b/data.bin"));
    assertThat(head.contentLength()).isEqualTo(data.length);
    s3.deleteObject(d -> d.bucket("round").key("a/b/data.bin"));
    assertThatThrownBy(() -> s3.headObject(h -> h.bucket("round").key("a/b/data.bin")))
        .isInstanceOf(NoSuchKeyException.class);
    assertThatThrownBy(() -> s3.getObjectAsBytes(g -> g.bucket("round").key("a/b/data.bin")))
        .isInstanceOf(NoSuchKeyException.class);
  }

  /** CRC64NVME too, but AWS's Java client needs its native CRT for it (the AWS CLI test has it). */
  @Test
  void everyChecksumAlgorithm_isCheckedOnUpload() {
    s3.createBucket(b -> b.bucket("sums"));
    for (ChecksumAlgorithm a :
        List.of(
            ChecksumAlgorithm.CRC32,
            ChecksumAlgorithm.CRC32_C,
            ChecksumAlgorithm.SHA1,
            ChecksumAlgorithm.SHA256)) {
      byte[] data = ("checked by " + a).getBytes(StandardCharsets.UTF_8);
      s3.putObject(
          p -> p.bucket("sums").key(a.toString()).checksumAlgorithm(a),
          RequestBody.fromBytes(data));
      assertThat(s3.getObjectAsBytes(g -> g.bucket("sums").key(a.toString())).asByteArray())
          .isEqualTo(data);
    }
  }

  @Test
  void ranges_andConditions() {
    s3.createBucket(b -> b.bucket("ranges"));
    byte[] data = "0123456789".getBytes(StandardCharsets.US_ASCII);
    s3.putObject(p -> p.bucket("ranges").key("digits"), RequestBody.fromBytes(data));
    assertThat(
            s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").range("bytes=2-4"))
                .asUtf8String())
        .isEqualTo("234");
    assertThat(
            s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").range("bytes=-3"))
                .asUtf8String())
        .isEqualTo("789");
    assertThat(
            s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").range("bytes=7-"))
                .asUtf8String())
        .isEqualTo("789");
    // A range S3 cannot read is ignored: the whole object, 200.
    var spaced = s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").range("bytes= -1"));
    assertThat(spaced.asUtf8String()).isEqualTo("0123456789");
    assertThat(spaced.response().contentRange()).isNull();
    // Every object is one part here: part 1 is all of it, as a range; no other part exists.
    var first = s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").partNumber(1));
    assertThat(first.asUtf8String()).isEqualTo("0123456789");
    assertThat(first.response().contentRange()).isEqualTo("bytes 0-9/10");
    assertThatThrownBy(
            () -> s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").partNumber(2)))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(416));
    assertThatThrownBy(
            () ->
                s3.getObjectAsBytes(
                    g -> g.bucket("ranges").key("digits").partNumber(1).range("bytes=0-1")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(400));
    assertThatThrownBy(
            () -> s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").range("bytes=10-")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(416));
    String etag = s3.headObject(h -> h.bucket("ranges").key("digits")).eTag();
    assertThatThrownBy(
            () -> s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").ifMatch("\"nope\"")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
    assertThat(
            s3.getObjectAsBytes(g -> g.bucket("ranges").key("digits").ifMatch(etag)).asUtf8String())
        .isEqualTo("0123456789");
    // A put that must not replace: refused while the key exists.
    assertThatThrownBy(
            () ->
                s3.putObject(
                    p -> p.bucket("ranges").key("digits").ifNoneMatch("*"),
                    RequestBody.fromString("x")))
        .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(412));
  }

  @Test
  void listings_pageWithDelimitersAndTokens() {
    s3.createBucket(b -> b.bucket("lists"));
    List<String> keys = List.of("a", "b/1", "b/2", "b/c/3", "b-x", "b0", "c/d/e/4", "z");
    for (String k : keys) {
      s3.putObject(p -> p.bucket("lists").key(k), RequestBody.fromString(k));
    }
    // Every key, in S3's order, two at a time.
    List<String> all =
        s3.listObjectsV2Paginator(l -> l.bucket("lists").maxKeys(2)).contents().stream()
            .map(S3Object::key)
            .toList();
    assertThat(all).containsExactly("a", "b-x", "b/1", "b/2", "b/c/3", "b0", "c/d/e/4", "z");
    ListObjectsV2Response top = s3.listObjectsV2(l -> l.bucket("lists").delimiter("/"));
    assertThat(top.contents().stream().map(S3Object::key)).containsExactly("a", "b-x", "b0", "z");
    assertThat(top.commonPrefixes().stream().map(CommonPrefix::prefix)).containsExactly("b/", "c/");
    ListObjectsV2Response inB =
        s3.listObjectsV2(l -> l.bucket("lists").prefix("b/").delimiter("/"));
    assertThat(inB.contents().stream().map(S3Object::key)).containsExactly("b/1", "b/2");
    assertThat(inB.commonPrefixes().stream().map(CommonPrefix::prefix)).containsExactly("b/c/");
    assertThat(
            s3.listObjectsV2(l -> l.bucket("lists").prefix("b")).contents().stream()
                .map(S3Object::key)
                .collect(Collectors.toList()))
        .containsExactly("b-x", "b/1", "b/2", "b/c/3", "b0");
    assertThat(
            s3.listObjectsV2(l -> l.bucket("lists").startAfter("b/2")).contents().stream()
                .map(S3Object::key))
        .containsExactly("b/c/3", "b0", "c/d/e/4", "z");
    assertThat(s3.listObjects(l -> l.bucket("lists").delimiter("/")).commonPrefixes()).hasSize(2);
    assertThat(s3.listBuckets().buckets().stream().map(b -> b.name())).contains("lists");
  }

  /**
   * AWS's client in virtual-hosted style (its default off path-style): BUCKET.s3.strata.test, a
   * domain strata.s3.domains names, resolved to loopback by the client as a wildcard DNS record
   * would.
   */
  @Test
  void virtualHostedRequests_nameTheBucketByTheHost() {
    String[] keys = endpoint.firstKeyPair();
    List<String> hosts = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (S3Client hosted =
        S3Client.builder()
            .endpointOverride(URI.create("http://s3.strata.test:" + endpoint.port()))
            .region(Region.US_EAST_1)
            .overrideConfiguration(
                o ->
                    o.addExecutionInterceptor(
                        new software.amazon.awssdk.core.interceptor.ExecutionInterceptor() {
                          @Override
                          public void beforeTransmission(
                              software.amazon.awssdk.core.interceptor.Context.BeforeTransmission
                                  context,
                              software.amazon.awssdk.core.interceptor.ExecutionAttributes
                                  attributes) {
                            hosts.add(context.httpRequest().host());
                          }
                        }))
            .httpClientBuilder(
                software.amazon.awssdk.http.apache5.Apache5HttpClient.builder()
                    .dnsResolver(
                        new org.apache.hc.client5.http.SystemDefaultDnsResolver() {
                          @Override
                          public java.net.InetAddress[] resolve(String host) {
                            return new java.net.InetAddress[] {
                              java.net.InetAddress.getLoopbackAddress()
                            };
                          }
                        }))
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(keys[0], keys[1])))
            .build()) {
      hosted.createBucket(b -> b.bucket("hosted"));
      hosted.putObject(p -> p.bucket("hosted").key("a/b.txt"), RequestBody.fromString("by host"));
      assertThat(hosted.getObjectAsBytes(g -> g.bucket("hosted").key("a/b.txt")).asUtf8String())
          .isEqualTo("by host");
      assertThat(hosted.listObjectsV2(l -> l.bucket("hosted")).contents())
          .extracting(S3Object::key)
          .containsExactly("a/b.txt");
      assertThat(fs.exists("/hosted/a/b.txt")).as("the same namespace").isTrue();
      assertThat(hosts)
          .as("sent virtual-hosted")
          .isNotEmpty()
          .containsOnly("hosted.s3.strata.test");
      assertThat(s3.getObjectAsBytes(g -> g.bucket("hosted").key("a/b.txt")).asUtf8String())
          .as("and path-style still")
          .isEqualTo("by host");
    }
  }

  @Test
  void aPresignedGet_readsUntilItExpires() throws Exception {
    s3.createBucket(b -> b.bucket("signed"));
    s3.putObject(p -> p.bucket("signed").key("k"), RequestBody.fromString("presigned"));
    String[] keys = endpoint.firstKeyPair();
    try (S3Presigner presigner =
        S3Presigner.builder()
            .endpointOverride(URI.create("http://127.0.0.1:" + endpoint.port()))
            .serviceConfiguration(
                software.amazon.awssdk.services.s3.S3Configuration.builder()
                    .pathStyleAccessEnabled(true)
                    .build())
            .region(Region.US_EAST_1)
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(keys[0], keys[1])))
            .build()) {
      URL url =
          presigner
              .presignGetObject(
                  p ->
                      p.signatureDuration(Duration.ofMinutes(1))
                          .getObjectRequest(g -> g.bucket("signed").key("k")))
              .url();
      HttpURLConnection c = (HttpURLConnection) url.openConnection();
      int code = c.getResponseCode();
      String body =
          new String(
              (code == 200 ? c.getInputStream() : c.getErrorStream()).readAllBytes(),
              StandardCharsets.UTF_8);
      assertThat(code).as(body).isEqualTo(200);
      assertThat(body).isEqualTo("presigned");
      // The same URL with its signature changed is refused.
      String u = url.toString();
      int sig = u.indexOf("X-Amz-Signature=") + "X-Amz-Signature=".length();
      char flipped = u.charAt(sig) == '0' ? '1' : '0';
      HttpURLConnection forged =
          (HttpURLConnection)
              new URL(u.substring(0, sig) + flipped + u.substring(sig + 1)).openConnection();
      assertThat(forged.getResponseCode()).isEqualTo(403);
    }
  }

  @Test
  void wrongSecret_unknownKey_andMissingBucket_areRefused() {
    String access = endpoint.firstKeyPair()[0];
    try (S3Client wrong = TestEndpoints.client(endpoint.port(), access, "not-the-secret")) {
      assertThatThrownBy(wrong::listBuckets)
          .isInstanceOfSatisfying(
              S3Exception.class,
              e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch"));
      // An upload signed with the wrong secret writes nothing.
      assertThatThrownBy(
              () ->
                  wrong.putObject(
                      p -> p.bucket("round").key("forged"), RequestBody.fromString("forged")))
          .isInstanceOf(S3Exception.class);
    }
    try (S3Client unknown = TestEndpoints.client(endpoint.port(), "NOSUCHKEY", "whatever")) {
      assertThatThrownBy(unknown::listBuckets)
          .isInstanceOfSatisfying(
              S3Exception.class,
              e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidAccessKeyId"));
    }
    assertThatThrownBy(() -> s3.listObjectsV2(l -> l.bucket("no-such-bucket")))
        .isInstanceOf(NoSuchBucketException.class);
    assertThat(fs.exists("/round/forged")).isFalse();
  }
}
