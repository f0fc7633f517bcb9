package io.strata.core.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.security.Security;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The limits every gRPC server of the cluster starts with. */
class GrpcServersTest {
  private static final int CAP = 2;

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
            CAP);
  }

  @AfterEach
  void stop() {
    GrpcServers.stop(server);
    executor.shutdownNow();
  }

  @Test
  void connectionsPastTheCap_areClosedAtOnce_andTheirPlacesFreeWhenOthersGo() throws Exception {
    Socket first = connect();
    Socket second = connect();
    try (Socket third = connect()) {
      assertThat(closedByServer(third)).as("the connection past the cap").isTrue();
      assertThat(closedByServer(first)).as("a connection within the cap").isFalse();
    }
    second.close();
    // The place frees when the server sees the close, a moment later: bounded retries.
    boolean served = false;
    for (int i = 0; i < 50 && !served; i++) {
      try (MasterClient client = new MasterClient(conf())) {
        client.call(
            "getClusterView", s -> s.getClusterView(GetClusterViewRequest.getDefaultInstance()));
        served = true;
      } catch (RuntimeException e) {
        Thread.sleep(100);
      }
    }
    assertThat(served).as("a call once a place is free").isTrue();
    first.close();
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getPort());
    s.setSoTimeout(2_000);
    return s;
  }

  /** Whether the server closed {@code s} (an end of stream) rather than leaving it open. */
  private static boolean closedByServer(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      return in.read() == -1;
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
