package io.strata.core.process;

import io.strata.core.conf.ConfLoader;
import io.strata.core.conf.Configuration;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code main} of every long-running process: load configuration, start, report readiness, then
 * run until SIGTERM, when a shutdown hook closes the process cleanly. Mistakes in configuration end
 * the process with one line on stderr and exit code 2; a failure to start with exit code 1. With
 * {@code --ready-file F} the process writes F once it serves requests, which is what {@code
 * bin/strata-start.sh} waits for.
 */
public final class ProcessMain {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessMain.class);
  private static final long READY_POLL_MS = 20;

  private ProcessMain() {}

  public static void run(String name, String[] args, Function<Configuration, Service> factory) {
    run(
        name,
        args,
        "",
        (conf, operands) -> {
          if (!operands.isEmpty()) {
            fail(
                2,
                name,
                "unknown argument '" + operands.get(0) + "' (usage: [--ready-file FILE])",
                null);
          }
          return factory.apply(conf);
        });
  }

  /**
   * A process that takes arguments of its own ({@code usage} names them); the factory gets them in
   * order.
   */
  public static void run(
      String name,
      String[] args,
      String usage,
      BiFunction<Configuration, List<String>, Service> factory) {
    Path readyFile = null;
    List<String> operands = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--ready-file") && i + 1 < args.length) {
        readyFile = Path.of(args[++i]);
      } else if (args[i].equals("--ready-file")) {
        fail(2, name, "--ready-file needs a FILE (usage: [--ready-file FILE] " + usage + ")", null);
      } else {
        operands.add(args[i]);
      }
    }
    JulBridge.install();
    Service service = null;
    try {
      Configuration conf = ConfLoader.load();
      service = factory.apply(conf, operands);
      CountDownLatch stopped = new CountDownLatch(1);
      Service s = service;
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    LOG.info("{} stopping", name);
                    s.close();
                    stopped.countDown();
                  },
                  name + "-shutdown"));
      long start = System.nanoTime();
      service.start();
      while (service.notReadyReason().isPresent()) {
        Thread.sleep(READY_POLL_MS);
      }
      String ready =
          String.format(
              "%s ready in %.2f s: %s",
              name, (System.nanoTime() - start) / 1e9, service.describe());
      LOG.info(ready);
      if (readyFile != null) {
        writeAtomically(readyFile, ready + "\n");
      }
      stopped.await();
    } catch (Exception e) {
      if (service != null) {
        service.close();
      }
      if (e instanceof StrataException se) {
        fail(2, name, se.oneLine(), e);
      }
      fail(1, name, "failed to start: " + e, e);
    }
  }

  private static void fail(int code, String name, String message, Throwable cause) {
    LOG.error("{}: {}", name, message, cause);
    System.err.println("strata " + name + ": " + message);
    System.exit(code);
  }

  private static void writeAtomically(Path file, String text) throws IOException {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(temp, text, StandardCharsets.UTF_8);
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
