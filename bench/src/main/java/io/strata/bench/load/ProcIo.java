package io.strata.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** A process's I/O counters from /proc. */
final class ProcIo {
  private ProcIo() {}

  /** Bytes the process caused to be written to storage (write_bytes). */
  static long writeBytes(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/io"))) {
      if (line.startsWith("write_bytes:")) {
        return Long.parseLong(line.substring("write_bytes:".length()).trim());
      }
    }
    throw new IOException("no write_bytes in /proc/" + pid + "/io");
  }
}
