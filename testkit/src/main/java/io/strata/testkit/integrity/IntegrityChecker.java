package io.strata.testkit.integrity;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.conf.WorkerKeys;
import io.strata.core.status.StrataException;
import io.strata.testkit.ForkedCluster;
import io.strata.testkit.integrity.Versions.Version;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A randomized, seeded check of Strata's first promise: a read returns the bytes of exactly one
 * version of the file that existed during the read, or an error, never a mix, a hole or a short
 * read. Writers keep replacing a set of files with self-describing contents ({@link
 * SelfDescribing}) through the Java client (THROUGH and CACHE_THROUGH), straight into the
 * under-storage and through a FUSE mount (when one is given); readers read whole files and random
 * ranges through clients reaching the workers each its own way (see {@link #clients}) and through
 * the mount; meanwhile {@link Chaos} kills and restarts processes, evicts pages, changes
 * configuration and sends hostile requests. Bounded in time; errors are counted apart, as they are
 * allowed.
 */
public final class IntegrityChecker {
  /**
   * What to run. {@code fuseMount} (may be null) shows the cluster's root; readers read and writers
   * write through it too. {@code passthroughMount} (may be null) shows it read-only, the opens of
   * files the workers keep whole passing through to them: readers read through it too.
   */
  public record Options(
      long seed,
      Duration duration,
      int files,
      int writers,
      int readers,
      Path fuseMount,
      Path passthroughMount) {

    /** Without a read-only mount. */
    public Options(
        long seed, Duration duration, int files, int writers, int readers, Path fuseMount) {
      this(seed, duration, files, writers, readers, fuseMount, null);
    }
  }

  private final List<FileSystem> clients;
  private final FileSystem fs;
  private final Path ufsRoot;
  private final Options options;
  private final Versions versions = new Versions();
  private final Report report = new Report();
  private final List<String> paths = new ArrayList<>();

  /**
   * Checks through {@code clients} (the first also writes); {@code ufsRoot} is the cluster's root
   * mount's folder.
   */
  public IntegrityChecker(List<FileSystem> clients, Path ufsRoot, Options options) {
    this.clients = List.copyOf(clients);
    this.fs = clients.get(0);
    this.ufsRoot = ufsRoot;
    this.options = options;
    for (int i = 0; i < options.files(); i++) {
      paths.add("/integrity/f" + i);
    }
  }

  /**
   * The cluster the checks run on: a master and two workers in JVMs of their own, with domain
   * sockets and SSD caches (so reads take every path, short-circuit included), small pages and
   * segments (so files span many), frequent master snapshots, and short timeouts (so a killed
   * process is noticed within the run).
   */
  public static ForkedCluster.Builder cluster() {
    return ForkedCluster.builder()
        .masters(1)
        .workers(2)
        .domainSockets()
        .ssd("256MiB")
        .property(WorkerKeys.PAGE_SIZE, "64KiB")
        .property(WorkerKeys.SEGMENT_SIZE, "4MiB")
        .property(MasterKeys.CHECKPOINT_PERIOD_ENTRIES, "10")
        .property(MasterKeys.WORKER_TIMEOUT, "3s")
        .property(UserKeys.READ_TIMEOUT, "5s")
        .property(UserKeys.METADATA_CACHE_TTL, "1s");
  }

  /**
   * Configurations of the clients a check reads through, on this host: by short-circuit and domain
   * socket (the default), by domain socket alone, and by TCP.
   */
  public static List<Configuration> clients(Configuration base) {
    Configuration socketOnly = base.copy();
    socketOnly.set(UserKeys.SHORT_CIRCUIT, "false");
    Configuration tcp = base.copy();
    tcp.set(UserKeys.DOMAIN_SOCKET, "false");
    return List.of(base, socketOnly, tcp);
  }

  /** Clients of {@code cluster}, one for each of {@link #clients}; the caller closes them. */
  public static List<FileSystem> clientsOf(ForkedCluster cluster) {
    return clients(cluster.clientConf()).stream().map(FileSystem::create).toList();
  }

  /** The files the checker writes and reads. */
  public List<String> paths() {
    return paths;
  }

  /** Runs writers and readers (and {@code chaos}, if not null) for the options' duration. */
  public Report run(Chaos chaos) throws InterruptedException, IOException {
    long end = System.nanoTime() + options.duration().toNanos();
    for (int i = 0; i < paths.size(); i++) {
      write(i, new Random(options.seed() + i), true);
    }
    int threads = options.writers() + options.readers() + (chaos == null ? 0 : 1);
    AtomicLong named = new AtomicLong();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads, task -> new Thread(task, THREAD_PREFIX + named.incrementAndGet()));
    try {
      for (int w = 0; w < options.writers(); w++) {
        Random r = new Random(options.seed() * 31 + w);
        pool.execute(() -> loop(end, () -> write(r.nextInt(paths.size()), r, false)));
      }
      for (int w = 0; w < options.readers(); w++) {
        Random r = new Random(options.seed() * 17 + w);
        pool.execute(() -> loop(end, () -> read(r.nextInt(paths.size()), r)));
      }
      if (chaos != null) {
        Random r = new Random(options.seed() * 13);
        pool.execute(() -> loop(end, () -> chaos.step(r, report)));
      }
    } finally {
      pool.shutdown();
    }
    if (!pool.awaitTermination(options.duration().plus(GRACE).toSeconds(), TimeUnit.SECONDS)) {
      String stuck = stuckThreads();
      System.out.println("integrity checker threads still running after their end:\n" + stuck);
      if (chaos != null) {
        System.out.println("what the cluster's processes are doing:\n" + chaos.threadDumps());
      }
      pool.shutdownNow();
      pool.awaitTermination(20, TimeUnit.SECONDS);
      report.violation(
          "the checker's threads did not stop: "
              + String.join(" | ", stuck.lines().limit(12).toList()));
    }
    return report;
  }

  /**
   * How long after the run's end its threads may take to stop: a step begun just before the end may
   * be a restart (a SIGKILL confirmed within 30 s, a start within 60 s). Past it, the threads still
   * running are a violation, shown with their stacks and the cluster's.
   */
  public static final Duration GRACE = Duration.ofSeconds(100);

  private static final String THREAD_PREFIX = "integrity-";

  /** The stacks of this checker's threads still running. */
  private static String stuckThreads() {
    StringBuilder out = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (t, stack) -> {
              if (t.getName().startsWith(THREAD_PREFIX)) {
                out.append(t.getName()).append(' ').append(t.getState()).append('\n');
                for (StackTraceElement e : stack) {
                  out.append("    at ").append(e).append('\n');
                }
              }
            });
    return out.toString();
  }

  /**
   * A moment after an error before the next step: a mount whose process is being restarted fails
   * every call at once (ENOTCONN), and seven threads retrying it in a tight loop took the cores
   * from the processes being restarted (46,015 errors counted in one 40 s run).
   */
  private static void pauseAfterError() {
    try {
      Thread.sleep(ERROR_PAUSE_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static final long ERROR_PAUSE_MILLIS = 20;

  private interface Step {
    void run() throws Exception;
  }

  private void loop(long end, Step step) {
    while (System.nanoTime() < end && !Thread.currentThread().isInterrupted()) {
      try {
        step.run();
      } catch (StrataException | IOException e) {
        report.error();
        pauseAfterError();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Exception | AssertionError e) {
        report.violation("unexpected " + e);
      }
    }
  }

  // ---- writes ----

  private void write(int file, Random r, boolean first) throws IOException {
    int length = 64 + r.nextInt(r.nextBoolean() ? 4096 : 3 << 20);
    int how = first ? 0 : r.nextInt(6);
    if (how == 2 && options.fuseMount() == null) {
      how = 0;
    }
    UserKeys.WriteType type =
        r.nextBoolean() ? UserKeys.WriteType.CACHE_THROUGH : UserKeys.WriteType.THROUGH;
    String by = how == 1 ? "the UFS" : how == 2 ? "the mount" : "client " + type;
    Version v = versions.begin(length, System.nanoTime(), by);
    byte[] bytes = SelfDescribing.content(file, v.number(), length);
    String path = paths.get(file);
    if (how == 1) {
      writeToUfs(path, bytes);
    } else if (how == 2) {
      writeThroughMount(path, bytes, r);
    } else {
      try (FileOutStream out = fs.create(path, new WriteOptions(true, type, 0))) {
        for (int at = 0; at < length; at += 1 << 20) {
          out.write(bytes, at, Math.min(1 << 20, length - at));
        }
      }
    }
    report.write();
  }

  /**
   * A program replacing a file on a POSIX file system: a new file renamed over the old one
   * (rewriting it in place with O_TRUNC is not atomic on any file system: readers on the same host
   * see it empty, then growing).
   */
  private void writeThroughMount(String path, byte[] bytes, Random r) throws IOException {
    Path target = options.fuseMount().resolve(path.substring(1));
    Path temp =
        target.resolveSibling(
            target.getFileName() + "." + Long.toHexString(r.nextLong()) + ".part");
    Files.write(temp, bytes);
    try {
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Another writer of the under-storage: a whole file renamed into place. */
  private void writeToUfs(String path, byte[] bytes) throws IOException {
    Path target = ufsRoot.resolve(path.substring(1));
    Files.createDirectories(target.getParent());
    Path temp = Files.createTempFile(target.getParent(), "ext-", ".part");
    Files.write(temp, bytes);
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  // ---- reads ----

  private void read(int file, Random r) throws IOException {
    if (options.passthroughMount() != null && r.nextInt(3) == 0) {
      readThroughMount("read-only mount", options.passthroughMount(), file);
      return;
    }
    if (options.fuseMount() != null && r.nextInt(3) == 0) {
      readThroughMount("mount", options.fuseMount(), file);
      return;
    }
    int c = r.nextInt(clients.size());
    FileSystem client = clients.get(c);
    try (FileInStream in = client.open(paths.get(file))) {
      long length = in.length();
      if (r.nextBoolean()) {
        byte[] all = in.readAllBytes();
        check("client " + c, file, 0, all, all.length, length, true);
      } else {
        for (int k = 0; k < 4; k++) {
          long off = length <= 64 ? 0 : (long) (r.nextDouble() * (length - 64));
          int want = 64 + r.nextInt(r.nextBoolean() ? 8192 : 2 << 20);
          byte[] buf = new byte[want];
          int got = in.positionedRead(off, buf, 0, want);
          check("client " + c, file, off, buf, Math.max(got, 0), length, false);
          if (got != Math.min(want, length - off)) {
            report.violation(
                paths.get(file)
                    + ": a read of "
                    + want
                    + " at "
                    + off
                    + " of "
                    + length
                    + " bytes returned "
                    + got);
          }
        }
      }
    }
  }

  private void readThroughMount(String reader, Path mount, int file) throws IOException {
    Path p = mount.resolve(paths.get(file).substring(1));
    byte[] all;
    try (InputStream in = Files.newInputStream(p)) {
      all = in.readAllBytes();
    }
    check(reader, file, 0, all, all.length, all.length, true);
  }

  /**
   * Bytes {@code [0, n)} read at {@code offset}: all of one version that existed before the read
   * ended, of the length the file had for the reader, whole when the read was of the whole file.
   */
  private void check(
      String reader, int file, long offset, byte[] bytes, int n, long length, boolean whole) {
    report.read();
    if (n == 0 && offset >= length) {
      return;
    }
    long number = SelfDescribing.versionOf(file, offset, bytes, n);
    Version v = number < 0 ? null : versions.get(number);
    String where =
        java.time.Instant.now()
            + " "
            + paths.get(file)
            + " at "
            + offset
            + " ("
            + n
            + " bytes, "
            + reader
            + ")";
    if (v == null) {
      report.violation(
          where
              + ": bytes of no version of this file, or of several: "
              + mixture(file, offset, bytes, n));
    } else if (v.begunNanos() - System.nanoTime() > 0) {
      report.violation(where + ": a version written after the read");
    } else if (v.length() != length) {
      report.violation(
          where
              + ": version "
              + number
              + " (written through "
              + v.how()
              + ") is "
              + v.length()
              + " bytes, the file said "
              + length);
    } else if (whole && n != length) {
      report.violation(where + ": a whole read of " + length + " bytes returned " + n);
    }
  }

  /** Labels of {@link SelfDescribing#describe} naming a version of the file read. */
  private static final Pattern VERSION_RUN = Pattern.compile("\\) version (\\d+)");

  /**
   * What a read of no one version holds, run by run, and each version of it named: its length, its
   * writer, and how long before this check its writing began.
   */
  private String mixture(int file, long offset, byte[] bytes, int n) {
    String runs = SelfDescribing.describe(file, offset, bytes, n, 8);
    StringBuilder out = new StringBuilder(runs);
    Matcher m = VERSION_RUN.matcher(runs);
    Set<Long> named = new LinkedHashSet<>();
    while (m.find()) {
      named.add(Long.parseLong(m.group(1)));
    }
    long now = System.nanoTime();
    for (long number : named) {
      Version v = versions.get(number);
      out.append("; version ").append(number);
      if (v == null) {
        out.append(" was never written");
      } else {
        out.append(
            String.format(
                Locale.ROOT,
                " is %d bytes, written through %s, begun %d ms before",
                v.length(),
                v.how(),
                TimeUnit.NANOSECONDS.toMillis(now - v.begunNanos())));
      }
    }
    return out.toString();
  }
}
