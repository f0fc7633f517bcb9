package io.strata.shell.job;

import io.strata.core.proto.GetLoadRequest;
import io.strata.core.proto.LoadCounters;
import io.strata.core.proto.LoadJob;
import io.strata.core.rpc.MasterClient;
import io.strata.shell.Formats;
import java.io.Console;
import java.io.PrintStream;
import java.util.Locale;
import me.tongfei.progressbar.DelegatingProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;

/**
 * Watches a load job until it ends and returns the finished job. On a terminal, a live progress bar
 * whose total is what the walk of the folder found so far (marked "+" until the walk ends), with
 * percentage, throughput and ETA; otherwise (a pipe, a log, CI) a plain line every few seconds,
 * without carriage returns or colours.
 */
public final class LoadFollower {
  private static final long POLL_MS = 500;
  private static final long PLAIN_EVERY_MS = 5_000;
  private static final int WIDTH = 110;

  private LoadFollower() {}

  public static LoadJob follow(MasterClient master, LoadJob job, PrintStream out, boolean terminal)
      throws InterruptedException {
    return terminal ? withBar(master, job, out) : withLines(master, job, out);
  }

  /**
   * Whether standard input and output are a terminal: on Java 17 exactly when there is a console;
   * from Java 22 on, there always is one, and it says whether it is a terminal.
   */
  @SuppressWarnings("SystemConsoleNull")
  public static boolean onTerminal() {
    Console console = System.console();
    if (console == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException beforeJava22) {
      return true;
    }
  }

  private static LoadJob withBar(MasterClient master, LoadJob job, PrintStream out)
      throws InterruptedException {
    ProgressBar bar =
        new ProgressBarBuilder()
            .setTaskName("load " + job.getId())
            .setConsumer(
                new DelegatingProgressBarConsumer(
                    line -> {
                      out.print("\r" + line);
                      out.flush();
                    },
                    WIDTH))
            .setUnit(" MiB", 1 << 20)
            .showSpeed()
            .setInitialMax(-1)
            .setUpdateIntervalMillis((int) POLL_MS)
            .build();
    try {
      LoadJob current = job;
      while (!LoadReport.finished(current)) {
        Thread.sleep(POLL_MS);
        current = poll(master, job.getId());
        LoadCounters c = current.getCounters();
        // The total grows with the walk; the bar's percentage and ETA are of what is known.
        bar.maxHint(Math.max(c.getBytesListed(), c.getBytes()));
        bar.stepTo(c.getBytes());
        bar.setExtraMessage(" " + files(c));
      }
      bar.stepTo(current.getCounters().getBytes());
      return current;
    } finally {
      bar.close();
      out.println();
    }
  }

  private static LoadJob withLines(MasterClient master, LoadJob job, PrintStream out)
      throws InterruptedException {
    long start = System.nanoTime();
    long lastLine = 0;
    LoadJob current = job;
    while (!LoadReport.finished(current)) {
      Thread.sleep(POLL_MS);
      current = poll(master, job.getId());
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      if (elapsedMs - lastLine >= PLAIN_EVERY_MS) {
        lastLine = elapsedMs;
        out.println(line(current, elapsedMs));
        out.flush();
      }
    }
    return current;
  }

  /** "load 7: 512.0MiB of 1.0GiB+ (50%), 120 of 240+ files, 0 failed, 85.3MiB/s, ETA 6 s". */
  static String line(LoadJob job, long elapsedMs) {
    LoadCounters c = job.getCounters();
    long total = Math.max(c.getBytesListed(), c.getBytes());
    String more = c.getListingDone() ? "" : "+";
    double perSecond = elapsedMs == 0 ? 0 : c.getBytes() * 1000.0 / elapsedMs;
    StringBuilder s =
        new StringBuilder()
            .append("load ")
            .append(job.getId())
            .append(": ")
            .append(Formats.bytes(c.getBytes()))
            .append(" of ")
            .append(Formats.bytes(total))
            .append(more)
            .append(" (")
            .append(Formats.percent(c.getBytes(), total))
            .append("), ")
            .append(files(c))
            .append(", ")
            .append(Formats.bytes((long) perSecond))
            .append("/s");
    if (c.getListingDone() && perSecond > 0) {
      s.append(String.format(Locale.ROOT, ", ETA %.0f s", (total - c.getBytes()) / perSecond));
    }
    return s.toString();
  }

  private static String files(LoadCounters c) {
    return String.format(
        Locale.ROOT,
        "%d of %d%s files, %d failed",
        c.getFiles(),
        c.getFilesListed(),
        c.getListingDone() ? "" : "+",
        c.getFilesFailed());
  }

  private static LoadJob poll(MasterClient master, long id) {
    return master.call("getLoad", s -> s.getLoad(GetLoadRequest.newBuilder().setId(id).build()));
  }
}
