package io.strata.client.data;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.strata.core.net.HostPort;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A data server on loopback for client tests: a thread per connection reads request frames and
 * hands each to the test's script, which answers with whatever frames the case needs (or none, or
 * hangs up). Counts the connections made to it.
 */
final class ScriptedDataServer implements AutoCloseable {
  /** Answers one request frame (length field stripped); false hangs up. */
  interface Script {
    boolean answer(SocketChannel ch, ByteBuf request) throws IOException;
  }

  private final ServerSocketChannel server;
  private final Script script;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger hangUps = new AtomicInteger();

  ScriptedDataServer(Script script) throws IOException {
    this.script = script;
    server =
        ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Thread acceptor = new Thread(this::accept, "fake-data-server");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  Endpoint endpoint() throws IOException {
    return Endpoint.tcp(
        new HostPort("127.0.0.1", ((InetSocketAddress) server.getLocalAddress()).getPort()));
  }

  int connections() {
    return connections.get();
  }

  /** Connections this server has closed. */
  int hangUps() {
    return hangUps.get();
  }

  private void accept() {
    while (server.isOpen()) {
      try {
        SocketChannel ch = server.accept();
        connections.incrementAndGet();
        Thread t = new Thread(() -> serve(ch), "fake-data-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(SocketChannel ch) {
    try (ch) {
      ByteBuffer length = ByteBuffer.allocate(4);
      while (true) {
        length.clear();
        if (!fill(ch, length)) {
          return;
        }
        ByteBuffer body = ByteBuffer.allocate(length.flip().getInt());
        if (!fill(ch, body) || !script.answer(ch, Unpooled.wrappedBuffer(body.flip()))) {
          return;
        }
      }
    } catch (IOException e) {
      // The client hung up.
    } finally {
      hangUps.incrementAndGet();
    }
  }

  private static boolean fill(SocketChannel ch, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      if (ch.read(b) < 0) {
        return false;
      }
    }
    return true;
  }

  /** Writes a frame whole and releases it. */
  static void write(SocketChannel ch, ByteBuf b) throws IOException {
    ByteBuffer bytes = b.nioBuffer();
    while (bytes.hasRemaining()) {
      ch.write(bytes);
    }
    b.release();
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
