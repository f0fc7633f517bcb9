package io.strata.core.conf;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of a configuration value: how its text is parsed and what a person should write. Parsers
 * throw {@link IllegalArgumentException}; {@link Configuration} turns that into a one-line error
 * naming the key.
 */
public final class ConfType<T> {
  private static final Pattern NUMBER_UNIT = Pattern.compile("(-?\\d+(?:\\.\\d+)?)\\s*([a-zA-Z]*)");

  public static final ConfType<String> STRING = new ConfType<>("string", "any text", s -> s);
  public static final ConfType<Integer> INT =
      new ConfType<>("integer", "a whole number", s -> Integer.parseInt(s));
  public static final ConfType<Long> LONG =
      new ConfType<>("long", "a whole number", s -> Long.parseLong(s));
  public static final ConfType<Boolean> BOOLEAN =
      new ConfType<>("boolean", "true or false", ConfType::parseBoolean);
  public static final ConfType<Duration> DURATION =
      new ConfType<>(
          "duration",
          "a duration such as 500ms, 10s, 5min, 1h (a bare number is ms)",
          ConfType::parseDuration);
  public static final ConfType<Long> BYTES =
      new ConfType<>("bytes", "a size such as 4096, 64KB, 1MiB, 2GB", ConfType::parseBytes);
  public static final ConfType<List<String>> LIST =
      new ConfType<>("list", "a comma-separated list", ConfType::parseList);

  private final String name;
  private final String expectation;
  private final Function<String, T> parser;

  private ConfType(String name, String expectation, Function<String, T> parser) {
    this.name = name;
    this.expectation = expectation;
    this.parser = parser;
  }

  public static <E extends Enum<E>> ConfType<E> enumOf(Class<E> type) {
    E[] constants = type.getEnumConstants();
    String choices = String.join(", ", Arrays.stream(constants).map(Enum::name).toList());
    return new ConfType<>(
        "enum", "one of " + choices, s -> Enum.valueOf(type, s.trim().toUpperCase(Locale.ROOT)));
  }

  public String name() {
    return name;
  }

  /** What a valid value looks like, for error messages and docs. */
  public String expectation() {
    return expectation;
  }

  public T parse(String text) {
    try {
      return parser.apply(text.trim());
    } catch (Refused e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("expected " + expectation, e);
    }
  }

  private static boolean parseBoolean(String s) {
    return switch (s.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException(s);
    };
  }

  private static List<String> parseList(String s) {
    return s.isEmpty()
        ? List.of()
        : Arrays.stream(s.split(",")).map(String::trim).filter(x -> !x.isEmpty()).toList();
  }

  /** A value of the right shape refused for a reason of its own, said as it is. */
  static final class Refused extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message);
    }
  }

  /**
   * "90s", "30min", "1h", "2d", or milliseconds, fitting in a long of milliseconds; throws
   * IllegalArgumentException otherwise. "m" is refused: next to the sizes' "M" (MiB) it is a trap.
   */
  public static Duration parseDuration(String s) {
    Matcher m = NUMBER_UNIT.matcher(s);
    if (!m.matches() || m.group(1).contains(".")) {
      throw new IllegalArgumentException(s);
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2).toLowerCase(Locale.ROOT);
    if (unit.equals("m")) {
      throw new Refused(
          "'m' could mean minutes or MiB: write " + n + "min for minutes, " + n + "ms for ms");
    }
    try {
      // Every reader takes durations in milliseconds: one that does not fit is refused here.
      return switch (unit) {
        case "", "ms" -> Duration.ofMillis(n);
        case "us" -> Duration.ofNanos(Math.multiplyExact(n, 1000));
        case "s", "sec" -> Duration.ofMillis(Math.multiplyExact(n, 1000));
        case "min" -> Duration.ofMillis(Math.multiplyExact(n, 60_000));
        case "h", "hr" -> Duration.ofMillis(Math.multiplyExact(n, 3_600_000));
        case "d", "day" -> Duration.ofMillis(Math.multiplyExact(n, 86_400_000));
        default -> throw new IllegalArgumentException(s);
      };
    } catch (ArithmeticException e) {
      throw new Refused("too long: a duration must fit in a long of milliseconds");
    }
  }

  static long parseBytes(String s) {
    Matcher m = NUMBER_UNIT.matcher(s);
    if (!m.matches() || m.group(1).startsWith("-")) {
      throw new IllegalArgumentException(s);
    }
    double n = Double.parseDouble(m.group(1));
    long unit =
        switch (m.group(2).toUpperCase(Locale.ROOT)) {
          case "", "B" -> 1L;
          case "K", "KB", "KIB" -> 1L << 10;
          case "M", "MB", "MIB" -> 1L << 20;
          case "G", "GB", "GIB" -> 1L << 30;
          case "T", "TB", "TIB" -> 1L << 40;
          default -> throw new IllegalArgumentException(s);
        };
    double bytes = n * unit;
    if (bytes > Long.MAX_VALUE || bytes != Math.floor(bytes)) {
      throw new IllegalArgumentException(s);
    }
    return (long) bytes;
  }

  @Override
  public String toString() {
    return name;
  }
}
