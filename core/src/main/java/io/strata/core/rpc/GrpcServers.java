package io.strata.core.rpc;

import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.strata.core.security.Security;
import io.strata.core.security.Tls;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** Starts and stops the gRPC servers of masters and workers. */
public final class GrpcServers {
  private GrpcServers() {}

  /**
   * Starts a server, over TLS if {@code security} has it; every call is authenticated and
   * authorised first (by {@code security}'s rules, refusals audited), then passes the metrics
   * interceptor and the audit log.
   */
  public static Server start(
      String bindHost,
      int port,
      Executor executor,
      List<BindableService> services,
      Security security,
      RpcMetricsInterceptor metrics,
      AuditInterceptor audit)
      throws IOException {
    AuthInterceptor auth = new AuthInterceptor(security, audit);
    NettyServerBuilder b =
        NettyServerBuilder.forAddress(
                new InetSocketAddress(bindHost, port),
                security.tls().map(Tls::grpcServer).orElseGet(InsecureServerCredentials::create))
            .executor(executor)
            .maxInboundMessageSize(Channels.MAX_MESSAGE);
    for (BindableService s : services) {
      b.addService(ServerInterceptors.intercept(s, audit, metrics, auth));
    }
    return b.build().start();
  }

  public static void stop(Server server) {
    if (server == null) {
      return;
    }
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.shutdownNow();
    }
  }
}
