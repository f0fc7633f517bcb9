package io.strata.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * One Strata process in its own JVM: started with its configuration as -D properties, ready when it
 * writes its ready file, stopped with SIGTERM or killed with SIGKILL.
 */
public final class ForkedProcess {
  private final String name;
  private final String mainClass;
  private final String classpath;
  private final List<String> jvmOptions;
  private final List<String> tail;

  /** What runs the JVM, before {@code java} (another account's setpriv), or nothing. */
  private final List<String> launcher;

  private final Path readyFile;
  private final Path output;
  private volatile Process process;

  /** Done when what this start recorded for sharing (if anything) has been kept. */
  private volatile java.util.concurrent.CompletableFuture<Void> sharingSettled =
      java.util.concurrent.CompletableFuture.completedFuture(null);

  private boolean retired;

  ForkedProcess(
      String name,
      String mainClass,
      String classpath,
      List<String> jvmOptions,
      Map<String, String> conf,
      Path dir) {
    this(name, mainClass, classpath, jvmOptions, conf, dir, List.of());
  }

  /** With {@code args} after the ready file, for processes that take arguments of their own. */
  ForkedProcess(
      String name,
      String mainClass,
      String classpath,
      List<String> jvmOptions,
      Map<String, String> conf,
      Path dir,
      List<String> args) {
    this(name, mainClass, classpath, jvmOptions, conf, dir, args, List.of());
  }

  /** Run by {@code launcher} (a command that runs the rest, as another account, say). */
  ForkedProcess(
      String name,
      String mainClass,
      String classpath,
      List<String> jvmOptions,
      Map<String, String> conf,
      Path dir,
      List<String> args,
      List<String> launcher) {
    this.name = name;
    this.launcher = List.copyOf(launcher);
    this.readyFile = dir.resolve(name + ".ready");
    this.output = dir.resolve(name + ".out");
    this.mainClass = mainClass;
    this.classpath = classpath;
    this.jvmOptions = List.copyOf(jvmOptions);
    List<String> after = new ArrayList<>();
    conf.forEach((k, v) -> after.add("-D" + k + "=" + v));
    after.add("-Dstrata.log.file=" + name + ".log");
    after.add(mainClass);
    after.add("--ready-file");
    after.add(readyFile.toString());
    after.addAll(args);
    this.tail = List.copyOf(after);
  }

  /** The command of one start: whether it records or maps shared classes depends on the moment. */
  private List<String> command(ClassDataArchive sharing) {
    List<String> cmd = new ArrayList<>(launcher);
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    if (sharing != null) {
      cmd.addAll(sharing.jvmOptions());
    }
    cmd.add("-cp");
    cmd.add(sharing != null ? sharing.classpath() : classpath);
    cmd.addAll(tail);
    return cmd;
  }

  public String name() {
    return name;
  }

  /** Starts the JVM; returns at once (see {@link #awaitReady}). */
  public synchronized void start() throws IOException {
    if (retired) {
      // A restart racing the cluster's close (a fault step at a test's time limit) would leave a
      // JVM behind that nothing stops.
      throw new IllegalStateException(name + " belongs to a closed cluster");
    }
    if (isAlive()) {
      throw new IllegalStateException(name + " is already running");
    }
    Files.deleteIfExists(readyFile);
    // Shared class archives are this account's: a process run as another neither maps nor records.
    ClassDataArchive sharing =
        launcher.isEmpty() ? ClassDataArchive.forProcess(mainClass, classpath, jvmOptions) : null;
    try {
      process =
          OwnEnvironment.of(new ProcessBuilder(command(sharing)))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
              .start();
    } catch (IOException e) {
      if (sharing != null) {
        sharing.exited();
      }
      throw e;
    }
    sharingSettled =
        sharing == null
            ? java.util.concurrent.CompletableFuture.completedFuture(null)
            : process.onExit().thenRun(sharing::exited);
  }

  /**
   * Waits for the ready file; fails with the process's last output if it dies or takes too long.
   */
  public void awaitReady(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    int bindFailures = 0;
    while (!Files.exists(readyFile)) {
      if (!process.isAlive()) {
        String tail = tail();
        String message = name + " exited with " + process.exitValue() + ": " + tail;
        if (!tail.contains("java.net.BindException")) {
          throw new IllegalStateException(message);
        }
        // Its ports are its identity (a restart comes back at the same address): a holder that
        // lets go within seconds (a socket of the process just killed, say) is waited out, and
        // named in the run's output.
        String holders = PortHolders.of(ports());
        if (++bindFailures > BIND_RETRIES || System.nanoTime() > deadline) {
          throw new PortTaken(message + "\nsockets on its ports:" + holders);
        }
        System.err.printf(
            "ForkedProcess: %s found a port taken (attempt %d); sockets on its ports:%s%n",
            name, bindFailures, holders);
        Thread.sleep(1000);
        start();
        continue;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(name + " not ready within " + timeout + ": " + tail());
      }
      Thread.sleep(20);
    }
  }

  /**
   * A process that could not bind a port picked for it: another process of the machine took it
   * between the pick and the bind (a port free when picked cannot be reserved across processes).
   */
  public static final class PortTaken extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    PortTaken(String message) {
      super(message);
    }
  }

  private static final int BIND_RETRIES = 3;

  /** The ports its configuration names (every {@code -D...port=N}). */
  private List<Integer> ports() {
    List<Integer> ports = new ArrayList<>();
    for (String arg : tail) {
      java.util.regex.Matcher m = PORT.matcher(arg);
      if (m.matches() && !m.group(1).equals("0")) {
        ports.add(Integer.parseInt(m.group(1)));
      }
    }
    return ports;
  }

  private static final java.util.regex.Pattern PORT =
      java.util.regex.Pattern.compile("-D[\\w.]*port=(\\d+)");

  /** From now on the process is not started again; the caller stops it. */
  synchronized void retire() {
    retired = true;
  }

  public boolean isAlive() {
    return process != null && process.isAlive();
  }

  public long pid() {
    return process.pid();
  }

  /**
   * SIGKILL, and wait until the process is gone; fails, saying where the kernel holds it, if it is
   * not gone within 30 s.
   */
  public void kill() throws InterruptedException {
    if (isAlive()) {
      process.destroyForcibly();
      if (!process.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            name
                + " still there "
                + KILL_WAIT.toSeconds()
                + " s after SIGKILL: "
                + StuckProcess.describe(process.pid()));
      }
    }
  }

  private static final Duration KILL_WAIT = Duration.ofSeconds(30);

  /**
   * SIGKILL, and wait up to {@code wait} for the process to be gone; whether it is. A FUSE process
   * killed while a thread of it was blocked in the kernel on its own mount is not gone until its
   * connection is aborted ({@link io.strata.core.util.FuseConnections}).
   */
  public boolean killWithin(Duration wait) throws InterruptedException {
    if (isAlive()) {
      process.destroyForcibly();
      return process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS);
    }
    return true;
  }

  /**
   * What each thread of the running process is doing: the JVM's own dump (it prints one to its
   * output on SIGQUIT) and the kernel's view ({@link StuckProcess}); empty if it is not running.
   */
  public String threadDump() throws IOException, InterruptedException {
    if (!isAlive()) {
      return "";
    }
    long before = Files.exists(output) ? Files.size(output) : 0;
    new ProcessBuilder("kill", "-QUIT", Long.toString(process.pid())).start().waitFor();
    Thread.sleep(1000);
    byte[] all = Files.readAllBytes(output);
    String printed =
        new String(
            all,
            (int) Math.min(before, all.length),
            (int) Math.max(0, all.length - before),
            java.nio.charset.StandardCharsets.UTF_8);
    return "== " + name + "\n" + printed + "\n" + StuckProcess.describe(process.pid()) + "\n";
  }

  /** SIGTERM (a clean shutdown), and wait for it. */
  public void stop() throws InterruptedException {
    if (isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        kill();
      }
    }
    // A start right after this one maps what it recorded.
    sharingSettled.join();
  }

  /** Exit code of a process that ended. */
  public int exitValue() {
    return process.exitValue();
  }

  /** The last {@code max} lines of what the process printed that {@code which} accepts. */
  public List<String> outputLines(Predicate<String> which, int max) throws IOException {
    if (!Files.exists(output)) {
      return List.of();
    }
    try (Stream<String> lines = Files.lines(output)) {
      List<String> kept = lines.filter(which).toList();
      return kept.subList(Math.max(0, kept.size() - max), kept.size());
    }
  }

  /** The last lines the process printed. */
  public String tail() throws IOException {
    if (!Files.exists(output)) {
      return "";
    }
    List<String> lines = Files.readAllLines(output);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
  }
}
