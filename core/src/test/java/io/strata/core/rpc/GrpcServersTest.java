package io.strata.core.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.net.ConnectionGate;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.security.Security;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The limits every gRPC server of the cluster starts with. */
class GrpcServersTest {
  /** Two places, one of them for a connection that has not proved itself yet. */
  private static final ConnectionGate.Limits LIMITS = new ConnectionGate.Limits(2, 1, 1, 2, 0);

  private static final Duration DEADLINE = Duration.ofMillis(800);

  private final ExecutorService executor = Executors.newSingleThreadExecutor();
  private Server server;

  @BeforeEach
  void start() throws IOException {
    MasterServiceGrpc.MasterServiceImplBase service =
        new MasterServiceGrpc.MasterServiceImplBase() {
          @Override
          public void getClusterView(GetClusterViewRequest req, StreamObserver<ClusterView> out) {
            Rpc.unary(out, "getClusterView", ClusterView::getDefaultInstance);
          }
        };
    server =
        GrpcServers.start(
            "127.0.0.1",
            0,
            executor,
            List.of(service),
            Security.none(),
            new RpcMetricsInterceptor(new SimpleMeterRegistry(), System::nanoTime),
            new AuditInterceptor(new Configuration()),
            LIMITS,
            DEADLINE);
  }

  @AfterEach
  void stop() {
    GrpcServers.stop(server);
    executor.shutdownNow();
  }

  /**
   * Issue 78, high 7: silent connections held every place (4,096 idle sockets locked a master out).
   * Now a silent one goes when a newer one needs its room, proven ones stay, and only a port full
   * of proven connections refuses.
   */
  @Test
  void silentConnections_giveWayToNewOnes_provenOnesStay() throws Exception {
    try (MasterClient first = new MasterClient(conf())) {
      call(first);
      Socket silent = connect();
      Socket newer = connect();
      assertThat(closedByServer(silent)).as("the older silent connection, for the newer").isTrue();
      try (MasterClient second = new MasterClient(conf())) {
        call(second);
        assertThat(closedByServer(newer)).as("a silent one, for a client's call").isTrue();
        try (Socket third = connect()) {
          assertThat(closedByServer(third)).as("every place held by a proven client").isTrue();
        }
        call(first);
        call(second);
      }
    }
  }

  /**
   * Issue 78, high 7, as an attacker runs it: thousands of sockets from one address (4,096 idle
   * ones locked a master out, its workers went LOST); a client from another address is served.
   */
  @Test
  void thousandsOfSocketsFromOneAddress_leaveAnotherClientServed() throws Exception {
    GrpcServers.stop(server);
    server =
        GrpcServers.start(
            "127.0.0.1",
            0,
            executor,
            List.of(
                new MasterServiceGrpc.MasterServiceImplBase() {
                  @Override
                  public void getClusterView(
                      GetClusterViewRequest req, StreamObserver<ClusterView> out) {
                    Rpc.unary(out, "getClusterView", ClusterView::getDefaultInstance);
                  }
                }),
            Security.none(),
            new RpcMetricsInterceptor(new SimpleMeterRegistry(), System::nanoTime),
            new AuditInterceptor(new Configuration()),
            ConnectionGate.Limits.of(256, 256, 64),
            DEADLINE);
    List<Socket> flood = new java.util.ArrayList<>();
    try {
      InetAddress attacker = InetAddress.getByName("127.0.0.2");
      for (int i = 0; i < 2_000; i++) {
        Socket s = new Socket();
        s.bind(new java.net.InetSocketAddress(attacker, 0));
        s.connect(
            new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), server.getPort()));
        flood.add(s);
      }
      try (MasterClient client = new MasterClient(conf())) {
        call(client);
      }
    } finally {
      for (Socket s : flood) {
        s.close();
      }
    }
  }

  @Test
  void aConnectionThatNeverCalls_isClosedAtTheDeadline() throws Exception {
    try (Socket silent = connect()) {
      silent.setSoTimeout((int) DEADLINE.multipliedBy(5).toMillis());
      long started = System.nanoTime();
      assertThat(closedByServer(silent)).isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - started))
          .isLessThan(DEADLINE.multipliedBy(5));
    }
  }

  private static void call(MasterClient client) {
    client.call(
        "getClusterView", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getPort());
    s.setSoTimeout(2_000);
    return s;
  }

  /**
   * Whether the server closed {@code s} (an end of stream after what it sent, its HTTP/2 settings)
   * rather than leaving it open.
   */
  private static boolean closedByServer(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      for (int i = 0; i < 1 << 16; i++) {
        if (in.read() == -1) {
          return true;
        }
      }
      return false;
    } catch (SocketTimeoutException open) {
      return false;
    } catch (IOException reset) {
      return true;
    }
  }

  private Configuration conf() {
    Configuration conf = new Configuration();
    conf.set(CommonKeys.MASTER_RPC_ADDRESSES, "127.0.0.1:" + server.getPort());
    conf.set(UserKeys.RPC_RETRY_MAX_DURATION, "1s");
    return conf;
  }
}
