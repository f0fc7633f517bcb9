package io.strata.client.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A blocking TLS connection seen as a byte channel, so that the blocking read path speaks the same
 * frames over it as over a plain socket channel. Used by one thread at a time, as its pool hands it
 * out.
 */
final class TlsSocketChannel implements ByteChannel {
  /** One TLS record's worth: direct buffers pass through it. */
  private static final int SCRATCH = 16 << 10;

  private final SSLSocket socket;
  private final InputStream in;
  private final OutputStream out;
  private final byte[] scratch = new byte[SCRATCH];

  private TlsSocketChannel(SSLSocket socket) throws IOException {
    this.socket = socket;
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
  }

  /**
   * Connects to {@code host:port} and completes the TLS handshake, the server's certificate checked
   * against {@code tls}'s authorities and {@code host}; both steps bounded by {@code timeoutMs}.
   */
  static TlsSocketChannel connect(SSLContext tls, String host, int port, int timeoutMs)
      throws IOException {
    Socket plain = new Socket();
    try {
      plain.setOption(StandardSocketOptions.TCP_NODELAY, true);
      plain.connect(new InetSocketAddress(host, port), timeoutMs);
      SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, host, port, true);
      SSLParameters params = socket.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      socket.setSSLParameters(params);
      socket.setSoTimeout(timeoutMs);
      socket.startHandshake();
      // Later reads are bounded by the pool's watchdog, which closes a stuck connection.
      socket.setSoTimeout(0);
      return new TlsSocketChannel(socket);
    } catch (IOException | RuntimeException e) {
      plain.close();
      throw e;
    }
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    if (dst.hasArray()) {
      int n = in.read(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
      if (n > 0) {
        dst.position(dst.position() + n);
      }
      return n;
    }
    int n = in.read(scratch, 0, Math.min(dst.remaining(), SCRATCH));
    if (n > 0) {
      dst.put(scratch, 0, n);
    }
    return n;
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    int n = src.remaining();
    if (src.hasArray()) {
      out.write(src.array(), src.arrayOffset() + src.position(), n);
      src.position(src.limit());
      return n;
    }
    while (src.hasRemaining()) {
      int part = Math.min(src.remaining(), SCRATCH);
      src.get(scratch, 0, part);
      out.write(scratch, 0, part);
    }
    return n;
  }

  @Override
  public boolean isOpen() {
    return !socket.isClosed();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
