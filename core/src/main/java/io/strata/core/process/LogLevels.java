package io.strata.core.process;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.LogLevelSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows strata.log.levels: sets each named logger's level, and gives a logger dropped from the
 * list back the level it had before. Does nothing where log4j2 is not the logging backend.
 */
final class LogLevels {
  private static final Logger LOG = LoggerFactory.getLogger(LogLevels.class);

  /** Levels loggers had before this class first changed them. */
  private final Map<String, Level> original = new HashMap<>();

  private LogLevels() {}

  static void follow(Configuration conf) {
    if (!log4jCoreAvailable()) {
      return;
    }
    LogLevels levels = new LogLevels();
    levels.apply(conf.get(CommonKeys.LOG_LEVELS));
    conf.onChange(CommonKeys.LOG_LEVELS, levels::apply);
  }

  private synchronized void apply(List<String> entries) {
    Map<String, String> wanted = LogLevelSpec.parse(entries);
    for (Map.Entry<String, Level> e : Map.copyOf(original).entrySet()) {
      if (!wanted.containsKey(e.getKey())) {
        Configurator.setLevel(e.getKey(), e.getValue());
        original.remove(e.getKey());
        LOG.info("log level of {} back to {}", e.getKey(), e.getValue());
      }
    }
    wanted.forEach(
        (logger, level) -> {
          original.computeIfAbsent(logger, l -> LogManager.getLogger(l).getLevel());
          Configurator.setLevel(logger, Level.toLevel(level));
          LOG.info("log level of {} set to {}", logger, level);
        });
  }

  static boolean log4jCoreAvailable() {
    try {
      Class.forName("org.apache.logging.log4j.core.config.Configurator");
      return LogManager.getContext(false) instanceof org.apache.logging.log4j.core.LoggerContext;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
