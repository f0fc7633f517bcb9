package io.strata.worker.meta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.strata.core.conf.Configuration;
import io.strata.core.net.ConnectionGate;
import io.strata.core.net.HostPort;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.MetadataEvent;
import io.strata.core.proto.MetadataWatchServiceGrpc;
import io.strata.core.proto.WatchMetadataRequest;
import io.strata.core.rpc.AuditInterceptor;
import io.strata.core.rpc.Channels;
import io.strata.core.rpc.GrpcServers;
import io.strata.core.rpc.RpcMetricsInterceptor;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Credentials;
import io.strata.core.security.Role;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Security;
import io.strata.core.security.Tokens;
import io.strata.worker.TestFiles;
import io.strata.worker.kv.MemoryKvStore;
import io.strata.worker.rpc.MetadataWatchServiceImpl;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 78: gRPC takes any number of streams on one connection, and each watch may hold thousands
 * of events in the worker's heap for a client that does not read them; a user opened as many as
 * they liked. A real TOKEN-mode gRPC server on loopback: a user's 17th watch is refused, a freed
 * place is theirs again, the cluster's processes are not counted.
 */
class MetadataWatchersTest {
  @TempDir Path dir;

  private final MetadataWatchers watchers = new MetadataWatchers();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final List<Context.CancellableContext> calls = new ArrayList<>();
  private ClusterSecret secret;
  private Server server;

  @BeforeEach
  void start() throws Exception {
    secret = ClusterSecret.load(SecretFiles.write(dir.resolve("secret"), SecretFiles.CLUSTER));
    server =
        GrpcServers.start(
            "127.0.0.1",
            0,
            Executors.newFixedThreadPool(2),
            List.of(new MetadataWatchServiceImpl(watchers)),
            Security.token(secret),
            new RpcMetricsInterceptor(new SimpleMeterRegistry(), System::nanoTime),
            new AuditInterceptor(new Configuration()),
            ConnectionGate.Limits.UNBOUNDED);
  }

  @AfterEach
  void stop() {
    calls.forEach(c -> c.cancel(null));
    channels.forEach(Channels::close);
    watchers.close();
    server.shutdownNow();
  }

  /** One watch on its own call; what it heard, as events and the status it ended with. */
  private record Watch(
      List<MetadataEvent> events, List<Status> ended, Context.CancellableContext call) {}

  private Watch watch(MetadataWatchServiceGrpc.MetadataWatchServiceStub stub) {
    List<MetadataEvent> events = new CopyOnWriteArrayList<>();
    List<Status> ended = new CopyOnWriteArrayList<>();
    Context.CancellableContext call = Context.current().withCancellation();
    calls.add(call);
    call.run(
        () ->
            stub.watchMetadata(
                WatchMetadataRequest.getDefaultInstance(),
                new StreamObserver<>() {
                  @Override
                  public void onNext(MetadataEvent e) {
                    events.add(e);
                  }

                  @Override
                  public void onError(Throwable t) {
                    ended.add(Status.fromThrowable(t));
                  }

                  @Override
                  public void onCompleted() {
                    ended.add(Status.OK);
                  }
                }));
    return new Watch(events, ended, call);
  }

  private MetadataWatchServiceGrpc.MetadataWatchServiceStub as(String user, Role role) {
    String token = Tokens.issue(secret, user, role, Instant.now().plusSeconds(600));
    ManagedChannel channel =
        Channels.open(new HostPort("127.0.0.1", server.getPort()), Credentials.ofToken(token));
    channels.add(channel);
    return MetadataWatchServiceGrpc.newStub(channel);
  }

  @Test
  void aUsersWatchesAreBounded_theClustersAreNot() {
    MetadataWatchServiceGrpc.MetadataWatchServiceStub mallory = as("mallory", Role.USER);
    List<Watch> held = new ArrayList<>();
    for (int i = 0; i < MetadataWatchers.MAX_PER_USER; i++) {
      held.add(watch(mallory));
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> held.stream().allMatch(w -> w.events().size() == 1));
    assertThat(watchers.heldBy("mallory")).isEqualTo(MetadataWatchers.MAX_PER_USER);

    Watch refused = watch(mallory);
    await().atMost(Duration.ofSeconds(20)).until(() -> !refused.ended().isEmpty());
    assertThat(refused.ended().get(0).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(refused.ended().get(0).getDescription())
        .isEqualTo("mallory already holds 16 metadata watches on this worker; end one first");

    held.get(0).call().cancel(null);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> watchers.heldBy("mallory") == MetadataWatchers.MAX_PER_USER - 1);
    Watch again = watch(mallory);
    await().atMost(Duration.ofSeconds(20)).until(() -> again.events().size() == 1);

    MetadataWatchServiceGrpc.MetadataWatchServiceStub mount = as("fuse", Role.SERVICE);
    List<Watch> mounts = new ArrayList<>();
    for (int i = 0; i < MetadataWatchers.MAX_PER_USER + 4; i++) {
      mounts.add(watch(mount));
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> mounts.stream().allMatch(w -> w.events().size() == 1));
    watchers.heartbeat();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> again.events().size() == 2 && held.get(1).events().size() == 2);
  }

  /**
   * Issue 78: every watcher heard every path the worker dropped, names in folders it may not search
   * included. A real metadata service over a local folder: mallory hears alice's file as alice's
   * folder (dropped recursively), alice and the cluster's processes hear it as it is, and a path
   * whose folders the worker does not hold in memory is heard as the nearest it does.
   */
  @Test
  void aUserHearsOnlyPathsTheyMaySee() throws Exception {
    Path ufs = Files.createDirectories(dir.resolve("ufs"));
    Path home = Files.createDirectories(ufs.resolve("home"));
    Path ali = Files.createDirectories(home.resolve("ali"));
    Files.writeString(ali.resolve("offer.pdf"), "x");
    Files.createDirectories(ufs.resolve("data/sub"));
    Files.setAttribute(ali, "unix:uid", 4001);
    Files.setPosixFilePermissions(ali, PosixFilePermissions.fromString("rwx------"));
    MetadataService meta =
        new MetadataService(
            TestFiles.ufsAt(ufs),
            new MetadataCache(
                1000,
                Duration.ofSeconds(60),
                Duration.ofSeconds(5),
                System::currentTimeMillis,
                new MemoryKvStore()),
            new SimpleMeterRegistry());
    for (String p : List.of("/", "/home", "/home/ali", "/home/ali/offer.pdf")) {
      meta.getStatus(StrataPath.of(p), -1);
    }
    watchers.showOnly(new VisibleEvents(meta, () -> true, () -> ""));
    Watch mallory = watch(as("4002", Role.USER));
    Watch alice = watch(as("4001", Role.USER));
    Watch mount = watch(as("fuse", Role.SERVICE));
    List<Watch> all = List.of(mallory, alice, mount);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> all.stream().allMatch(w -> w.events().size() == 1));

    watchers.dropped(List.of("/home/ali/offer.pdf"), false);
    watchers.dropped(List.of("/data/sub/part-0"), false);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> all.stream().allMatch(w -> w.events().size() == 3));

    MetadataEvent asIs = MetadataEvent.newBuilder().addPaths("/home/ali/offer.pdf").build();
    assertThat(alice.events().get(1)).isEqualTo(asIs);
    assertThat(mount.events().get(1)).isEqualTo(asIs);
    assertThat(mallory.events().get(1))
        .isEqualTo(MetadataEvent.newBuilder().addPaths("/home/ali").setRecursive(true).build());
    assertThat(mallory.events().get(2))
        .as("/data is not in memory: its search bit is unknown")
        .isEqualTo(MetadataEvent.newBuilder().addPaths("/data").setRecursive(true).build());
    assertThat(mount.events().get(2))
        .isEqualTo(MetadataEvent.newBuilder().addPaths("/data/sub/part-0").build());
  }
}
