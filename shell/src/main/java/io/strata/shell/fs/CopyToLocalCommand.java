package io.strata.shell.fs;

import io.strata.client.FileInStream;
import io.strata.client.FileInfo;
import io.strata.core.status.StrataException;
import io.strata.shell.Formats;
import io.strata.shell.ShellContext;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs copyToLocal}. */
@Command(
    name = "copyToLocal",
    aliases = "get",
    mixinStandardHelpOptions = true,
    description = "Copy a Strata file or directory to the local file system.")
final class CopyToLocalCommand implements Callable<Integer> {
  private final ShellContext ctx;
  private long files;
  private long bytes;

  @Option(
      names = {"-f", "--overwrite"},
      description = "Replace local files that already exist.")
  boolean overwrite;

  @Parameters(index = "0", paramLabel = "SRC", description = "Strata path.")
  String src;

  @Parameters(index = "1", paramLabel = "LOCAL", description = "Local file or directory.")
  Path local;

  CopyToLocalCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws IOException {
    FileInfo root = ctx.fs().getStatus(src);
    Path target =
        Files.isDirectory(local)
            ? local.resolve(root.name().isEmpty() ? "root" : root.name())
            : local;
    long start = System.nanoTime();
    copy(root, target);
    ctx.out()
        .printf(
            "copied %d file(s), %s, from %s to %s in %.2f s%n",
            files, Formats.bytes(bytes), src, target, (System.nanoTime() - start) / 1e9);
    return 0;
  }

  private void copy(FileInfo from, Path to) throws IOException {
    if (from.directory()) {
      Files.createDirectories(to);
      for (FileInfo child : ctx.fs().listStatus(from.path())) {
        copy(child, to.resolve(child.name()));
      }
      return;
    }
    if (Files.exists(to) && !overwrite) {
      throw StrataException.alreadyExists("local file " + to + " exists; use -f to replace it");
    }
    // Written beside the target and moved into place, so a failed copy leaves no partial file.
    Path temp =
        Files.createTempFile(
            to.toAbsolutePath().getParent(), "." + to.getFileName(), ".strata-tmp");
    try (FileInStream in = ctx.fs().open(from.path());
        OutputStream out = Files.newOutputStream(temp)) {
      bytes += in.transferTo(out);
    } catch (IOException | RuntimeException e) {
      Files.deleteIfExists(temp);
      throw e;
    }
    Files.move(temp, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    files++;
  }
}
