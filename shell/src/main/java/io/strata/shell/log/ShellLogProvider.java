package io.strata.shell.log;

import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The shell's logging: messages at or above {@code io.strata.shell.log.level} (WARN unless set) go
 * to the file {@code io.strata.shell.log.file}, which the first message of a command truncates, so
 * it holds the last command that logged anything. A shell command is a short-lived JVM, and setting
 * up log4j (scanning the class path for providers and properties, a logger context) cost a tenth of
 * its wall time; this costs nothing until something is logged.
 *
 * <p>Chosen with {@code -Dslf4j.provider=io.strata.shell.log.ShellLogProvider} by {@code
 * bin/strata}; deliberately not listed in META-INF/services, where it would compete with log4j in
 * the servers, which share the class path.
 */
public final class ShellLogProvider implements SLF4JServiceProvider, ILoggerFactory {
  public static final String LEVEL_PROPERTY = "io.strata.shell.log.level";
  public static final String FILE_PROPERTY = "io.strata.shell.log.file";

  private final Map<String, Logger> loggers = new ConcurrentHashMap<>();
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();
  private ShellLogFile file;
  private Level threshold = Level.WARN;

  @Override
  public void initialize() {
    threshold = parseLevel(System.getProperty(LEVEL_PROPERTY));
    file = new ShellLogFile(System.getProperty(FILE_PROPERTY));
  }

  static Level parseLevel(String name) {
    if (name == null || name.isBlank()) {
      return Level.WARN;
    }
    try {
      return Level.valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      return Level.WARN;
    }
  }

  @Override
  public Logger getLogger(String name) {
    return loggers.computeIfAbsent(name, n -> new ShellLogger(n, threshold, file));
  }

  @Override
  public ILoggerFactory getLoggerFactory() {
    return this;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }
}
