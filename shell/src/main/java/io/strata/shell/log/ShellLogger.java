package io.strata.shell.log;

import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** One named logger of the shell: formats messages at or above its threshold into the log file. */
final class ShellLogger extends LegacyAbstractLogger {
  private static final long serialVersionUID = 1L;

  private final int threshold;
  private final transient ShellLogFile file;

  ShellLogger(String name, Level threshold, ShellLogFile file) {
    this.name = name;
    this.threshold = threshold.toInt();
    this.file = file;
  }

  private boolean enabled(Level level) {
    return level.toInt() >= threshold;
  }

  @Override
  public boolean isTraceEnabled() {
    return enabled(Level.TRACE);
  }

  @Override
  public boolean isDebugEnabled() {
    return enabled(Level.DEBUG);
  }

  @Override
  public boolean isInfoEnabled() {
    return enabled(Level.INFO);
  }

  @Override
  public boolean isWarnEnabled() {
    return enabled(Level.WARN);
  }

  @Override
  public boolean isErrorEnabled() {
    return enabled(Level.ERROR);
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level, Marker marker, String pattern, Object[] args, Throwable thrown) {
    file.write(level, name, MessageFormatter.basicArrayFormat(pattern, args), thrown);
  }
}
