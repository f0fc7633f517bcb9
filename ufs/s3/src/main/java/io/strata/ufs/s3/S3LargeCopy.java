package io.strata.ufs.s3;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/** A server-side copy of an object over S3's 5 GiB limit for one copy: a multipart copy. */
final class S3LargeCopy {
  private final S3Client s3;
  private final String bucket;
  private final long partSize;

  S3LargeCopy(S3Client s3, String bucket, long partSize) {
    this.s3 = s3;
    this.bucket = bucket;
    this.partSize = partSize;
  }

  /**
   * Copies the version of {@code from} that {@code source} describes (a part of another version
   * fails the copy) to {@code to}, which gets {@code metadata} and the source's content type.
   */
  void copy(String from, String to, HeadObjectResponse source, Map<String, String> metadata) {
    long size = source.contentLength();
    String etag = source.eTag();
    String uploadId =
        s3.createMultipartUpload(
                r -> r.bucket(bucket).key(to).metadata(metadata).contentType(source.contentType()))
            .uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      for (long at = 0; at < size; at += partSize) {
        int number = parts.size() + 1;
        String range = "bytes=" + at + "-" + (Math.min(size, at + partSize) - 1);
        String partTag =
            s3.uploadPartCopy(
                    r ->
                        r.sourceBucket(bucket)
                            .sourceKey(from)
                            .destinationBucket(bucket)
                            .destinationKey(to)
                            .uploadId(uploadId)
                            .partNumber(number)
                            .copySourceIfMatch(etag)
                            .copySourceRange(range))
                .copyPartResult()
                .eTag();
        parts.add(CompletedPart.builder().partNumber(number).eTag(partTag).build());
      }
      s3.completeMultipartUpload(
          r ->
              r.bucket(bucket)
                  .key(to)
                  .uploadId(uploadId)
                  .multipartUpload(CompletedMultipartUpload.builder().parts(parts).build()));
    } catch (RuntimeException e) {
      try {
        s3.abortMultipartUpload(r -> r.bucket(bucket).key(to).uploadId(uploadId));
      } catch (SdkException abortFailed) {
        e.addSuppressed(abortFailed);
      }
      throw e;
    }
  }
}
