package io.strata.bench.s3;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code strata bench s3} sends, the same to the S3 endpoint and to the raw server: the
 * objects it writes into the under-storage folder first, then each workload against one server's
 * port, timed here.
 */
final class S3Workloads {
  static final String BUCKET = "bench";
  static final int SMALL_OBJECTS = 100;
  static final int MEDIUM_OBJECTS = 1000;
  static final int LARGE_OBJECTS = 2;
  static final int SMALL = 4 << 10;
  static final int MEDIUM = 100 << 10;
  static final int LARGE = 16 << 20;
  static final int LIST_PAGE = 1000;

  private final int smallRequests;
  private final int largeRequests;
  private final int connections;
  private final int mediumRequests;

  S3Workloads(int smallRequests, int largeRequests, int connections, int mediumRequests) {
    this.smallRequests = smallRequests;
    this.largeRequests = largeRequests;
    this.connections = connections;
    this.mediumRequests = mediumRequests;
  }

  /** {@code count} objects of {@code size} bytes in {@code folder}. */
  static void write(Path folder, int count, int size) throws IOException {
    Files.createDirectories(folder);
    Random random = new Random(size);
    byte[] data = new byte[size];
    for (int i = 0; i < count; i++) {
      random.nextBytes(data);
      Files.write(folder.resolve(name(i)), data);
    }
  }

  /** The folder of {@code keys} one-byte keys the listing lists. */
  static void writeListing(Path folder, int keys) throws IOException {
    Files.createDirectories(folder);
    byte[] one = {1};
    for (int i = 0; i < keys; i++) {
      Files.write(folder.resolve(String.format(Locale.ROOT, "k%07d", i)), one);
    }
  }

  private static String name(int i) {
    return String.format(Locale.ROOT, "o%04d", i);
  }

  static String path(String folder, int i) {
    return "/" + BUCKET + "/" + folder + "/" + name(i);
  }

  /** p50 and p99 in ms of warm 4 KiB GETs, one at a time on one connection. */
  double[] latencies(int port, SigV4Signer signer) throws IOException {
    long[] nanos = new long[smallRequests];
    try (KeepAliveClient c = new KeepAliveClient(port, signer)) {
      for (int i = 0; i < smallRequests; i++) {
        long t = System.nanoTime();
        c.get(path("small", i % SMALL_OBJECTS));
        nanos[i] = System.nanoTime() - t;
      }
    }
    Arrays.sort(nanos);
    return new double[] {
      nanos[nanos.length / 2] / 1e6, nanos[(int) Math.ceil(nanos.length * 0.99) - 1] / 1e6
    };
  }

  /** MB/s of 16 MiB GETs on one connection. */
  double largeGets(int port, SigV4Signer signer) throws IOException {
    try (KeepAliveClient c = new KeepAliveClient(port, signer)) {
      long t = System.nanoTime();
      long bytes = 0;
      for (int i = 0; i < largeRequests; i++) {
        bytes += c.get(path("large", i % LARGE_OBJECTS));
      }
      return bytes / 1e6 / ((System.nanoTime() - t) / 1e9);
    }
  }

  /** GETs per second of 100 KiB objects over {@link #connections} connections at once. */
  double mediumGets(int port, SigV4Signer signer) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(connections);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      int each = Math.max(1, mediumRequests / connections);
      long t = System.nanoTime();
      for (int k = 0; k < connections; k++) {
        int seed = k;
        done.add(
            pool.submit(
                () -> {
                  Random random = new Random(seed);
                  try (KeepAliveClient c = new KeepAliveClient(port, signer)) {
                    for (int i = 0; i < each; i++) {
                      c.get(path("medium", random.nextInt(MEDIUM_OBJECTS)));
                    }
                  }
                  return each;
                }));
      }
      int n = 0;
      for (Future<Integer> f : done) {
        n += f.get();
      }
      return n / ((System.nanoTime() - t) / 1e9);
    } finally {
      pool.shutdownNow();
    }
  }

  /** MB/s of 16 MiB PUTs on one connection, into {@code folder} of the bucket. */
  double puts(int port, SigV4Signer signer, byte[] body, String folder) throws IOException {
    try (KeepAliveClient c = new KeepAliveClient(port, signer)) {
      long t = System.nanoTime();
      for (int i = 0; i < largeRequests; i++) {
        c.put(path(folder, i), body);
      }
      return (long) largeRequests * body.length / 1e6 / ((System.nanoTime() - t) / 1e9);
    }
  }

  private static final Pattern KEY = Pattern.compile("<Key>");
  private static final Pattern NEXT =
      Pattern.compile("<NextContinuationToken>([^<]*)</NextContinuationToken>");

  /** Seconds to list the folder of {@code keys} keys with a delimiter, page by page. */
  double list(int port, SigV4Signer signer, int keys) throws IOException {
    try (KeepAliveClient c = new KeepAliveClient(port, signer)) {
      long t = System.nanoTime();
      int listed = 0;
      String token = null;
      do {
        Map<String, String> q = new HashMap<>();
        q.put("list-type", "2");
        q.put("prefix", "list/");
        q.put("delimiter", "/");
        q.put("max-keys", String.valueOf(LIST_PAGE));
        if (token != null) {
          q.put("continuation-token", token);
        }
        String page = new String(c.getBody("/" + BUCKET, q), StandardCharsets.UTF_8);
        Matcher k = KEY.matcher(page);
        while (k.find()) {
          listed++;
        }
        Matcher next = NEXT.matcher(page);
        token = next.find() ? unescape(next.group(1)) : null;
      } while (token != null);
      double seconds = (System.nanoTime() - t) / 1e9;
      if (listed != keys) {
        throw new IllegalStateException("listed " + listed + " keys of " + keys);
      }
      return seconds;
    }
  }

  private static String unescape(String xml) {
    return xml.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&");
  }
}
