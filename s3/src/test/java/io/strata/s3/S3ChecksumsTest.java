package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.testkit.MiniCluster;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Random;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * The checksums S3 offers, through AWS's own client: every algorithm computed as S3 computes it,
 * and multipart uploads created with one (COMPOSITE: made of the parts' own; FULL_OBJECT: the CRC
 * of the whole object), their parts checked at Complete, the object's given back on HEAD.
 */
class S3ChecksumsTest {
  private static final int MIN_PART = 5 << 20;
  private static final software.amazon.awssdk.services.s3.model.ChecksumAlgorithm CRC32_SDK =
      software.amazon.awssdk.services.s3.model.ChecksumAlgorithm.CRC32;
  private static final software.amazon.awssdk.services.s3.model.ChecksumAlgorithm CRC32C_SDK =
      software.amazon.awssdk.services.s3.model.ChecksumAlgorithm.CRC32_C;

  @TempDir static Path conf;

  private static MiniCluster cluster;
  private static S3Process endpoint;
  private static S3Client s3;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().start();
    endpoint = TestEndpoints.start(cluster.clientConf(), conf);
    s3 = TestEndpoints.client(endpoint);
    s3.createBucket(b -> b.bucket("sums"));
  }

  @AfterAll
  static void stop() throws Exception {
    TestEndpoints.close(s3, endpoint, cluster);
  }

  /** The xxHash checksums against values of the reference (Go's xxhash and xxh3, as versitygw). */
  @Test
  void xxHashes_areTheReferenceValues_inS3sByteOrder() {
    byte[] long5000 = new byte[5000];
    for (int i = 0; i < long5000.length; i++) {
      long5000[i] = (byte) (i % 251);
    }
    byte[] hello = "hello world".getBytes(StandardCharsets.UTF_8);
    assertThat(sum(ChecksumAlgorithm.XXHASH64, new byte[0])).isEqualTo("70bbN1HY6Zk=");
    assertThat(sum(ChecksumAlgorithm.XXHASH3, new byte[0])).isEqualTo("LQaABTjTlMI=");
    assertThat(sum(ChecksumAlgorithm.XXHASH128, new byte[0])).isEqualTo("maoG0wFHmNhgAcMkRo1Jfw==");
    assertThat(sum(ChecksumAlgorithm.XXHASH64, hello)).isEqualTo("RatnNLIeaWg=");
    assertThat(sum(ChecksumAlgorithm.XXHASH3, hello)).isEqualTo("1Eex6kDmmIs=");
    assertThat(sum(ChecksumAlgorithm.XXHASH128, hello)).isEqualTo("340J6T+HSQCpm4d1zBW2xw==");
    assertThat(sum(ChecksumAlgorithm.XXHASH64, long5000)).isEqualTo("poM9ZI/WozI=");
    assertThat(sum(ChecksumAlgorithm.XXHASH3, long5000)).isEqualTo("tBhQD8QjIO4=");
    assertThat(sum(ChecksumAlgorithm.XXHASH128, long5000)).isEqualTo("uS7ALDnTPOe0GFAPxCMg7g==");
    assertThat(ChecksumAlgorithm.names())
        .isEqualTo(
            "[CRC32, CRC32C, CRC64NVME, MD5, SHA1, SHA256, SHA512, XXHASH128, XXHASH3, XXHASH64]");
  }

  /** A checksum given in pieces is the one given whole (a body arrives in pieces). */
  @Test
  void everyAlgorithm_inPieces_isTheSameAsWhole() {
    byte[] data = new byte[70_001];
    new Random(3).nextBytes(data);
    for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
      ChecksumAlgorithm.Running pieces = a.start();
      for (int at = 0; at < data.length; at += 4099) {
        pieces.update(data, at, Math.min(4099, data.length - at));
      }
      assertThat(pieces.base64()).as(a.name()).isEqualTo(sum(a, data));
      assertThat(a.takes(sum(a, data))).as(a.name()).isTrue();
    }
  }

  @Test
  void aCompositeUpload_isTheChecksumOfItsPartsChecksums_givenBackOnHead() {
    byte[] first = random(MIN_PART, 1);
    byte[] second = random(1000, 2);
    String id =
        s3.createMultipartUpload(
                c ->
                    c.bucket("sums")
                        .key("composite.bin")
                        .checksumAlgorithm(
                            software.amazon.awssdk.services.s3.model.ChecksumAlgorithm.CRC32))
            .uploadId();
    UploadPartResponse p1 = part("composite.bin", id, 1, first, CRC32_SDK);
    UploadPartResponse p2 = part("composite.bin", id, 2, second, CRC32_SDK);
    assertThat(p1.checksumCRC32()).isEqualTo(crc32(first));
    CompleteMultipartUploadResponse done =
        s3.completeMultipartUpload(
            c ->
                c.bucket("sums")
                    .key("composite.bin")
                    .uploadId(id)
                    .multipartUpload(m -> m.parts(completed(1, p1), completed(2, p2))));
    CRC32 ofParts = new CRC32();
    ofParts.update(Base64.getDecoder().decode(crc32(first)));
    ofParts.update(Base64.getDecoder().decode(crc32(second)));
    String composite = base64(ofParts.getValue(), 4) + "-2";
    assertThat(done.checksumCRC32()).isEqualTo(composite);
    assertThat(done.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
    HeadObjectResponse head =
        s3.headObject(
            h -> h.bucket("sums").key("composite.bin").checksumMode(ChecksumMode.ENABLED));
    assertThat(head.checksumCRC32()).isEqualTo(composite);
    assertThat(head.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
    assertThat(head.contentLength()).isEqualTo(MIN_PART + 1000L);
  }

  @Test
  void aFullObjectUpload_isTheCrcOfTheWholeObject_andAWrongClaimPublishesNothing() {
    byte[] first = random(MIN_PART, 3);
    byte[] second = random(777, 4);
    String id =
        s3.createMultipartUpload(
                c ->
                    c.bucket("sums")
                        .key("whole.bin")
                        .checksumAlgorithm(
                            software.amazon.awssdk.services.s3.model.ChecksumAlgorithm.CRC32_C)
                        .checksumType(ChecksumType.FULL_OBJECT))
            .uploadId();
    // Parts name the upload's algorithm (AWS's client sends CRC32 otherwise, which is refused).
    UploadPartResponse p1 = part("whole.bin", id, 1, first, CRC32C_SDK);
    UploadPartResponse p2 = part("whole.bin", id, 2, second, CRC32C_SDK);
    CRC32C whole = new CRC32C();
    whole.update(first);
    whole.update(second);
    String expected = base64(whole.getValue(), 4);
    CompletedPart c1 = completed(1, p1);
    CompletedPart c2 = completed(2, p2);
    assertThatThrownBy(
            () ->
                s3.completeMultipartUpload(
                    c ->
                        c.bucket("sums")
                            .key("whole.bin")
                            .uploadId(id)
                            .checksumCRC32C(crc32c(new byte[] {1}))
                            .multipartUpload(m -> m.parts(c1, c2))))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BadDigest"));
    assertThatThrownBy(() -> s3.headObject(h -> h.bucket("sums").key("whole.bin")))
        .isInstanceOf(S3Exception.class);
    CompleteMultipartUploadResponse done =
        s3.completeMultipartUpload(
            c ->
                c.bucket("sums")
                    .key("whole.bin")
                    .uploadId(id)
                    .checksumCRC32C(expected)
                    .multipartUpload(m -> m.parts(c1, c2)));
    assertThat(done.checksumCRC32C()).isEqualTo(expected);
    assertThat(done.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
    assertThat(
            s3.headObject(h -> h.bucket("sums").key("whole.bin").checksumMode(ChecksumMode.ENABLED))
                .checksumCRC32C())
        .isEqualTo(expected);
  }

  /**
   * A part of a composite upload must come with a checksum of the upload's algorithm, and Complete
   * must name it as stored.
   */
  @Test
  void partsWithoutTheirChecksum_orWithAnotherValue_areRefused() {
    String id =
        s3.createMultipartUpload(
                c ->
                    c.bucket("sums")
                        .key("strict.bin")
                        .checksumAlgorithm(
                            software.amazon.awssdk.services.s3.model.ChecksumAlgorithm.SHA256))
            .uploadId();
    assertThatThrownBy(
            () ->
                s3.uploadPart(
                    u ->
                        u.bucket("sums")
                            .key("strict.bin")
                            .uploadId(id)
                            .partNumber(1)
                            .checksumAlgorithm(
                                software.amazon.awssdk.services.s3.model.ChecksumAlgorithm.SHA1),
                    RequestBody.fromBytes(new byte[] {1, 2, 3})))
        .isInstanceOfSatisfying(
            S3Exception.class,
            e ->
                assertThat(e.awsErrorDetails().errorMessage())
                    .isEqualTo(
                        "Checksum Type mismatch occurred, expected checksum Type: SHA256, actual"
                            + " checksum Type: SHA1"));
    UploadPartResponse p1 =
        s3.uploadPart(
            u ->
                u.bucket("sums")
                    .key("strict.bin")
                    .uploadId(id)
                    .partNumber(1)
                    .checksumAlgorithm(
                        software.amazon.awssdk.services.s3.model.ChecksumAlgorithm.SHA256),
            RequestBody.fromBytes(new byte[] {1, 2, 3}));
    assertThat(p1.checksumSHA256()).isNotNull();
    assertThat(
            refusal(
                id, CompletedPart.builder().partNumber(1).eTag(p1.eTag()).build(), "strict.bin"))
        .isEqualTo("InvalidRequest");
    assertThat(
            refusal(
                id,
                CompletedPart.builder()
                    .partNumber(1)
                    .eTag(p1.eTag())
                    .checksumSHA256(sum(ChecksumAlgorithm.SHA256, new byte[] {9}))
                    .build(),
                "strict.bin"))
        .isEqualTo("InvalidPart");
    assertThat(
            refusal(
                id,
                CompletedPart.builder()
                    .partNumber(1)
                    .eTag(p1.eTag())
                    .checksumSHA256(p1.checksumSHA256())
                    .checksumCRC32(crc32(new byte[] {1, 2, 3}))
                    .build(),
                "strict.bin"))
        .isEqualTo("InvalidArgument");
  }

  /** Part {@code number} as Complete names it: its ETag and the checksum its upload answered. */
  private static CompletedPart completed(int number, UploadPartResponse r) {
    return CompletedPart.builder()
        .partNumber(number)
        .eTag(r.eTag())
        .checksumCRC32(r.checksumCRC32())
        .checksumCRC32C(r.checksumCRC32C())
        .build();
  }

  private static String refusal(String id, CompletedPart part, String key) {
    try {
      s3.completeMultipartUpload(
          c -> c.bucket("sums").key(key).uploadId(id).multipartUpload(m -> m.parts(part)));
      return "none";
    } catch (S3Exception e) {
      return e.awsErrorDetails().errorCode();
    }
  }

  private static UploadPartResponse part(
      String key,
      String id,
      int number,
      byte[] data,
      software.amazon.awssdk.services.s3.model.ChecksumAlgorithm algorithm) {
    return s3.uploadPart(
        u -> u.bucket("sums").key(key).uploadId(id).partNumber(number).checksumAlgorithm(algorithm),
        RequestBody.fromBytes(data));
  }

  private static String sum(ChecksumAlgorithm a, byte[] data) {
    ChecksumAlgorithm.Running r = a.start();
    r.update(data, 0, data.length);
    return r.base64();
  }

  private static String crc32(byte[] data) {
    CRC32 c = new CRC32();
    c.update(data);
    return base64(c.getValue(), 4);
  }

  private static String crc32c(byte[] data) {
    CRC32C c = new CRC32C();
    c.update(data);
    return base64(c.getValue(), 4);
  }

  private static String base64(long value, int bytes) {
    byte[] all = ByteBuffer.allocate(8).putLong(value).array();
    return Base64.getEncoder().encodeToString(Arrays.copyOfRange(all, 8 - bytes, 8));
  }

  private static byte[] random(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }
}
