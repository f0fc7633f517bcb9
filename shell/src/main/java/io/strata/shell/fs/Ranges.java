package io.strata.shell.fs;

import io.strata.client.FileInStream;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;

/** Prints a byte range of a file. */
final class Ranges {
  private Ranges() {}

  static void print(ShellContext ctx, FileInStream in, long from, int count) {
    if (count < 0) {
      throw StrataException.invalidArgument("a byte count cannot be negative: " + count);
    }
    byte[] b = new byte[(int) Math.min(count, Math.max(0, in.length() - from))];
    int n = b.length == 0 ? 0 : in.positionedRead(from, b, 0, b.length);
    ctx.out().write(b, 0, Math.max(0, n));
    ctx.out().flush();
  }
}
