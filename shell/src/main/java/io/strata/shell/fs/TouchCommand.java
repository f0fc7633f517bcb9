package io.strata.shell.fs;

import io.strata.client.WriteOptions;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs touch [-c] [-d TIME] PATH...}. */
@Command(
    name = "touch",
    mixinStandardHelpOptions = true,
    description =
        "Create empty files, or set the modification time of existing ones (to now, or to -d's "
            + "time).")
final class TouchCommand implements Runnable {
  private final ShellContext ctx;

  @Option(
      names = {"-d", "--date"},
      paramLabel = "TIME",
      description =
          "Use TIME instead of now: 2024-05-01T12:00:00Z, 2024-05-01T12:00:00 or 2024-05-01 "
              + "(local time), or @SECONDS since the epoch (a fraction allowed).")
  String date;

  @Option(
      names = {"-c", "--no-create"},
      description = "Do not create files that do not exist.")
  boolean noCreate;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata paths.")
  List<String> paths;

  TouchCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    long timeMs = date == null ? -1 : parse(date).toEpochMilli();
    for (String path : paths) {
      if (ctx.fs().exists(path)) {
        ctx.fs().setModificationTime(path, timeMs < 0 ? System.currentTimeMillis() : timeMs);
        ctx.out().println("touched " + path);
        continue;
      }
      if (noCreate) {
        continue;
      }
      try {
        ctx.fs().create(path, WriteOptions.DEFAULT).close();
      } catch (StrataException e) {
        if (e.code() != StatusCode.ALREADY_EXISTS) {
          throw e;
        }
        // Created meanwhile by someone else: as touch, leave it be.
      }
      if (timeMs >= 0) {
        ctx.fs().setModificationTime(path, timeMs);
      }
      ctx.out().println("created " + path);
    }
  }

  /** The forms -d takes; anything else is refused in one line that shows them. */
  static Instant parse(String s) {
    try {
      if (s.startsWith("@")) {
        BigDecimal seconds = new BigDecimal(s.substring(1));
        return Instant.ofEpochMilli(seconds.movePointRight(3).longValueExact());
      }
      if (s.endsWith("Z") || s.matches(".*[+-]\\d\\d:\\d\\d$")) {
        return java.time.OffsetDateTime.parse(s).toInstant();
      }
      if (s.contains("T")) {
        return LocalDateTime.parse(s).atZone(ZoneId.systemDefault()).toInstant();
      }
      return LocalDate.parse(s).atStartOfDay(ZoneId.systemDefault()).toInstant();
    } catch (DateTimeParseException | NumberFormatException | ArithmeticException e) {
      throw StrataException.invalidArgument(
          "touch: cannot read the time '"
              + s
              + "' (give 2024-05-01T12:00:00Z, 2024-05-01T12:00:00, 2024-05-01 or @SECONDS)");
    }
  }
}
