package io.strata.core.transport;

import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;

/** One frame of a worker's answer, as {@link ResponseDecoder} reads it. */
public sealed interface Response {
  /** The request this frame answers. */
  long requestId();

  /** An OPEN's status of the file. */
  record Status(long requestId, FileStatus status) implements Response {}

  /**
   * The header of a DATA frame: {@code length} bytes of the file at {@code offset} follow in the
   * stream, which the reader takes itself (see {@link ResponseDecoder#payloadLeft}).
   */
  record Data(long requestId, long offset, int length) implements Response {}

  /** A LEASE's grant. */
  record Leased(long requestId, LeaseGrant grant) implements Response {}

  /** The end of an answer: OK, or why the request failed. */
  record End(long requestId, StatusCode code, String message) implements Response {
    public boolean ok() {
      return code == StatusCode.OK;
    }
  }
}
