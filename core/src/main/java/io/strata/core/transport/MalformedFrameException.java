package io.strata.core.transport;

/** A frame that breaks the data-plane format; the receiver closes that connection. */
public final class MalformedFrameException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MalformedFrameException(String message) {
    super(message);
  }
}
