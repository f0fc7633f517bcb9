package io.strata.bench.ufs;

import com.robothy.s3.rest.LocalS3;
import com.robothy.s3.rest.bootstrap.LocalS3Mode;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.file.Path;

/**
 * local-s3 in this JVM, without its noise: its HTTP decoder prints the stack trace of every
 * connection a client resets (the SDK's connection pool closes with a reset when it shuts down),
 * dozens per run. Its threads are named {@code locals3-*}; what they write to standard error is
 * dropped, and everything else passes. The filter stays after the server is shut down: its event
 * loops still print the resets of the clients closed last while they wind down.
 */
final class QuietS3Server implements AutoCloseable {
  private static final String THREADS = "locals3-";

  private final LocalS3 server;

  QuietS3Server(int port, Path data) {
    if (!(System.err instanceof Quiet)) {
      System.setErr(new Quiet(new SkipServerThreads(System.err)));
    }
    server =
        LocalS3.builder()
            .port(port)
            .mode(LocalS3Mode.PERSISTENCE)
            .dataPath(data.toString())
            .build();
    server.start();
  }

  @Override
  public void close() {
    server.shutdown();
  }

  private static final class Quiet extends PrintStream {
    Quiet(OutputStream out) {
      super(out, true, Charset.defaultCharset());
    }
  }

  private static final class SkipServerThreads extends FilterOutputStream {
    SkipServerThreads(OutputStream out) {
      super(out);
    }

    private static boolean quiet() {
      return Thread.currentThread().getName().startsWith(THREADS);
    }

    @Override
    public void write(int b) throws IOException {
      if (!quiet()) {
        out.write(b);
      }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      if (!quiet()) {
        out.write(b, off, len);
      }
    }
  }
}
