package io.strata.shell;

import picocli.CommandLine.Option;

/**
 * {@code --help} alone, for commands where {@code -h} means human-readable sizes (as in Hadoop's).
 */
public final class HelpOnly {
  @Option(names = "--help", usageHelp = true, description = "Show this help message and exit.")
  boolean help;
}
