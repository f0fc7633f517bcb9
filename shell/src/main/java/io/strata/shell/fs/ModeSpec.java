package io.strata.shell.fs;

import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A chmod mode as users write it: octal ({@code 755}, {@code 0640}) or symbolic clauses as chmod(1)
 * takes them ({@code u+x}, {@code go-w}, {@code a=r,u+w}, {@code +X}); applied to a path's current
 * bits. The set-id and sticky bits are refused: Strata keeps the permission bits (0777) only.
 */
final class ModeSpec {
  private static final Pattern OCTAL = Pattern.compile("0?[0-7]{1,3}");
  private static final Pattern CLAUSE = Pattern.compile("([ugoa]*)([-+=])([rwxX]*)");

  private record Clause(int who, char op, String perms) {}

  private final Integer octal;
  private final List<Clause> clauses;

  private ModeSpec(Integer octal, List<Clause> clauses) {
    this.octal = octal;
    this.clauses = clauses;
  }

  static ModeSpec parse(String text) {
    if (OCTAL.matcher(text).matches()) {
      return new ModeSpec(Integer.parseInt(text, 8), List.of());
    }
    List<Clause> clauses = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      Matcher m = CLAUSE.matcher(part);
      if (!m.matches()) {
        throw StrataException.invalidArgument(
            "invalid mode '"
                + text
                + "': expected octal (755) or symbolic (u+x,go-w); set-id and sticky bits are"
                + " not kept");
      }
      clauses.add(new Clause(who(m.group(1)), m.group(2).charAt(0), m.group(3)));
    }
    return new ModeSpec(null, clauses);
  }

  /** The new permission bits (0777) of a path whose bits are {@code current}. */
  int apply(int current, boolean directory) {
    if (octal != null) {
      return octal;
    }
    int mode = current & 0777;
    for (Clause c : clauses) {
      int bits = bits(c.perms(), c.who(), mode, directory);
      mode =
          switch (c.op()) {
            case '+' -> mode | bits;
            case '-' -> mode & ~bits;
            default -> (mode & ~c.who()) | bits;
          };
    }
    return mode;
  }

  /** The rwx bits of the classes named (none named: all three). */
  private static int who(String letters) {
    if (letters.isEmpty() || letters.contains("a")) {
      return 0777;
    }
    int w = 0;
    if (letters.contains("u")) {
      w |= 0700;
    }
    if (letters.contains("g")) {
      w |= 0070;
    }
    if (letters.contains("o")) {
      w |= 0007;
    }
    return w;
  }

  private static int bits(String perms, int who, int mode, boolean directory) {
    int rwx = 0;
    for (int i = 0; i < perms.length(); i++) {
      char p = perms.charAt(i);
      switch (p) {
        case 'r' -> rwx |= 0444;
        case 'w' -> rwx |= 0222;
        case 'x' -> rwx |= 0111;
        // X: execute only for folders, or where someone may execute already.
        case 'X' -> rwx |= directory || (mode & 0111) != 0 ? 0111 : 0;
        default -> throw new IllegalStateException("unreachable: " + p);
      }
    }
    return rwx & who;
  }
}
