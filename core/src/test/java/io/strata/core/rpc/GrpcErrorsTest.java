package io.strata.core.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import org.junit.jupiter.api.Test;

class GrpcErrorsTest {
  @Test
  void everyCode_survivesTheRoundTrip() {
    for (StatusCode code : StatusCode.values()) {
      if (code == StatusCode.OK) {
        continue;
      }
      StrataException back =
          GrpcErrors.fromGrpc(GrpcErrors.toGrpc(new StrataException(code, "msg " + code)), "peer");
      assertThat(back.code()).isEqualTo(code);
      assertThat(back.getMessage()).isEqualTo("msg " + code);
    }
  }

  @Test
  void notLeader_keepsTheLeaderHint() {
    StrataException back =
        GrpcErrors.fromGrpc(
            GrpcErrors.toGrpc(StrataException.notLeader("not me", "m2:7700")), "m1:7700");
    assertThat(back.leaderHint()).contains("m2:7700");
  }

  @Test
  void plainGrpcFailures_mapByCodeAndNameThePeer() {
    StrataException e =
        GrpcErrors.fromGrpc(
            new StatusRuntimeException(
                Status.UNAVAILABLE.withCause(new java.net.ConnectException("Connection refused"))),
            "worker w1:7710");
    assertThat(e.code()).isEqualTo(StatusCode.UNAVAILABLE);
    assertThat(e.getMessage()).contains("w1:7710", "Connection refused");
  }

  @Test
  void connectionClosedMidCall_isUnavailable() {
    StrataException e =
        GrpcErrors.fromGrpc(
            new StatusRuntimeException(
                Status.UNKNOWN
                    .withDescription("channel closed")
                    .withCause(new java.nio.channels.ClosedChannelException())),
            "master m1:7700");
    assertThat(e.code()).isEqualTo(StatusCode.UNAVAILABLE);
  }

  @Test
  void unexpectedExceptions_becomeInternal_withoutJavaSerialization() {
    StatusRuntimeException wire = GrpcErrors.toGrpc(new IllegalStateException("boom"));
    assertThat(wire.getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
    assertThat(wire.getStatus().getDescription()).contains("IllegalStateException: boom");
  }
}
