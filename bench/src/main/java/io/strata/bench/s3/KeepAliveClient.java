package io.strata.bench.s3;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * The bench's HTTP/1.1 client: one keep-alive connection, a request at a time, every request signed
 * (SigV4) whichever server it goes to, so that the S3 endpoint and the raw server get the same
 * bytes and the client does the same work for both. Bodies read are dropped, or kept when asked.
 */
final class KeepAliveClient implements AutoCloseable {
  private static final int BUFFER = 64 << 10;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;
  private final String host;
  private final SigV4Signer signer;
  private final byte[] drain = new byte[BUFFER];

  KeepAliveClient(int port, SigV4Signer signer) throws IOException {
    socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.setSoTimeout(60_000);
    socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
    in = new BufferedInputStream(socket.getInputStream(), BUFFER);
    out = new BufferedOutputStream(socket.getOutputStream(), BUFFER);
    host = "127.0.0.1:" + port;
    this.signer = signer;
  }

  /** GETs {@code path}; returns the body's length (the bytes are dropped). */
  long get(String path) throws IOException {
    return exchange("GET", path, Map.of(), null, null);
  }

  /** GETs {@code path} with {@code query}; returns the body. */
  byte[] getBody(String path, Map<String, String> query) throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    exchange("GET", path, query, null, body);
    return body.toByteArray();
  }

  /** PUTs {@code body} at {@code path}. */
  void put(String path, byte[] body) throws IOException {
    exchange("PUT", path, Map.of(), body, null);
  }

  private long exchange(
      String method, String path, Map<String, String> query, byte[] body, OutputStream keep)
      throws IOException {
    String q = SigV4Signer.canonicalQuery(query);
    StringBuilder head =
        new StringBuilder(method)
            .append(' ')
            .append(path)
            .append(q.isEmpty() ? "" : "?" + q)
            .append(" HTTP/1.1\r\nHost: ")
            .append(host)
            .append("\r\n");
    signer
        .sign(method, path, query, host, Instant.now())
        .forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    if (body != null) {
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    try {
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      if (body != null) {
        out.write(body);
      }
      out.flush();
    } catch (IOException e) {
      // A server that refuses a request may answer before the body ends, then close: its answer
      // says why, where the broken pipe would not.
      readResponse(method + " " + path + " (the server closed it in the body)", keep);
      throw e;
    }
    return readResponse(method + " " + path, keep);
  }

  private long readResponse(String what, OutputStream keep) throws IOException {
    String status;
    try {
      status = line();
    } catch (IOException e) {
      throw new IOException(what + ": " + e.getMessage(), e);
    }
    long length = -1;
    boolean chunked = false;
    for (String h = line(); !h.isEmpty(); h = line()) {
      String lower = h.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(h.substring(15).trim());
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    ByteArrayOutputStream error =
        status.startsWith("HTTP/1.1 2") ? null : new ByteArrayOutputStream();
    OutputStream sink = error != null ? error : keep;
    long read = 0;
    if (chunked) {
      for (long n = Long.parseLong(line().trim(), 16);
          n > 0;
          n = Long.parseLong(line().trim(), 16)) {
        read += body(n, sink);
        line();
      }
      line();
    } else if (length > 0) {
      read = body(length, sink);
    }
    if (error != null) {
      throw new IOException(
          what + ": " + status + " " + error.toString(StandardCharsets.UTF_8).replace('\n', ' '));
    }
    return read;
  }

  private long body(long length, OutputStream sink) throws IOException {
    long left = length;
    while (left > 0) {
      int n = in.read(drain, 0, (int) Math.min(drain.length, left));
      if (n < 0) {
        throw new IOException("the server closed the connection in a body");
      }
      if (sink != null) {
        sink.write(drain, 0, n);
      }
      left -= n;
    }
    return length;
  }

  private String line() throws IOException {
    StringBuilder b = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("the server closed the connection");
      }
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
