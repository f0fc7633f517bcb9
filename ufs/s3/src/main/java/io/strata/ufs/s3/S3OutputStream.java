package io.strata.ufs.s3;

import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsOutputStream;
import io.strata.core.ufs.UfsStatus;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * A new object, invisible until {@link #close}: a file up to one part is one PUT; a larger one is a
 * multipart upload, begun when the first part is full and completed on close, or aborted (no orphan
 * parts) on {@link #abort} or on any failure.
 */
final class S3OutputStream extends UfsOutputStream {
  private final S3Bucket ufs;
  private final S3Client s3;
  private final String bucket;
  private final String key;
  private final boolean overwrite;
  private final int partSize;
  private final Map<String, String> metadata;

  /** The part being filled; grows up to the part size, so that a small file costs little. */
  private byte[] part = new byte[64 << 10];

  private int filled;
  private long written;
  private String uploadId;
  private final List<CompletedPart> parts = new ArrayList<>();
  private boolean closed;
  private UfsStatus published;

  /**
   * @param metadata the new object's user metadata ({@link S3Metadata})
   */
  S3OutputStream(
      S3Bucket ufs, String key, boolean overwrite, int partSize, Map<String, String> metadata) {
    this.ufs = ufs;
    this.metadata = Map.copyOf(metadata);
    this.s3 = ufs.s3;
    this.bucket = ufs.name;
    this.key = key;
    this.overwrite = overwrite;
    this.partSize = partSize;
  }

  @Override
  public void write(int b) throws IOException {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] b, int off, int len) throws IOException {
    if (closed) {
      throw new IOException("write of " + key + " after it ended");
    }
    while (len > 0) {
      if (filled == part.length && part.length < partSize) {
        part = Arrays.copyOf(part, (int) Math.min(partSize, 2L * part.length));
      }
      int n = Math.min(len, part.length - filled);
      System.arraycopy(b, off, part, filled, n);
      filled += n;
      written += n;
      off += n;
      len -= n;
      if (filled == partSize) {
        uploadPart();
      }
    }
  }

  private void uploadPart() {
    try {
      if (uploadId == null) {
        uploadId =
            s3.createMultipartUpload(r -> r.bucket(bucket).key(key).metadata(metadata)).uploadId();
      }
      int number = parts.size() + 1;
      String etag =
          s3.uploadPart(
                  r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(number),
                  RequestBody.fromBytes(Arrays.copyOf(part, filled)))
              .eTag();
      parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
      filled = 0;
    } catch (SdkException e) {
      abort();
      throw ufs.error(e, key);
    }
  }

  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    try {
      if (!overwrite && ufs.exists(key)) {
        throw StrataException.alreadyExists(key + " already exists");
      }
      String etag;
      if (uploadId == null) {
        etag =
            s3.putObject(
                    r ->
                        r.bucket(bucket)
                            .key(key)
                            .metadata(metadata)
                            .ifNoneMatch(overwrite ? null : "*"),
                    RequestBody.fromBytes(Arrays.copyOf(part, filled)))
                .eTag();
      } else {
        if (filled > 0) {
          uploadPart();
        }
        etag =
            s3.completeMultipartUpload(
                    r ->
                        r.bucket(bucket)
                            .key(key)
                            .ifNoneMatch(overwrite ? null : "*")
                            .uploadId(uploadId)
                            .multipartUpload(
                                CompletedMultipartUpload.builder().parts(parts).build()))
                .eTag();
      }
      closed = true;
      published = ufs.publishedStatus(key, etag, written);
    } catch (SdkException e) {
      abort();
      throw ufs.error(e, key);
    } catch (RuntimeException e) {
      abort();
      throw e;
    }
  }

  @Override
  public void abort() {
    if (closed) {
      return;
    }
    closed = true;
    if (uploadId != null) {
      try {
        s3.abortMultipartUpload(
            AbortMultipartUploadRequest.builder()
                .bucket(bucket)
                .key(key)
                .uploadId(uploadId)
                .build());
      } catch (SdkException e) {
        // discard() at the worker's next start aborts it.
        ufs.warn("cannot abort the upload of " + key, e);
      }
    }
  }

  @Override
  public String token() {
    return S3UnderFileSystem.UPLOAD_TOKEN + key;
  }

  @Override
  public long bytesWritten() {
    return written;
  }

  @Override
  public UfsStatus published() {
    if (published == null) {
      throw new IllegalStateException(key + " is not published");
    }
    return published;
  }
}
