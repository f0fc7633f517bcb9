package io.strata.bench.read;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The raw baselines for the socket transports: a plain server that copies the dataset's bytes
 * (memory-mapped, so from the page cache) to a socket, over loopback TCP or a domain socket, one
 * thread per connection. Request: int32 file, int64 offset, int32 length; answer: those bytes. A
 * sequential reader asks for a whole file at once, the server streams it.
 */
final class RawSocketServer implements ReadTarget, AutoCloseable {
  private final String name;
  private final ServerSocketChannel server;
  private final SocketAddress address;
  private final List<MappedByteBuffer> files = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean closed;

  RawSocketServer(boolean domainSocket, List<Path> dataset, Path socketFile) throws IOException {
    this.name = domainSocket ? "raw-uds" : "raw-tcp";
    for (Path p : dataset) {
      try (FileChannel ch = FileChannel.open(p)) {
        files.add(ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()));
      }
    }
    if (domainSocket) {
      Files.deleteIfExists(socketFile);
      server =
          ServerSocketChannel.open(StandardProtocolFamily.UNIX)
              .bind(UnixDomainSocketAddress.of(socketFile));
    } else {
      server =
          ServerSocketChannel.open()
              .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }
    address = server.getLocalAddress();
    Thread acceptor = new Thread(this::accept, name + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  @Override
  public String name() {
    return name;
  }

  private void accept() {
    while (!closed) {
      try {
        SocketChannel ch = server.accept();
        Thread t = new Thread(() -> serve(ch), name + "-conn");
        t.setDaemon(true);
        synchronized (threads) {
          threads.add(t);
        }
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(SocketChannel ch) {
    ByteBuffer req = ByteBuffer.allocate(16);
    try (ch) {
      while (true) {
        req.clear();
        if (!fill(ch, req)) {
          return;
        }
        req.flip();
        ByteBuffer data = files.get(req.getInt()).duplicate();
        long offset = req.getLong();
        int length = req.getInt();
        data.position((int) offset).limit((int) Math.min(data.capacity(), offset + length));
        while (data.hasRemaining()) {
          ByteBuffer piece = data.slice().limit(Math.min(data.remaining(), 1 << 20));
          int n = ch.write(piece);
          data.position(data.position() + n);
        }
      }
    } catch (IOException e) {
      // The reader hung up.
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

  @Override
  public Session open(int file) throws IOException {
    SocketChannel ch =
        SocketChannel.open(
            address instanceof UnixDomainSocketAddress
                ? StandardProtocolFamily.UNIX
                : StandardProtocolFamily.INET);
    ch.connect(address);
    if (!(address instanceof UnixDomainSocketAddress)) {
      ch.socket().setTcpNoDelay(true);
    }
    long size = files.get(file).capacity();
    ByteBuffer req = ByteBuffer.allocate(16);
    return new Session() {
      private long streamed = -1;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (streamed < 0) {
          send(0, (int) size);
          streamed = 0;
        }
        if (streamed >= size) {
          return -1;
        }
        int n = ch.read(ByteBuffer.wrap(b, off, (int) Math.min(len, size - streamed)));
        if (n < 0) {
          throw new EOFException();
        }
        streamed += n;
        return n;
      }

      @Override
      public void readFully(long pos, byte[] b, int off, int len) throws IOException {
        send(pos, len);
        if (!fill(ch, ByteBuffer.wrap(b, off, len))) {
          throw new EOFException();
        }
      }

      private void send(long pos, int len) throws IOException {
        req.clear();
        req.putInt(file).putLong(pos).putInt(len).flip();
        while (req.hasRemaining()) {
          ch.write(req);
        }
      }

      @Override
      public void close() throws IOException {
        ch.close();
      }
    };
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
  }
}
