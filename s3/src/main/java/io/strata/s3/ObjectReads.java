package io.strata.s3;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * GetObject and HeadObject: conditions (If-Match, If-None-Match, If-Modified-Since,
 * If-Unmodified-Since), one byte range (suffix ranges too), the response-* overrides. The bytes are
 * those of the version looked up, whole or not at all: a file the worker keeps whole is sent by the
 * kernel from its file (sendfile), the rest read through the client in 1 MiB steps.
 */
final class ObjectReads {
  /** One byte range as S3 reads it: FIRST-LAST, FIRST- or -SUFFIX, digits only. */
  private static final Pattern RANGE = Pattern.compile("[0-9]+-[0-9]*|-[0-9]+");

  private static final int STEP = 1 << 20;
  private static final Map<String, String> OVERRIDES =
      Map.of(
          "response-content-type", "Content-Type",
          "response-content-language", "Content-Language",
          "response-expires", "Expires",
          "response-cache-control", "Cache-Control",
          "response-content-disposition", "Content-Disposition",
          "response-content-encoding", "Content-Encoding");

  /** Versions whose metadata is remembered (an attribute read saved per GET). */
  private static final int METADATA_CACHED = 10_000;

  /** A version this recent may still get its metadata: that it has none is not remembered. */
  private static final long YOUNG_MILLIS = 10_000;

  private final FileSystem fs;
  private final boolean wholeFiles;
  private final long wholeFetchMax;

  /** The metadata of versions read lately, by path and ETag (a new version is another entry). */
  private final Cache<String, ObjectMetadata> metadata =
      Caffeine.newBuilder().maximumSize(METADATA_CACHED).build();

  /**
   * GETs through {@code fs}. With {@code wholeFiles}, a version the worker keeps whole is sent from
   * its file, which the endpoint opens itself, and objects up to {@code wholeFetchMax} are kept
   * whole first; without (a TOKEN-mode user's client), every GET opens the version through the
   * worker, which checks that the user may read it: the endpoint's own opening checks nothing.
   */
  ObjectReads(FileSystem fs, boolean wholeFiles, long wholeFetchMax) {
    this.fs = fs;
    this.wholeFiles = wholeFiles;
    this.wholeFetchMax = wholeFetchMax;
  }

  /** GET ({@code head} false) or HEAD of {@code r}'s key. */
  void get(S3Request r, S3Response out, boolean head) throws IOException {
    int part = partNumber(r);
    FileInfo f = status(r);
    String etag = S3Names.etag(f);
    ObjectMetadata kept = f.directory() ? ObjectMetadata.NONE : metadataOf(f, etag);
    out.header(HttpHeaderNames.ETAG, etag)
        .header(HttpHeaderNames.LAST_MODIFIED, S3Names.httpDate(f.mtimeMs()))
        .header(HttpHeaderNames.ACCEPT_RANGES, "bytes")
        .header(
            HttpHeaderNames.CONTENT_TYPE,
            f.directory() ? "application/x-directory" : "binary/octet-stream");
    // The checksum is the whole object's: given for a GET or HEAD of all of it, when asked.
    boolean checksums =
        "ENABLED".equalsIgnoreCase(r.header("x-amz-checksum-mode")) && r.header("range") == null;
    kept.answer(checksums).forEach(out::header);
    int condition = condition(r, etag, f.mtimeMs());
    if (condition != 200) {
      if (condition == 304) {
        out.empty(304);
        return;
      }
      throw S3Error.preconditionFailed();
    }
    for (var e : OVERRIDES.entrySet()) {
      String value = r.param(e.getKey());
      if (value != null) {
        out.header(e.getValue(), value);
      }
    }
    long length = f.directory() ? 0 : f.length();
    long[] range =
        part == 1 && length > 0 ? new long[] {0, length - 1} : range(r.header("range"), length);
    long from = 0;
    long count = length;
    int status = 200;
    if (range != null) {
      from = range[0];
      count = range[1] - range[0] + 1;
      status = 206;
      out.header(
          HttpHeaderNames.CONTENT_RANGE, "bytes " + range[0] + "-" + range[1] + "/" + length);
    }
    if (head) {
      out.header(HttpHeaderNames.CONTENT_LENGTH, count);
      out.empty(status);
      return;
    }
    send(f, from, count, status, out);
  }

  /**
   * What was kept with {@code version} (whose ETag is {@code etag}): one attribute read, then none.
   * That a version has none is remembered only once it is older than {@link #YOUNG_MILLIS}: its
   * writer sets the attribute just after publishing it.
   */
  private ObjectMetadata metadataOf(FileInfo version, String etag) {
    String id = version.path() + "\n" + etag;
    ObjectMetadata m = metadata.getIfPresent(id);
    if (m == null) {
      m = ObjectMetadata.read(fs, version.path(), etag);
      if (!m.isEmpty() || System.currentTimeMillis() - version.mtimeMs() > YOUNG_MILLIS) {
        metadata.put(id, m);
      }
    }
    return m;
  }

  private FileInfo status(S3Request r) {
    String path = S3Names.path(r.bucket(), r.key());
    FileInfo f;
    try {
      f = fs.getStatus(path);
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND || e.code() == StatusCode.NOT_A_DIRECTORY) {
        // Which is missing, as S3 says it: the bucket's look-up is paid on this path only.
        BucketOps.requireBucket(fs, r.bucket());
        throw S3Error.noSuchKey(r.key());
      }
      throw e;
    }
    // A folder is an object only by the key that ends in '/' (its marker), as S3 lists it.
    if (f.directory() != r.key().endsWith("/")) {
      throw S3Error.noSuchKey(r.key());
    }
    return f;
  }

  private void send(FileInfo f, long from, long count, int status, S3Response out)
      throws IOException {
    if (count == 0) {
      out.empty(status);
      return;
    }
    Optional<Path> whole = wholeFiles ? fs.wholeFile(f) : Optional.empty();
    if (whole.isPresent()) {
      FileChannel file = openWhole(whole.get(), f.length());
      if (file == null && wholeFetchMax > 0 && fs.keepWhole(f, wholeFetchMax)) {
        // Read whole once (from the under-storage), then sent by the kernel at every GET.
        file = openWhole(whole.get(), f.length());
      }
      if (file != null) {
        out.start(status, count);
        out.region(file, from, count);
        out.finish();
        return;
      }
    }
    out.start(status, count);
    ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    try (FileInStream in = fs.open(f)) {
      long at = from;
      long end = from + count;
      while (at < end) {
        int step = (int) Math.min(STEP, end - at);
        ByteBuf buf = alloc.directBuffer(step);
        try {
          int n = in.positionedRead(at, buf.nioBuffer(0, step));
          if (n <= 0) {
            throw new IOException(f.path() + " ended at " + at + " of " + end);
          }
          buf.writerIndex(n);
          at += n;
          out.chunk(buf);
          buf = null;
        } finally {
          if (buf != null) {
            buf.release();
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      out.breakOff();
      throw e;
    }
    out.finish();
  }

  /** The worker's whole file of the version, if it still is that long (else read as any file). */
  private static FileChannel openWhole(Path path, long length) {
    try {
      FileChannel file =
          FileChannel.open(path, StandardOpenOption.READ, java.nio.file.LinkOption.NOFOLLOW_LINKS);
      if (file.size() == length) {
        return file;
      }
      file.close();
    } catch (IOException e) {
      // Evicted meanwhile: the client reads it.
    }
    return null;
  }

  /** 200 to answer, 304 not modified, 412 a precondition failed (RFC 7232's order). */
  static int condition(S3Request r, String etag, long mtimeMs) {
    String ifMatch = r.header("if-match");
    String ifNoneMatch = r.header("if-none-match");
    long seconds = mtimeMs / 1000;
    if (ifMatch != null && !matches(ifMatch, etag)) {
      return 412;
    }
    if (ifMatch == null) {
      Long unmodifiedSince = date(r.header("if-unmodified-since"));
      if (unmodifiedSince != null && seconds > unmodifiedSince) {
        return 412;
      }
    }
    if (ifNoneMatch != null && matches(ifNoneMatch, etag)) {
      return 304;
    }
    if (ifNoneMatch == null) {
      Long modifiedSince = date(r.header("if-modified-since"));
      if (modifiedSince != null && seconds <= modifiedSince) {
        return 304;
      }
    }
    return 200;
  }

  static boolean matches(String header, String etag) {
    for (String tag : header.split(",", -1)) {
      String t = tag.trim();
      if (t.equals("*") || t.equals(etag) || ("\"" + t + "\"").equals(etag)) {
        return true;
      }
    }
    return false;
  }

  private static Long date(String header) {
    if (header == null) {
      return null;
    }
    try {
      return ZonedDateTime.parse(header, DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * {@code [first, last]} of a Range header's one range in an object of {@code length} bytes; null
   * for the whole object (no header, or one this does not take: several ranges, other units).
   */
  static long[] range(String header, long length) {
    if (header == null || !header.startsWith("bytes=") || header.indexOf(',') >= 0) {
      return null;
    }
    String spec = header.substring("bytes=".length());
    if (!RANGE.matcher(spec).matches()) {
      // As S3: a Range it cannot read (spaces, signs, other units) is ignored, not refused.
      return null;
    }
    int dash = spec.indexOf('-');
    if (dash < 0) {
      return null;
    }
    try {
      if (dash == 0) {
        long suffix = Long.parseLong(spec.substring(1));
        if (suffix <= 0) {
          throw invalidRange(length);
        }
        return length == 0 ? null : new long[] {Math.max(0, length - suffix), length - 1};
      }
      long first = Long.parseLong(spec.substring(0, dash));
      long last = dash == spec.length() - 1 ? length - 1 : Long.parseLong(spec.substring(dash + 1));
      if (first < 0 || (last < first && dash != spec.length() - 1)) {
        return null;
      }
      if (first >= length) {
        throw invalidRange(length);
      }
      return new long[] {first, Math.min(last, length - 1)};
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /**
   * The {@code partNumber} asked for: 0 if none. Every object reads here as one part (a completed
   * upload is one file, its parts' bounds not kept; its ETag has no part count), so part 1 is the
   * whole object, answered as a range of it, and any other part is not satisfiable.
   */
  private static int partNumber(S3Request r) {
    String value = r.param("partNumber");
    if (value == null) {
      return 0;
    }
    int n;
    try {
      n = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > UploadStore.MAX_PART_NUMBER) {
      throw S3Error.invalidArgument(
          "Part number must be an integer between 1 and 10000, inclusive.");
    }
    if (r.header("range") != null) {
      throw S3Error.invalidRequest(
          "Cannot specify both Range header and partNumber query parameter.");
    }
    if (n > 1) {
      throw new S3Error(416, "InvalidPartNumber", "The requested partnumber is not satisfiable");
    }
    return n;
  }

  private static S3Error invalidRange(long length) {
    return new S3Error(
        416,
        "InvalidRange",
        "The requested range is not satisfiable (the object has " + length + " bytes)");
  }
}
