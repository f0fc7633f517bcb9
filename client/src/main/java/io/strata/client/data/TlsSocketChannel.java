package io.strata.client.data;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * A blocking TLS connection seen as a byte channel, so that the blocking read path speaks the same
 * frames over it as over a plain socket channel. The cipher is an engine of the client's Netty
 * context (BoringSSL where it loads: the JDK's own TLS socket deciphered at a third of the plain
 * speed, the bottleneck of a reader). Used by one thread at a time, as its pool hands it out;
 * closing the socket from another thread (the pool's watchdog) ends a blocked read.
 */
final class TlsSocketChannel implements ByteChannel {
  private final SocketChannel ch;
  private final SSLEngine engine;

  /** Ciphertext read from the socket, not yet deciphered (read mode). */
  private final ByteBuffer netIn;

  /** Ciphertext to send (write mode, cleared after each send). */
  private final ByteBuffer netOut;

  /** Deciphered bytes not yet taken by a read (read mode). */
  private final ByteBuffer appIn;

  private TlsSocketChannel(SocketChannel ch, SSLEngine engine) {
    this.ch = ch;
    this.engine = engine;
    int packet = engine.getSession().getPacketBufferSize();
    this.netIn = ByteBuffer.allocateDirect(packet).flip();
    this.netOut = ByteBuffer.allocateDirect(packet);
    // BoringSSL's engine deciphers every whole record it holds in one unwrap, and asks for room for
    // all of them: a few records' worth.
    this.appIn =
        ByteBuffer.allocateDirect(
                Math.max(4 * packet, engine.getSession().getApplicationBufferSize()))
            .flip();
  }

  /**
   * Connects to {@code host:port} and completes the TLS handshake, the server's certificate checked
   * against {@code tls}'s authorities and {@code host}; both steps bounded by {@code timeoutMs}.
   */
  static TlsSocketChannel connect(SslContext tls, String host, int port, int timeoutMs)
      throws IOException {
    SocketChannel ch = SocketChannel.open();
    try {
      ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
      ch.socket().connect(new InetSocketAddress(host, port), timeoutMs);
      TlsSocketChannel c =
          new TlsSocketChannel(ch, tls.newEngine(UnpooledByteBufAllocator.DEFAULT, host, port));
      ch.socket().setSoTimeout(timeoutMs);
      c.handshake(ch.socket().getInputStream());
      // Later reads are bounded by the pool's watchdog, which closes a stuck connection.
      ch.socket().setSoTimeout(0);
      return c;
    } catch (IOException | RuntimeException e) {
      ch.close();
      throw e;
    }
  }

  /** The handshake, its reads through {@code timed} (the socket's timeout applies to them). */
  private void handshake(InputStream timed) throws IOException {
    engine.beginHandshake();
    while (true) {
      switch (engine.getHandshakeStatus()) {
        case NEED_WRAP -> wrapEmpty();
        case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
          if (!unwrapSome(timed)) {
            throw new SSLException("the worker closed the TLS connection during its handshake");
          }
        }
        case NEED_TASK -> runTasks();
        case FINISHED, NOT_HANDSHAKING -> {
          return;
        }
      }
    }
  }

  private void wrapEmpty() throws IOException {
    netOut.clear();
    SSLEngineResult r = engine.wrap(ByteBuffer.allocate(0), netOut);
    send();
    if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
      throw new SSLException("the worker closed the TLS connection");
    }
  }

  private void runTasks() {
    for (Runnable task; (task = engine.getDelegatedTask()) != null; ) {
      task.run();
    }
  }

  /**
   * Deciphers from {@link #netIn} into {@link #appIn} until the engine takes or gives bytes (a
   * handshake message or a ticket gives none), reading more ciphertext whenever it can do neither;
   * false once the peer closed the TLS session.
   */
  private boolean unwrapSome(InputStream timed) throws IOException {
    appIn.compact();
    try {
      while (true) {
        SSLEngineResult r = engine.unwrap(netIn, appIn);
        switch (r.getStatus()) {
          case CLOSED -> {
            return false;
          }
          case BUFFER_OVERFLOW ->
              throw new SSLException("a TLS record larger than " + appIn.capacity() + " bytes");
          case BUFFER_UNDERFLOW -> {
            fill(timed);
            continue;
          }
          case OK -> {}
        }
        switch (r.getHandshakeStatus()) {
          case NEED_TASK -> runTasks();
          case NEED_WRAP -> wrapEmpty();
          default -> {}
        }
        if (r.bytesProduced() > 0 || r.bytesConsumed() > 0) {
          return true;
        }
        fill(timed);
      }
    } finally {
      appIn.flip();
    }
  }

  /** Reads more ciphertext into {@link #netIn}; through {@code timed} during the handshake. */
  private void fill(InputStream timed) throws IOException {
    netIn.compact();
    try {
      int n = timed != null ? readTimed(timed) : ch.read(netIn);
      if (n < 0) {
        throw new EOFException("the worker closed the TLS connection");
      }
    } finally {
      netIn.flip();
    }
  }

  private int readTimed(InputStream timed) throws IOException {
    byte[] chunk = new byte[netIn.remaining()];
    int n = timed.read(chunk);
    if (n > 0) {
      netIn.put(chunk, 0, n);
    }
    return n;
  }

  private void send() throws IOException {
    netOut.flip();
    while (netOut.hasRemaining()) {
      ch.write(netOut);
    }
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    try {
      while (!appIn.hasRemaining()) {
        if (!unwrapSome(null)) {
          return -1;
        }
      }
    } catch (EOFException e) {
      return -1;
    }
    int n = Math.min(dst.remaining(), appIn.remaining());
    dst.put(appIn.slice(appIn.position(), n));
    appIn.position(appIn.position() + n);
    return n;
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    int n = src.remaining();
    while (src.hasRemaining()) {
      netOut.clear();
      SSLEngineResult r = engine.wrap(src, netOut);
      if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
        throw new SSLException("the TLS connection to the worker is closed");
      }
      send();
    }
    return n;
  }

  @Override
  public boolean isOpen() {
    return ch.isOpen();
  }

  @Override
  public void close() throws IOException {
    ch.close();
  }
}
