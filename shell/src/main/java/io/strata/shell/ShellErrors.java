package io.strata.shell;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The shell's one mapping from failures to what a person sees: one line, "strata: CODE: message",
 * and a non-zero exit code. Stack traces go to the log only. A named class rather than lambdas:
 * picocli's handler interfaces are compiled for Java 5, and a lambda implementing one keeps it out
 * of the shell's class archive (-Xshare:dump skips an old class linked for a lambda).
 */
public final class ShellErrors
    implements CommandLine.IExecutionExceptionHandler, CommandLine.IParameterExceptionHandler {
  public static final int EXIT_FAILURE = 1;
  public static final int EXIT_USAGE = 2;
  private static final Logger LOG = LoggerFactory.getLogger(ShellErrors.class);

  @Override
  public int handleExecutionException(
      Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
    cmd.getErr().println("strata: " + describe(e));
    return EXIT_FAILURE;
  }

  @Override
  public int handleParseException(CommandLine.ParameterException e, String[] args) {
    e.getCommandLine()
        .getErr()
        .println(
            "strata: "
                + e.getMessage()
                + " (see '"
                + e.getCommandLine().getCommandSpec().qualifiedName()
                + " --help')");
    return EXIT_USAGE;
  }

  static String describe(Throwable e) {
    if (e instanceof StrataException se) {
      return se.oneLine();
    }
    if (e instanceof UncheckedIOException u) {
      return describe(u.getCause());
    }
    if (e instanceof NoSuchFileException f) {
      return StatusCode.NOT_FOUND + ": local file " + f.getFile() + " does not exist";
    }
    if (e instanceof FileAlreadyExistsException f) {
      return StatusCode.ALREADY_EXISTS + ": local file " + f.getFile() + " already exists";
    }
    if (e instanceof AccessDeniedException f) {
      return StatusCode.PERMISSION_DENIED + ": cannot access local file " + f.getFile();
    }
    if (e instanceof IOException io) {
      return StatusCode.INTERNAL + ": " + io.getMessage();
    }
    LOG.error("unexpected failure", e);
    return StatusCode.INTERNAL + ": " + e;
  }
}
