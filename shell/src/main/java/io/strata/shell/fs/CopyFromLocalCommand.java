package io.strata.shell.fs;

import io.strata.client.FileInfo;
import io.strata.client.FileOutStream;
import io.strata.client.WriteOptions;
import io.strata.core.conf.UserKeys.WriteType;
import io.strata.core.path.StrataPath;
import io.strata.core.status.StrataException;
import io.strata.shell.Formats;
import io.strata.shell.ShellContext;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fs copyFromLocal}. */
@Command(
    name = "copyFromLocal",
    aliases = "put",
    mixinStandardHelpOptions = true,
    description = "Copy a local file or directory into Strata (and so into the under-storage).")
final class CopyFromLocalCommand implements Callable<Integer> {
  private final ShellContext ctx;
  private long files;
  private long bytes;

  @Option(
      names = {"-f", "--overwrite"},
      description = "Replace files that already exist.")
  boolean overwrite;

  @Option(
      names = "--write-type",
      description = "THROUGH or CACHE_THROUGH (default: strata.user.write.type).")
  WriteType writeType;

  @Parameters(index = "0", paramLabel = "LOCAL", description = "Local file or directory.")
  Path local;

  @Parameters(index = "1", paramLabel = "DST", description = "Strata path.")
  String dst;

  CopyFromLocalCommand(ShellContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() throws IOException {
    if (!Files.exists(local)) {
      throw StrataException.notFound("local path " + local + " does not exist");
    }
    StrataPath target = StrataPath.of(dst);
    Optional<FileInfo> existing = status(target);
    if (existing.isPresent() && existing.get().directory()) {
      target = target.child(local.toAbsolutePath().normalize().getFileName().toString());
    }
    long start = System.nanoTime();
    if (Files.isDirectory(local)) {
      copyTree(local, target);
    } else {
      copyFile(local, target);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    ctx.out()
        .printf(
            "copied %d file(s), %s, from %s to %s in %.2f s%n",
            files, Formats.bytes(bytes), local, target, seconds);
    return 0;
  }

  private void copyTree(Path dir, StrataPath target) throws IOException {
    if (status(target).isEmpty()) {
      ctx.fs().mkdir(target.toString(), true);
    }
    List<Path> children;
    try (Stream<Path> s = Files.list(dir)) {
      children = s.sorted().toList();
    }
    for (Path child : children) {
      StrataPath childTarget = target.child(child.getFileName().toString());
      if (Files.isDirectory(child)) {
        copyTree(child, childTarget);
      } else {
        copyFile(child, childTarget);
      }
    }
  }

  private void copyFile(Path file, StrataPath target) throws IOException {
    FileOutStream out =
        ctx.fs().create(target.toString(), new WriteOptions(overwrite, writeType, 0));
    try (InputStream in = Files.newInputStream(file)) {
      bytes += in.transferTo(out);
      out.close();
      files++;
    } catch (IOException | RuntimeException e) {
      out.cancel();
      throw e;
    }
  }

  private Optional<FileInfo> status(StrataPath p) {
    return ctx.fs().findStatus(p.toString());
  }
}
