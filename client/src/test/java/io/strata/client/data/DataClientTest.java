package io.strata.client.data;

import static io.strata.client.data.ScriptedDataServer.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.transport.Frames;
import io.strata.core.transport.ReadRequest;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The pooled Netty data client against a scripted server: what it takes for data. */
class DataClientTest {
  private static final UnpooledByteBufAllocator ALLOC = UnpooledByteBufAllocator.DEFAULT;
  private static final long FILE = 10_000;

  /** How many bytes of a READ the server sends before its END (OK). */
  private volatile int send;

  private final ScriptedDataServer server;
  private final DataClient client = new DataClient(() -> Duration.ofSeconds(5));
  private final DataClient.Target file = new DataClient.Target("/f", "fp", FILE);

  DataClientTest() throws IOException {
    server = new ScriptedDataServer(this::answer);
  }

  @AfterEach
  void stop() throws IOException {
    client.close();
    server.close();
  }

  private boolean answer(SocketChannel ch, ByteBuf frame) throws IOException {
    ReadRequest req = ReadRequest.decode(frame);
    if (send > 0) {
      ByteBuf header = Frames.dataHeader(ALLOC, req.requestId(), req.offset(), send);
      write(ch, header.writeBytes(new byte[send]));
    }
    write(ch, Frames.end(ALLOC, req.requestId(), StatusCode.OK, ""));
    return true;
  }

  private int read(long offset, int length) throws Exception {
    ByteBuf dst = Unpooled.buffer(length);
    try {
      return client
          .readAsync(server.endpoint(), file, offset, dst, length)
          .get(10, TimeUnit.SECONDS);
    } finally {
      dst.release();
    }
  }

  @Test
  void aShortAnswerWithinTheFile_failsTheRead_asTheWorkersFault() {
    send = 100;
    assertThatThrownBy(() -> read(0, 4096))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> {
              assertThat(e.code()).isEqualTo(StatusCode.INTERNAL);
              assertThat(e.getMessage()).contains("after 100");
            });
  }

  @Test
  void anAnswerCutAtTheEndOfTheFile_isWhole() throws Exception {
    send = 10;
    assertThat(read(FILE - 10, 4096)).isEqualTo(10);
    send = 4096;
    assertThat(read(0, 4096)).isEqualTo(4096);
  }
}
