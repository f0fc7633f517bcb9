package io.strata.fuse;

import io.strata.client.FileInStream;
import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.testkit.MiniCluster;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import ru.serce.jnrfuse.struct.FuseFileInfo;

/**
 * The mount's write path without a mount: {@link Writes} and {@link InPlaceChanges} over a client
 * of a real in-process cluster, called as the FUSE loop calls them, with buffers and file infos of
 * native memory as the kernel hands them over.
 */
final class MountlessWrites implements AutoCloseable {
  static final int O_WRONLY = 1;

  final MiniCluster cluster;
  final FileSystem fs;
  final OpenFiles open = new OpenFiles();
  final InPlaceChanges inPlace;
  final Writes writes;

  MountlessWrites(Path spill) throws Exception {
    cluster = MiniCluster.builder().masters(1).workers(1).start();
    fs = cluster.fileSystem();
    FileIo io = new FileIo();
    KernelView kernel = new KernelView(Duration.ofSeconds(1), false);
    inPlace = new InPlaceChanges(fs, open, io, kernel, spill);
    writes = new Writes(fs, open, io, kernel, inPlace);
  }

  void put(String path, String content) {
    try (FileOutStream out = fs.create(path, WriteOptions.overwriting())) {
      out.write(content.getBytes(StandardCharsets.ISO_8859_1));
    }
  }

  String read(String path) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    try (FileInStream in = fs.open(path)) {
      byte[] b = new byte[8192];
      for (int n; (n = in.read(b, 0, b.length)) > 0; ) {
        all.write(b, 0, n);
      }
    }
    return all.toString(StandardCharsets.ISO_8859_1);
  }

  /** A buffer of native memory holding {@code s}, as the kernel passes a write's bytes. */
  static Pointer bytes(String s) {
    byte[] b = s.getBytes(StandardCharsets.ISO_8859_1);
    Pointer p = Memory.allocateDirect(Runtime.getSystemRuntime(), Math.max(1, b.length));
    p.put(0, b, 0, b.length);
    return p;
  }

  static FuseFileInfo fileInfo(int flags) {
    FuseFileInfo fi = FuseFileInfo.of(Memory.allocateDirect(Runtime.getSystemRuntime(), 64, true));
    fi.flags.set(flags);
    return fi;
  }

  @Override
  public void close() {
    fs.close();
    cluster.close();
  }
}
