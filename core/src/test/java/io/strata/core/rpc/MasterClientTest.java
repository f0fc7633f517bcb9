package io.strata.core.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.strata.core.net.HostPort;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Real gRPC servers on loopback playing leader and follower. */
class MasterClientTest {
  private final List<Server> servers = new ArrayList<>();

  /** A master that answers NOT_LEADER with {@code hint}, or a view when hint is null. */
  private HostPort master(String hint, AtomicInteger calls) throws Exception {
    var service =
        new MasterServiceGrpc.MasterServiceImplBase() {
          @Override
          public void getClusterView(GetClusterViewRequest req, StreamObserver<ClusterView> out) {
            calls.incrementAndGet();
            Rpc.unary(
                out,
                "getClusterView",
                () -> {
                  if (hint != null) {
                    throw StrataException.notLeader("not the leader", hint);
                  }
                  return ClusterView.newBuilder().setMembershipVersion(7).build();
                });
          }
        };
    Server s =
        GrpcServers.start(
            "127.0.0.1",
            0,
            Executors.newSingleThreadExecutor(),
            List.of(service),
            io.strata.core.security.Security.none(),
            new RpcMetricsInterceptor(new SimpleMeterRegistry(), System::nanoTime),
            new AuditInterceptor(new io.strata.core.conf.Configuration()),
            GrpcServers.limits(new io.strata.core.conf.Configuration()));
    servers.add(s);
    return new HostPort("127.0.0.1", s.getPort());
  }

  private static HostPort deadAddress() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return new HostPort("127.0.0.1", s.getLocalPort());
    }
  }

  @AfterEach
  void stop() {
    servers.forEach(GrpcServers::stop);
  }

  @Test
  void call_followsTheLeaderHintAndRemembersTheLeader() throws Exception {
    AtomicInteger leaderCalls = new AtomicInteger();
    HostPort leader = master(null, leaderCalls);
    HostPort follower = master(leader.toString(), new AtomicInteger());
    try (MasterClient client =
        new MasterClient(
            List.of(follower, leader),
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            System::nanoTime,
            ms -> {})) {
      ClusterView v =
          client.call("view", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
      assertThat(v.getMembershipVersion()).isEqualTo(7);
      assertThat(client.currentMaster()).isEqualTo(leader);
      client.call("view", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
      assertThat(leaderCalls).hasValue(2);
    }
  }

  @Test
  void call_skipsUnreachableMasters() throws Exception {
    HostPort leader = master(null, new AtomicInteger());
    try (MasterClient client =
        new MasterClient(
            List.of(deadAddress(), leader),
            Duration.ofSeconds(5),
            Duration.ofSeconds(5),
            System::nanoTime,
            ms -> {})) {
      assertThat(
              client
                  .call("view", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()))
                  .getMembershipVersion())
          .isEqualTo(7);
    }
  }

  @Test
  void call_withNoMasterUp_failsWhenTheBudgetIsSpent_afterBackingOff() throws Exception {
    AtomicLong clock = new AtomicLong();
    List<Long> sleeps = new ArrayList<>();
    try (MasterClient client =
        new MasterClient(
            List.of(deadAddress(), deadAddress()),
            Duration.ofSeconds(1),
            Duration.ofSeconds(3),
            clock::get,
            ms -> {
              sleeps.add(ms);
              clock.addAndGet(ms * 1_000_000);
            })) {
      assertThatThrownBy(
              () ->
                  client.call(
                      "view", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance())))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> {
                assertThat(e.code()).isEqualTo(StatusCode.UNAVAILABLE);
                assertThat(e.getMessage()).contains("no master answered view within 3000 ms");
              });
    }
    assertThat(sleeps).startsWith(25L, 50L, 100L, 200L, 250L).allMatch(ms -> ms <= 250);
  }
}
