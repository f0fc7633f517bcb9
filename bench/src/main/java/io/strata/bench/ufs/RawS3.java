package io.strata.bench.ufs;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;

/**
 * The baseline of {@code strata bench ufs}: the same S3 server read straight with the AWS SDK, as a
 * program that needs no cache would, with as many ranged GETs in flight as Strata's readers get.
 */
final class RawS3 implements AutoCloseable {
  private final S3Client s3;
  private final String bucket;

  RawS3(URI endpoint, String accessKey, String secretKey, String bucket) {
    this.bucket = bucket;
    this.s3 =
        S3Client.builder()
            .endpointOverride(endpoint)
            .forcePathStyle(true)
            .region(Region.US_EAST_1)
            .httpClientBuilder(Apache5HttpClient.builder().maxConnections(64))
            .credentialsProvider(
                StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .build();
  }

  void createBucket() {
    s3.createBucket(r -> r.bucket(bucket));
  }

  void put(String key, byte[] bytes) {
    s3.putObject(r -> r.bucket(bucket).key(key), RequestBody.fromBytes(bytes));
  }

  /** Downloads {@code key} whole in ranges of {@code range} bytes, {@code inFlight} at a time. */
  long download(String key, long length, int range, int inFlight) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(inFlight);
    try {
      List<Future<Integer>> parts = new ArrayList<>();
      for (long at = 0; at < length; at += range) {
        long from = at;
        long to = Math.min(length, at + range) - 1;
        parts.add(
            pool.submit(
                () ->
                    s3.getObjectAsBytes(
                            r -> r.bucket(bucket).key(key).range("bytes=" + from + "-" + to))
                        .asByteArray()
                        .length));
      }
      long bytes = 0;
      for (Future<Integer> f : parts) {
        bytes += f.get();
      }
      return bytes;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Downloads every object under {@code prefix} whole, {@code threads} at a time, as a copy of a
   * folder does ({@code aws s3 cp --recursive}): its keys listed first; the bytes.
   */
  long downloadFolder(String prefix, int threads) throws Exception {
    List<String> keys = new ArrayList<>();
    for (ListObjectsV2Response page :
        s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix))) {
      page.contents().forEach(o -> keys.add(o.key()));
    }
    return downloadAll(keys, threads);
  }

  /** Downloads whole objects, {@code threads} at a time; the bytes. */
  private long downloadAll(List<String> keys, int threads) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<Integer>> gets = new ArrayList<>();
      for (String key : keys) {
        gets.add(
            pool.submit(
                () -> s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asByteArray().length));
      }
      long bytes = 0;
      for (Future<Integer> f : gets) {
        bytes += f.get();
      }
      return bytes;
    } finally {
      pool.shutdownNow();
    }
  }

  /** Lists every key under {@code prefix}, a page at a time, as a folder (with a delimiter). */
  int list(String prefix) {
    int n = 0;
    for (ListObjectsV2Response page :
        s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix).delimiter("/"))) {
      n += page.contents().size() + page.commonPrefixes().size();
    }
    return n;
  }

  @Override
  public void close() {
    s3.close();
  }
}
