package io.strata.shell.fs;

import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.client.FileOutStream;
import io.strata.client.WriteOptions;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.shell.ShellContext;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs cp [-R] [-f] SRC DST}: copies inside Strata (across mounts too). */
@Command(
    name = "cp",
    mixinStandardHelpOptions = true,
    description =
        "Copy a file (or, with -R, a folder) to another Strata path, across mounts too; the copy "
            + "is written as copyFromLocal writes.")
final class CpCommand implements Runnable {
  private final ShellContext ctx;

  @Parameters(index = "0", paramLabel = "SRC", description = "Existing Strata path.")
  String src;

  @Parameters(
      index = "1",
      paramLabel = "DST",
      description = "New Strata path; into it when it is an existing folder.")
  String dst;

  @Option(names = "-R", description = "Copy a folder and everything under it.")
  boolean recursive;

  @Option(names = "-f", description = "Overwrite existing files.")
  boolean force;

  private int files;
  private long bytes;

  CpCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public void run() {
    FileInfo source = ctx.fs().getStatus(src);
    StrataPath target = StrataPath.of(dst);
    FileInfo existing = statusOrNull(target.toString());
    if (existing != null && existing.directory()) {
      target = target.child(source.name());
    }
    if (source.directory() && !recursive) {
      throw StrataException.invalidArgument(src + " is a folder; copy it with -R");
    }
    StrataPath from = StrataPath.of(source.path());
    if (source.directory() && target.isUnder(from)) {
      throw StrataException.invalidArgument("cannot copy " + src + " into itself");
    }
    copy(source, target);
    ctx.out().printf("copied %d files (%d bytes) to %s%n", files, bytes, target);
  }

  private void copy(FileInfo source, StrataPath target) {
    if (source.directory()) {
      FileInfo there = statusOrNull(target.toString());
      if (there == null) {
        ctx.fs().mkdir(target.toString(), false);
      } else if (!there.directory()) {
        throw new StrataException(
            StatusCode.ALREADY_EXISTS, target + " exists and is not a folder");
      }
      for (FileInfo child : ctx.fs().listStatus(source.path())) {
        copy(Walk.whole(ctx.fs(), child), target.child(child.name()));
      }
      return;
    }
    WriteOptions options = new WriteOptions(force, null, source.mode() & 07777);
    try (FileInStream in = ctx.fs().open(source);
        FileOutStream out = ctx.fs().create(target.toString(), options)) {
      bytes += in.transferTo(out);
    } catch (IOException e) {
      throw StrataException.unavailable(
          "cannot copy " + source.path() + " to " + target + ": " + e.getMessage(), e);
    }
    files++;
  }

  private FileInfo statusOrNull(String path) {
    return ctx.fs().findStatus(path).orElse(null);
  }
}
