package io.strata.core.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * What a client asks of a worker's data server: a {@link ReadRequest}, an {@link OpenRequest} or a
 * {@link LeaseRequest}. Each encodes to one whole frame and is decoded from one by {@link #decode}.
 */
public sealed interface Request permits ReadRequest, OpenRequest, LeaseRequest, WholeRequest {
  /** Chosen by the client; every frame of the answer carries it. */
  long requestId();

  /** The file the request is about. */
  String path();

  /** The whole frame, length field included. */
  ByteBuf encode(ByteBufAllocator alloc);

  /** Hands this request to the handler's method for its kind. */
  void dispatch(Handler handler);

  /**
   * One method per kind of request. Java 17 has no pattern-matching switch: a kind added to this
   * interface does not compile until every handler serves it.
   */
  interface Handler {
    void read(ReadRequest request);

    void open(OpenRequest request);

    void lease(LeaseRequest request);

    void whole(WholeRequest request);
  }

  /**
   * Decodes a request frame whose length field was stripped. Throws {@link MalformedFrameException}
   * on any frame that breaks the format or a bound, and nothing else.
   */
  static Request decode(ByteBuf frame) {
    Frames.need(frame, Frames.HEADER);
    byte type = frame.getByte(frame.readerIndex());
    return switch (type) {
      case Frames.READ -> ReadRequest.decode(frame);
      case Frames.OPEN -> OpenRequest.decode(frame);
      case Frames.LEASE -> LeaseRequest.decode(frame);
      case Frames.WHOLE -> WholeRequest.decode(frame);
      default -> throw new MalformedFrameException("unexpected request frame type " + type);
    };
  }
}
