package io.strata.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The CPU time the JIT compiler threads ("C1 CompilerThread0", "C2 CompilerThread0", ...) of some
 * JVMs on this host have used, from /proc (Linux): how much a measurement's processes are still
 * compiling.
 */
public final class Compilers {

  private final List<Long> pids;

  private Compilers(List<Long> pids) {
    this.pids = List.copyOf(pids);
  }

  /** The compilers of these processes. */
  public static Compilers of(long... pids) {
    return new Compilers(Arrays.stream(pids).boxed().toList());
  }

  /** The compilers of this JVM and of {@code others}. */
  public static Compilers thisJvmAnd(long... others) {
    long[] all = Arrays.copyOf(others, others.length + 1);
    all[others.length] = ProcessHandle.current().pid();
    return of(all);
  }

  /**
   * Milliseconds of CPU the compiler threads of the processes have used, those that still run (the
   * JVM stops compiler threads it no longer needs); -1 where /proc cannot be read.
   */
  public long cpuMillis() {
    long ticks = 0;
    for (long pid : pids) {
      try (DirectoryStream<Path> tasks =
          Files.newDirectoryStream(Path.of("/proc/" + pid + "/task"))) {
        for (Path task : tasks) {
          ticks += compilerTicks(task);
        }
      } catch (IOException | RuntimeException e) {
        return -1;
      }
    }
    return ticks * ProcessCpu.MILLIS_PER_TICK;
  }

  private static long compilerTicks(Path task) {
    try {
      if (!isCompiler(Files.readString(task.resolve("comm")))) {
        return 0;
      }
      return ProcessCpu.ticks(Files.readString(task.resolve("stat")));
    } catch (IOException e) {
      return 0; // the thread ended meanwhile
    }
  }

  static boolean isCompiler(String comm) {
    return comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre");
  }
}
