package io.strata.shell.fs;

import io.strata.client.FileInStream;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strata fs checksum PATH...}: the MD5 of each file's bytes, as md5sum prints it. */
@Command(
    name = "checksum",
    mixinStandardHelpOptions = true,
    description =
        "Print the MD5 of files (md5sum's format): the bytes of the under-storage version Strata "
            + "serves, read through the cache; compare with md5sum of the original.")
final class ChecksumCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(arity = "1..*", paramLabel = "PATH", description = "Strata files.")
  List<String> paths;

  ChecksumCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    for (String path : paths) {
      if (ctx.fs().getStatus(path).directory()) {
        throw StrataException.invalidArgument(path + " is a folder");
      }
      ctx.out().println(md5(path) + "  " + path);
    }
  }

  private String md5(String path) {
    MessageDigest md5;
    try {
      md5 = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has MD5", e);
    }
    byte[] buf = new byte[1 << 20];
    try (FileInStream in = ctx.fs().open(path)) {
      for (int n = in.read(buf); n >= 0; n = in.read(buf)) {
        md5.update(buf, 0, n);
      }
    } catch (IOException e) {
      throw StrataException.unavailable("cannot read " + path + ": " + e.getMessage(), e);
    }
    return HexFormat.of().formatHex(md5.digest());
  }
}
