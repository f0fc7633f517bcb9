package io.strata.core.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.GetClusterViewRequest;
import io.strata.core.proto.MasterServiceGrpc;
import io.strata.core.proto.RegisterWorkerRequest;
import io.strata.core.proto.RegisterWorkerResponse;
import io.strata.core.proto.UpdateConfRequest;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Credentials;
import io.strata.core.security.NewSecrets;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.Security;
import io.strata.core.security.Tokens;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real gRPC server in TOKEN mode: who gets in, as whom, and to do what. */
class AuthInterceptorTest {
  @TempDir Path dir;
  private ClusterSecret secret;
  private Server server;
  private Configuration conf;

  /** The callers that reached the service, as it saw them. */
  private final ConcurrentLinkedQueue<Principal> served = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void start() throws Exception {
    secret = NewSecrets.in(dir.resolve("a"));
    startWith(GrpcServers.limits(new Configuration()));
  }

  private void startWith(io.strata.core.net.ConnectionGate.Limits limits) throws Exception {
    var service =
        new MasterServiceGrpc.MasterServiceImplBase() {
          @Override
          public void getClusterView(GetClusterViewRequest req, StreamObserver<ClusterView> out) {
            Rpc.unary(out, "getClusterView", () -> served(ClusterView.getDefaultInstance()));
          }

          @Override
          public void updateConf(UpdateConfRequest req, StreamObserver<ConfigView> out) {
            Rpc.unary(out, "updateConf", () -> served(ConfigView.getDefaultInstance()));
          }

          @Override
          public void registerWorker(
              RegisterWorkerRequest req, StreamObserver<RegisterWorkerResponse> out) {
            Rpc.unary(
                out, "registerWorker", () -> served(RegisterWorkerResponse.getDefaultInstance()));
          }
        };
    server =
        GrpcServers.start(
            "127.0.0.1",
            0,
            Executors.newSingleThreadExecutor(),
            List.of(service),
            Security.token(secret),
            new RpcMetricsInterceptor(new SimpleMeterRegistry(), System::nanoTime),
            new AuditInterceptor(audited()),
            limits);
    conf = new Configuration();
    conf.set(CommonKeys.MASTER_RPC_ADDRESSES, "127.0.0.1:" + server.getPort());
    conf.set(io.strata.core.conf.UserKeys.RPC_RETRY_MAX_DURATION, "1s");
  }

  private static Configuration audited() {
    Configuration c = new Configuration();
    c.set(CommonKeys.AUDIT_ENABLED, "true");
    return c;
  }

  /** The audit log's lines while {@code body} runs. */
  private static List<String> audit(Runnable body) {
    List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
    var context = (org.apache.logging.log4j.core.LoggerContext) LogManager.getContext(false);
    var logger = context.getLogger(AuditInterceptor.LOGGER);
    var appender =
        new org.apache.logging.log4j.core.appender.AbstractAppender(
            "audit-capture",
            null,
            null,
            true,
            org.apache.logging.log4j.core.config.Property.EMPTY_ARRAY) {
          @Override
          public void append(org.apache.logging.log4j.core.LogEvent event) {
            lines.add(event.getMessage().getFormattedMessage());
          }
        };
    appender.start();
    logger.addAppender(appender);
    try {
      body.run();
    } finally {
      logger.removeAppender(appender);
      appender.stop();
    }
    return lines;
  }

  private <T> T served(T reply) {
    served.add(Principal.current());
    return reply;
  }

  @AfterEach
  void stop() {
    GrpcServers.stop(server);
  }

  @Test
  void aCallWithoutATokenIsRefusedBeforeTheService_andAudited() {
    List<String> lines =
        audit(
            () ->
                assertThat(refusal(Credentials.NONE, this::view))
                    .satisfies(e -> assertThat(e.code()).isEqualTo(StatusCode.UNAUTHENTICATED))
                    .hasMessageContaining("no token"));
    assertThat(served).isEmpty();
    assertThat(lines)
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("user=[" + System.getProperty("user.name"))
                    .contains("op=GetClusterView status=UNAUTHENTICATED"));
  }

  @Test
  void forgedAndExpiredTokensAreRefused() throws Exception {
    ClusterSecret other = NewSecrets.in(dir.resolve("b"));
    String forged = Tokens.issue(other, "mallory", Role.SERVICE, Instant.now().plusSeconds(60));
    assertThat(refusal(Credentials.ofToken(forged), this::view))
        .hasMessageContaining("signature is not this cluster's");
    String expired = Tokens.issue(secret, "alice", Role.ADMIN, Instant.now().minusSeconds(1));
    assertThat(refusal(Credentials.ofToken(expired), this::view)).hasMessageContaining("expired");
    assertThat(served).isEmpty();
  }

  @Test
  void aUserReadsButNeitherAdministersNorJoins() {
    Credentials alice = token("alice", Role.USER);
    call(alice, this::view);
    assertThat(served).containsExactly(new Principal("alice", Role.USER));
    assertThat(refusal(alice, this::updateConf))
        .satisfies(e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
        .hasMessageContaining("UpdateConf needs an admin token; alice is a user");
    assertThat(refusal(alice, this::register)).hasMessageContaining("needs the cluster secret");
    assertThat(served).hasSize(1);
  }

  @Test
  void anAdminAdministersAndOnlyTheSecretJoins() {
    Credentials root = token("root", Role.ADMIN);
    call(root, this::updateConf);
    assertThat(refusal(root, this::register)).hasMessageContaining("root is an admin");
    call(Credentials.service(secret), this::register);
    assertThat(served)
        .containsExactly(
            new Principal("root", Role.ADMIN),
            new Principal(Credentials.SERVICE_USER, Role.SERVICE));
  }

  /**
   * Issue 78, high 7: one user's connections are capped at their first call, so a user with a token
   * cannot take the port's places from the others; the cluster's processes are not counted.
   */
  @Test
  void aUserPastTheirConnections_isRefusedInOneLine_othersAreServed() throws Exception {
    GrpcServers.stop(server);
    startWith(io.strata.core.net.ConnectionGate.Limits.of(64, 1, 4));
    Credentials mallory = token("mallory", Role.USER);
    try (MasterClient held = new MasterClient(conf, mallory)) {
      held.call("test", this::view);
      assertThat(refusal(mallory, this::view))
          .satisfies(e -> assertThat(e.code()).isEqualTo(StatusCode.RESOURCE_EXHAUSTED))
          .hasMessageContaining("mallory holds as many connections to this port as allowed");
      call(token("alice", Role.USER), this::view);
      call(Credentials.service(secret), this::register);
      held.call("test", this::view);
    }
  }

  private Credentials token(String user, Role role) {
    return Credentials.ofToken(Tokens.issue(secret, user, role, Instant.now().plusSeconds(60)));
  }

  private Object view(MasterServiceGrpc.MasterServiceBlockingStub s) {
    return s.getClusterView(GetClusterViewRequest.getDefaultInstance());
  }

  private Object updateConf(MasterServiceGrpc.MasterServiceBlockingStub s) {
    return s.updateConf(UpdateConfRequest.getDefaultInstance());
  }

  private Object register(MasterServiceGrpc.MasterServiceBlockingStub s) {
    return s.registerWorker(RegisterWorkerRequest.getDefaultInstance());
  }

  private void call(
      Credentials c,
      java.util.function.Function<MasterServiceGrpc.MasterServiceBlockingStub, ?> rpc) {
    try (MasterClient client = new MasterClient(conf, c)) {
      client.call("test", rpc);
    }
  }

  private StrataException refusal(
      Credentials c,
      java.util.function.Function<MasterServiceGrpc.MasterServiceBlockingStub, ?> rpc) {
    StrataException[] caught = new StrataException[1];
    assertThatThrownBy(() -> call(c, rpc))
        .isInstanceOfSatisfying(StrataException.class, e -> caught[0] = e);
    return caught[0];
  }
}
