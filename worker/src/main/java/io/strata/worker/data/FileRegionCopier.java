package io.strata.worker.data;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.FileRegion;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.List;

/**
 * Turns the file regions the read path sends by sendfile into buffers, for a TLS connection: bytes
 * must pass through the cipher, which takes buffers only. One pread per region (a page or less),
 * from the page cache when the page was read lately.
 */
final class FileRegionCopier extends MessageToMessageEncoder<FileRegion> {
  FileRegionCopier() {
    super(FileRegion.class);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, FileRegion region, List<Object> out)
      throws IOException {
    int count = Math.toIntExact(region.count());
    ByteBuf buf = ctx.alloc().directBuffer(count, count);
    try {
      WritableByteChannel into = new IntoBuffer(buf);
      for (long at = 0; at < count; ) {
        long n = region.transferTo(into, at);
        if (n <= 0) {
          throw new IOException("a page's file ended " + (count - at) + " bytes early");
        }
        at += n;
      }
      out.add(buf);
    } catch (IOException | RuntimeException e) {
      buf.release();
      throw e;
    }
  }

  private record IntoBuffer(ByteBuf buf) implements WritableByteChannel {
    @Override
    public int write(ByteBuffer src) {
      int n = src.remaining();
      buf.writeBytes(src);
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
