package io.strata.ufs.s3;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UfsStatus;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Ranged GETs of one version of an object: each asks for that version's ETag (If-Match), and the
 * answer's ETag is checked too (stores that ignore If-Match), so bytes of a replaced object are
 * never returned as the opened version's. A GET goes the lean way ({@link S3ObjectGets}) first and
 * through the SDK when that did not get the bytes.
 */
final class S3Reader implements UfsReader {
  private static final int CHUNK = 64 << 10;

  /** Copies into direct buffers; a reader is opened per page, so the array is per thread. */
  private static final ThreadLocal<byte[]> CHUNKS = ThreadLocal.withInitial(() -> new byte[CHUNK]);

  private final S3Client s3;
  private final S3ObjectGets gets;
  private final String bucket;
  private final String key;
  private final UfsStatus version;
  private final String etag;
  private final String label;

  S3Reader(
      S3Client s3,
      S3ObjectGets gets,
      String bucket,
      String key,
      UfsStatus version,
      String etag,
      String label) {
    this.s3 = s3;
    this.gets = gets;
    this.bucket = bucket;
    this.key = key;
    this.version = version;
    this.etag = etag;
    this.label = label;
  }

  @Override
  public int readFully(long position, ByteBuffer dst) throws IOException {
    return (int) readFully(position, new ByteBuffer[] {dst});
  }

  /** One ranged GET for all of {@code dsts}: S3 charges, and a store spends most, per request. */
  @Override
  public long readFully(long position, ByteBuffer[] dsts) throws IOException {
    long wanted = 0;
    for (ByteBuffer d : dsts) {
      wanted += d.remaining();
    }
    long n = Math.min(wanted, version.length() - position);
    if (n <= 0) {
      return 0;
    }
    Optional<InputStream> lean = gets.open(key, position, n, version.length(), etag);
    if (lean.isPresent()) {
      try (InputStream in = lean.get()) {
        fill(dsts, in, n);
      }
      return n;
    }
    GetObjectRequest request =
        GetObjectRequest.builder()
            .bucket(bucket)
            .key(key)
            .range("bytes=" + position + "-" + (position + n - 1))
            .ifMatch(etag)
            .build();
    try (ResponseInputStream<GetObjectResponse> in = s3.getObject(request)) {
      if (!unquoted(etag).equals(unquoted(in.response().eTag()))) {
        throw new StrataException(
            StatusCode.FAILED_PRECONDITION, key + " changed in " + label + " while being read");
      }
      fill(dsts, in, n);
      return n;
    } catch (SdkException e) {
      throw S3Errors.toStrata(e, key, label);
    }
  }

  /** The first {@code n} bytes of {@code in} into {@code dsts}, in their order. */
  private void fill(ByteBuffer[] dsts, InputStream in, long n) throws IOException {
    long left = n;
    for (ByteBuffer dst : dsts) {
      int part = (int) Math.min(left, dst.remaining());
      copy(in, dst, part);
      left -= part;
      if (left == 0) {
        break;
      }
    }
  }

  private void copy(InputStream in, ByteBuffer dst, int n) throws IOException {
    int left = n;
    while (left > 0) {
      int got;
      if (dst.hasArray()) {
        got = in.read(dst.array(), dst.arrayOffset() + dst.position(), left);
        if (got > 0) {
          dst.position(dst.position() + got);
        }
      } else {
        byte[] chunk = CHUNKS.get();
        got = in.read(chunk, 0, Math.min(left, CHUNK));
        if (got > 0) {
          dst.put(chunk, 0, got);
        }
      }
      if (got < 0) {
        throw new EOFException(key + " in " + label + " ended " + left + " bytes early");
      }
      left -= got;
    }
  }

  /** Stores differ in quoting ETags; the quotes are not part of the tag. */
  static String unquoted(String etag) {
    return etag == null ? "" : etag.replace("\"", "");
  }

  @Override
  public long length() {
    return version.length();
  }

  /** The opened version's: every read checked that it served that version's bytes. */
  @Override
  public String currentFingerprint() {
    return version.fingerprint();
  }

  @Override
  public void close() {}
}
