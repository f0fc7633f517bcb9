package io.strata.ufs.s3;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/** Builds the AWS SDK client an S3 mount uses, and the HTTP client and credentials under it. */
final class S3Clients {
  /** Attempts of one call; the retry budget bounds them in time too. */
  private static final int MAX_ATTEMPTS = 10;

  private S3Clients() {}

  /** A client that owns its HTTP client and credentials: closing it closes them. */
  static S3Client build(S3Settings s) {
    return builder(s, credentials(s)).httpClientBuilder(http(s)).build();
  }

  /** A client on {@code http} and {@code credentials}, which its closing leaves open. */
  static S3Client build(S3Settings s, SdkHttpClient http, AwsCredentialsProvider credentials) {
    return builder(s, credentials).httpClient(http).build();
  }

  static Apache5HttpClient.Builder http(S3Settings s) {
    return Apache5HttpClient.builder()
        .maxConnections(s.maxConnections())
        .connectionTimeout(s.requestTimeout())
        .socketTimeout(s.requestTimeout());
  }

  static S3ClientBuilder builder(S3Settings s, AwsCredentialsProvider credentials) {
    var builder =
        S3Client.builder()
            .region(Region.of(s.region()))
            .forcePathStyle(s.pathStyle())
            .credentialsProvider(credentials)
            // Checksums only where S3 requires them: S3-compatible stores often reject the
            // newer trailing checksums; reads are checked by ETag and pages by their own CRC.
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .overrideConfiguration(
                o ->
                    o.apiCallTimeout(s.retryBudget())
                        .apiCallAttemptTimeout(s.requestTimeout())
                        // Standard: exponential backoff with jitter on throttling (503 SlowDown),
                        // 5xx and I/O errors.
                        .retryStrategy(
                            AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(MAX_ATTEMPTS)
                                .build()));
    if (s.endpoint() != null) {
      builder.endpointOverride(s.endpoint());
    }
    return builder;
  }

  static AwsCredentialsProvider credentials(S3Settings s) {
    return s.accessKey() == null
        ? DefaultCredentialsProvider.builder().build()
        : StaticCredentialsProvider.create(
            AwsBasicCredentials.create(s.accessKey(), s.secretKey()));
  }
}
