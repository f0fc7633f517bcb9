package io.strata.bench.s3;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * The bench's raw baseline: a plain HTTP/1.1 keep-alive server of a folder on the same Netty as the
 * S3 endpoint, with no authentication, no metadata and no cache of its own. A GET sends the file by
 * sendfile (the page cache holds it: the kernel's ceiling); a PUT writes the body to a new file
 * renamed into place at its end, as the endpoint publishes a version only once whole.
 */
@SuppressWarnings("FutureReturnValueIgnored")
final class RawFileServer implements AutoCloseable {
  private final Path root;
  private final EventLoopGroup loop;
  private final Channel channel;

  RawFileServer(Path root) {
    this.root = root.toAbsolutePath().normalize();
    loop =
        new MultiThreadIoEventLoopGroup(
            2, new DefaultThreadFactory("raw-http", true), NioIoHandler.newFactory());
    channel =
        new ServerBootstrap()
            .group(loop)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new HttpServerCodec(), new Handler());
                  }
                })
            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .syncUninterruptibly()
            .channel();
  }

  int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  @Override
  public void close() {
    channel.close().syncUninterruptibly();
    loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** The file a request path names, inside the served folder only. */
  private Path fileOf(String uri) {
    int q = uri.indexOf('?');
    Path p = root.resolve((q < 0 ? uri : uri.substring(0, q)).substring(1)).normalize();
    return p.startsWith(root) ? p : null;
  }

  private final class Handler extends SimpleChannelInboundHandler<HttpObject> {
    private FileChannel upload;
    private Path uploadTemp;
    private Path uploadTarget;

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) throws IOException {
      if (msg instanceof HttpRequest req) {
        Path file = fileOf(req.uri());
        if (file == null) {
          answer(ctx, HttpResponseStatus.FORBIDDEN);
        } else if (req.method().equals(HttpMethod.GET)) {
          get(ctx, file);
        } else if (req.method().equals(HttpMethod.PUT)) {
          Files.createDirectories(file.getParent());
          uploadTarget = file;
          uploadTemp = Files.createTempFile(file.getParent(), ".raw-", ".part");
          upload = FileChannel.open(uploadTemp, StandardOpenOption.WRITE);
        } else {
          answer(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED);
        }
      }
      if (msg instanceof HttpContent content && upload != null) {
        ByteBuf buf = content.content();
        while (buf.isReadable()) {
          buf.readBytes(upload, buf.readableBytes());
        }
        if (content instanceof LastHttpContent) {
          upload.close();
          upload = null;
          Files.move(
              uploadTemp,
              uploadTarget,
              StandardCopyOption.ATOMIC_MOVE,
              StandardCopyOption.REPLACE_EXISTING);
          answer(ctx, HttpResponseStatus.OK);
        }
      }
    }

    private void get(ChannelHandlerContext ctx, Path file) throws IOException {
      if (!Files.isRegularFile(file)) {
        answer(ctx, HttpResponseStatus.NOT_FOUND);
        return;
      }
      RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r");
      long length = raf.length();
      DefaultHttpResponse res =
          new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
      res.headers().set(HttpHeaderNames.CONTENT_LENGTH, length);
      ctx.write(res);
      ctx.write(new DefaultFileRegion(raf.getChannel(), 0, length));
      ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
    }

    private void answer(ChannelHandlerContext ctx, HttpResponseStatus status) {
      DefaultFullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status);
      res.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
      ctx.writeAndFlush(res);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws IOException {
      if (upload != null) {
        upload.close();
        Files.deleteIfExists(uploadTemp);
      }
    }
  }
}
