package io.strata.master.load;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.strata.core.net.HostPort;
import io.strata.core.proto.CheckAccessRequest;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.GetStatusRequest;
import io.strata.core.proto.ListStatusRequest;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.core.proto.LoadFilesResponse;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerServiceGrpc;
import io.strata.core.rpc.Channels;
import io.strata.core.rpc.GrpcErrors;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Credentials;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.security.Tokens;
import io.strata.core.status.StrataException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** gRPC channels from the leader to workers, for what load jobs ask of them. Thread-safe. */
public final class WorkerStubs implements AutoCloseable {
  private static final long METADATA_TIMEOUT_MS = 30_000;
  private static final long LOAD_TIMEOUT_MS = 30 * 60_000;

  /** How long the token of a check made as a user lives: one call's worth. */
  private static final Duration ACTING_AS_TTL = Duration.ofMinutes(1);

  private final Map<HostPort, ManagedChannel> channels = new ConcurrentHashMap<>();
  private final Credentials credentials;
  private final Optional<ClusterSecret> secret;
  private final Clock clock;

  /**
   * Calls carry {@code credentials}: the master's own, signed with the cluster secret; checks made
   * as a user carry a short-lived token of theirs signed with {@code secret} (none in NONE mode).
   */
  public WorkerStubs(Credentials credentials, Optional<ClusterSecret> secret, Clock clock) {
    this.credentials = credentials;
    this.secret = secret;
    this.clock = clock;
  }

  private ManagedChannel channel(WorkerInfo w) {
    return channels.computeIfAbsent(
        new HostPort(w.getAddress().getHost(), w.getAddress().getRpcPort()),
        t -> Channels.open(t, credentials));
  }

  public FileStatus status(WorkerInfo w, String path) {
    try {
      return WorkerServiceGrpc.newBlockingStub(channel(w))
          .withDeadlineAfter(METADATA_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .getStatus(GetStatusRequest.newBuilder().setPath(path).build())
          .getStatus();
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.fromGrpc(e, "worker " + w.getId());
    }
  }

  /**
   * Whether {@code user} may do {@code access} (bits of r 4, w 2, x 1) on {@code path}, as the
   * worker's own permission checks decide for a call made with their token: returns, or throws
   * PERMISSION_DENIED naming who lacks what where ({@code operation} says what for).
   */
  public void checkAccess(WorkerInfo w, String path, Principal user, int access, String operation) {
    if (secret.isEmpty()) {
      return;
    }
    String token =
        Tokens.issue(secret.get(), user.user(), Role.USER, clock.instant().plus(ACTING_AS_TTL));
    try {
      Channels.actingAs(WorkerServiceGrpc.newBlockingStub(channel(w)), token)
          .withDeadlineAfter(METADATA_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .checkAccess(
              CheckAccessRequest.newBuilder()
                  .setPath(path)
                  .setAccess(access)
                  .setOperation(operation)
                  .build());
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.fromGrpc(e, "worker " + w.getId());
    }
  }

  /**
   * One page of a directory's children (sorted by name): those after {@code startAfter}, at most
   * {@code limit}.
   */
  public List<FileStatus> listPage(WorkerInfo w, String path, String startAfter, int limit) {
    return list(w, path, startAfter, limit, false);
  }

  /**
   * One page of the files under {@code path} at any depth, in its store's key order: those after
   * the file {@code startAfter} (a full path), at most {@code limit}.
   */
  public List<FileStatus> treePage(WorkerInfo w, String path, String startAfter, int limit) {
    return list(w, path, startAfter, limit, true);
  }

  private List<FileStatus> list(
      WorkerInfo w, String path, String startAfter, int limit, boolean recursive) {
    ListStatusRequest req =
        ListStatusRequest.newBuilder()
            .setPath(path)
            .setStartAfter(startAfter)
            .setLimit(limit)
            .setRecursive(recursive)
            .build();
    List<FileStatus> children = new ArrayList<>();
    try {
      WorkerServiceGrpc.newBlockingStub(channel(w))
          .withDeadlineAfter(METADATA_TIMEOUT_MS, TimeUnit.MILLISECONDS)
          .listStatus(req)
          .forEachRemaining(page -> children.addAll(page.getChildrenList()));
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.fromGrpc(e, "worker " + w.getId());
    }
    return children;
  }

  public CompletableFuture<LoadFilesResponse> load(WorkerInfo w, LoadFilesRequest req) {
    CompletableFuture<LoadFilesResponse> f = new CompletableFuture<>();
    WorkerServiceGrpc.newStub(channel(w))
        .withDeadlineAfter(LOAD_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .loadFiles(
            req,
            new io.grpc.stub.StreamObserver<>() {
              @Override
              public void onNext(LoadFilesResponse value) {
                f.complete(value);
              }

              @Override
              public void onError(Throwable t) {
                f.completeExceptionally(
                    t instanceof StatusRuntimeException e
                        ? GrpcErrors.fromGrpc(e, "worker " + w.getId())
                        : StrataException.unavailable("worker " + w.getId() + ": " + t, t));
              }

              @Override
              public void onCompleted() {
                if (!f.isDone()) {
                  f.completeExceptionally(
                      StrataException.internal("worker " + w.getId() + " sent no answer", null));
                }
              }
            });
    return f;
  }

  @Override
  public void close() {
    channels.values().forEach(Channels::close);
    channels.clear();
  }
}
