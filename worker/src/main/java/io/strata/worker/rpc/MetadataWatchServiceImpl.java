package io.strata.worker.rpc;

import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.strata.core.proto.MetadataEvent;
import io.strata.core.proto.MetadataWatchServiceGrpc;
import io.strata.core.proto.WatchMetadataRequest;
import io.strata.core.security.Principal;
import io.strata.worker.meta.MetadataWatchers;

/**
 * Streams this worker's metadata invalidations to a client that keeps statuses (a FUSE mount). Any
 * caller the cluster authenticated may watch, a user a few times at once: an event names paths,
 * never their contents or attributes.
 */
public final class MetadataWatchServiceImpl
    extends MetadataWatchServiceGrpc.MetadataWatchServiceImplBase {
  private final MetadataWatchers watchers;

  public MetadataWatchServiceImpl(MetadataWatchers watchers) {
    this.watchers = watchers;
  }

  @Override
  public void watchMetadata(WatchMetadataRequest req, StreamObserver<MetadataEvent> out) {
    watchers.watch((ServerCallStreamObserver<MetadataEvent>) out, Principal.current());
  }
}
