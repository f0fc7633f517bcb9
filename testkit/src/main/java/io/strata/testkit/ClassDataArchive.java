package io.strata.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Class-data sharing for the JVMs a test forks: a server loads 6,000 to 8,000 classes before it is
 * ready, and a suite starts a few hundred of them. The first JVM of a main class and class path
 * records the classes it loaded when it exits ({@code -XX:ArchiveClassesAtExit}); later ones map
 * that record instead of loading and verifying again (a master is ready in about 1.0 s instead of
 * 1.9 s here, with a second less CPU, which two test JVMs on two cores share).
 *
 * <p>Off unless the system property {@value #DIR_PROPERTY} names a folder (the integration tests'
 * pom does). The JDK archives classes of jars only, so each non-empty folder of the class path
 * (test classes and their resources) goes into a jar of its own there first. At most one JVM per
 * archive records at a time (a claim file), so two test JVMs starting clusters at once pay the
 * recording once. A record of jars that changed since is dropped and made again; the JVM itself
 * refuses one that does not match its class path, and then simply runs without it.
 */
final class ClassDataArchive {
  static final String DIR_PROPERTY = "strata.test.cds.dir";

  /** A claim older than this belongs to a JVM that never exited normally: it is taken over. */
  private static final Duration STALE_CLAIM = Duration.ofMinutes(5);

  private static final List<String> QUIET = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
  private static final Map<Path, Path> PACKED = new ConcurrentHashMap<>();
  private static final AtomicLong RECORDINGS = new AtomicLong();

  private final String classpath;
  private final List<String> jvmOptions;
  private final Path record;
  private final Path archive;
  private final Path claim;

  private ClassDataArchive(
      String classpath, List<String> jvmOptions, Path record, Path archive, Path claim) {
    this.classpath = classpath;
    this.jvmOptions = jvmOptions;
    this.record = record;
    this.archive = archive;
    this.claim = claim;
  }

  /**
   * How to start {@code mainClass} on {@code classpath} with sharing; null when sharing is off or
   * the options already decide it.
   */
  static ClassDataArchive forProcess(String mainClass, String classpath, List<String> options) {
    String dir = System.getProperty(DIR_PROPERTY);
    if (dir == null || dir.isBlank() || options.stream().anyMatch(o -> o.startsWith("-Xshare:o"))) {
      return null;
    }
    try {
      Path folder = Files.createDirectories(Path.of(dir));
      String shared = packedClasspath(folder, classpath);
      Path archive = folder.resolve(key(mainClass, shared) + ".jsa");
      Path claim = folder.resolve(archive.getFileName() + ".recording");
      if (Files.exists(archive) && !olderThanAJar(archive, shared)) {
        return new ClassDataArchive(
            shared, with("-XX:SharedArchiveFile=" + archive), null, archive, claim);
      }
      if (!claimRecording(claim)) {
        return new ClassDataArchive(shared, List.of(), null, archive, claim);
      }
      Files.deleteIfExists(archive);
      Path record =
          folder.resolve(
              archive.getFileName()
                  + "."
                  + ProcessHandle.current().pid()
                  + "-"
                  + RECORDINGS.incrementAndGet()
                  + ".tmp");
      return new ClassDataArchive(
          shared, with("-XX:ArchiveClassesAtExit=" + record), record, archive, claim);
    } catch (IOException | UncheckedIOException e) {
      // Sharing only saves time: without it the process starts as it always did.
      return null;
    }
  }

  /** The class path to start the JVM with: the same classes, folders as jars. */
  String classpath() {
    return classpath;
  }

  List<String> jvmOptions() {
    return jvmOptions;
  }

  /**
   * After the JVM ended: keeps what it recorded (nothing, if it was killed) and frees the claim, so
   * that a killed recorder's successor records instead.
   */
  void exited() {
    if (record == null) {
      return;
    }
    try {
      if (Files.exists(record) && Files.size(record) > 0) {
        Files.move(record, archive, StandardCopyOption.ATOMIC_MOVE);
      }
      Files.deleteIfExists(record);
      Files.deleteIfExists(claim);
    } catch (IOException e) {
      // Only time is lost: the claim goes stale and a later JVM records again.
    }
  }

  private static List<String> with(String option) {
    List<String> all = new ArrayList<>(QUIET);
    all.add(0, option);
    return List.copyOf(all);
  }

  private static boolean claimRecording(Path claim) throws IOException {
    try {
      Files.createFile(claim);
      return true;
    } catch (FileAlreadyExistsException e) {
      FileTime at;
      try {
        at = Files.getLastModifiedTime(claim);
      } catch (java.nio.file.NoSuchFileException gone) {
        return false;
      }
      if (at.toInstant().isBefore(Instant.now().minus(STALE_CLAIM))) {
        Files.setLastModifiedTime(claim, FileTime.from(Instant.now()));
        return true;
      }
      return false;
    }
  }

  private static boolean olderThanAJar(Path archive, String classpath) throws IOException {
    FileTime recorded = Files.getLastModifiedTime(archive);
    for (String entry : classpath.split(java.io.File.pathSeparator, -1)) {
      Path jar = Path.of(entry);
      if (Files.isRegularFile(jar) && Files.getLastModifiedTime(jar).compareTo(recorded) > 0) {
        return true;
      }
    }
    return false;
  }

  private static String packedClasspath(Path folder, String classpath) throws IOException {
    List<String> entries = new ArrayList<>();
    for (String entry : classpath.split(java.io.File.pathSeparator, -1)) {
      if (entry.isEmpty()) {
        continue;
      }
      Path path = Path.of(entry);
      if (!Files.isDirectory(path)) {
        entries.add(entry);
        continue;
      }
      try (Stream<Path> children = Files.list(path)) {
        if (children.findAny().isEmpty()) {
          continue;
        }
      }
      entries.add(packed(folder, path.toAbsolutePath().normalize()).toString());
    }
    return String.join(java.io.File.pathSeparator, entries);
  }

  /**
   * A jar of folder {@code dir}, made once per JVM; named by the folder and its newest file, so
   * that a rebuilt folder gets a new jar and a jar a recording names never changes under it.
   */
  private static Path packed(Path folder, Path dir) {
    return PACKED.computeIfAbsent(
        dir,
        d -> {
          try {
            List<Path> files;
            try (Stream<Path> walk = Files.walk(d)) {
              files = walk.filter(Files::isRegularFile).sorted().toList();
            }
            long newest = 0;
            for (Path f : files) {
              newest = Math.max(newest, Files.getLastModifiedTime(f).toMillis());
            }
            Path jar =
                folder.resolve("folder-" + key(d.toString(), newest + "/" + files.size()) + ".jar");
            if (!Files.exists(jar)) {
              writeJar(d, files, jar);
            }
            return jar;
          } catch (IOException e) {
            throw new UncheckedIOException("packing " + d + " into a jar", e);
          }
        });
  }

  private static void writeJar(Path dir, List<Path> files, Path jar) throws IOException {
    Path tmp = Files.createTempFile(jar.getParent(), jar.getFileName().toString(), ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp);
        JarOutputStream zip = new JarOutputStream(out)) {
      for (Path f : files) {
        zip.putNextEntry(new JarEntry(dir.relativize(f).toString().replace('\\', '/')));
        Files.copy(f, zip);
        zip.closeEntry();
      }
    }
    try {
      // A link fails where a jar is already there (the other test JVM packed it): a jar is never
      // replaced, so the jars a record names keep the times the JVM checks.
      Files.createLink(jar, tmp);
    } catch (FileAlreadyExistsException e) {
      // Packed by the other test JVM at the same time: the same files.
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static String key(String a, String b) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(a.getBytes(StandardCharsets.UTF_8));
      sha.update((byte) 0);
      sha.update(b.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(sha.digest(), 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
