package io.strata.it;

import io.strata.client.FileOutStream;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.conf.ConfLoader;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A client process that writes a file and never finishes: it writes 8 MiB, says so through its
 * ready file, then keeps writing slowly (for at most ten minutes) until it is killed. Usage: {@code
 * -Dwriter.path=/strata/path SlowWriter --ready-file FILE}.
 */
public final class SlowWriter {
  private SlowWriter() {}

  public static void main(String[] args) throws Exception {
    Path ready = Path.of(args[1]);
    try (FileSystem fs = FileSystem.create(ConfLoader.load())) {
      FileOutStream out = fs.create(System.getProperty("writer.path"), WriteOptions.DEFAULT);
      byte[] chunk = new byte[1 << 20];
      for (int i = 0; i < 8; i++) {
        out.write(chunk);
      }
      out.flush();
      Files.createFile(ready);
      for (int i = 0; i < 6000; i++) {
        out.write(chunk, 0, 4096);
        out.flush();
        Thread.sleep(100);
      }
    }
  }
}
