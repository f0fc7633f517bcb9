package io.strata.worker.rpc;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.strata.core.proto.CheckAccessRequest;
import io.strata.core.proto.CheckAccessResponse;
import io.strata.core.proto.CreateNodeRequest;
import io.strata.core.proto.CreateNodeResponse;
import io.strata.core.proto.DeleteRequest;
import io.strata.core.proto.DeleteResponse;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FreeRequest;
import io.strata.core.proto.FreeResponse;
import io.strata.core.proto.GetStatusRequest;
import io.strata.core.proto.GetStatusResponse;
import io.strata.core.proto.GetXattrsRequest;
import io.strata.core.proto.GetXattrsResponse;
import io.strata.core.proto.InvalidateMetadataRequest;
import io.strata.core.proto.InvalidateMetadataResponse;
import io.strata.core.proto.ListStatusRequest;
import io.strata.core.proto.ListStatusResponse;
import io.strata.core.proto.LoadFilesRequest;
import io.strata.core.proto.LoadFilesResponse;
import io.strata.core.proto.MkdirRequest;
import io.strata.core.proto.MkdirResponse;
import io.strata.core.proto.RenameRequest;
import io.strata.core.proto.RenameResponse;
import io.strata.core.proto.SetAttributesRequest;
import io.strata.core.proto.SetAttributesResponse;
import io.strata.core.proto.SetXattrRequest;
import io.strata.core.proto.SetXattrResponse;
import io.strata.core.proto.WorkerServiceGrpc;
import io.strata.core.proto.WriteRequest;
import io.strata.core.proto.WriteResponse;
import io.strata.core.rpc.Rpc;
import io.strata.core.security.Principal;
import io.strata.core.util.Futures;
import io.strata.worker.load.FileLoader;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.namespace.Namespace;
import java.util.List;

/**
 * The worker's gRPC service: adapts requests to the {@link Namespace} of the paths this worker owns
 * (with the caller the security interceptor put in the context), loads to the {@link FileLoader}
 * and writes to the {@link WriteSessions}.
 */
public final class WorkerServiceImpl extends WorkerServiceGrpc.WorkerServiceImplBase {
  static final int LIST_BATCH = 1000;

  private final Namespace namespace;
  private final WriteSessions writes;
  private final FileLoader loader;

  public WorkerServiceImpl(Namespace namespace, WriteSessions writes, FileLoader loader) {
    this.namespace = namespace;
    this.writes = writes;
    this.loader = loader;
  }

  @Override
  public void loadFiles(LoadFilesRequest req, StreamObserver<LoadFilesResponse> out) {
    Futures.onDone(
        loader.load(req),
        (response, error) -> {
          if (error != null) {
            Rpc.fail(
                out,
                "loadFiles",
                error instanceof RuntimeException re ? re : new RuntimeException(error));
          } else {
            out.onNext(response);
            out.onCompleted();
          }
        });
  }

  @Override
  public void getStatus(GetStatusRequest req, StreamObserver<GetStatusResponse> out) {
    Rpc.unary(
        out,
        "getStatus",
        () ->
            GetStatusResponse.newBuilder()
                .setStatus(namespace.status(Principal.current(), req))
                .build());
  }

  @Override
  public void listStatus(ListStatusRequest req, StreamObserver<ListStatusResponse> out) {
    MetadataService.Listing listing;
    try {
      listing = namespace.list(Principal.current(), req);
    } catch (RuntimeException e) {
      Rpc.fail(out, "listStatus", e);
      return;
    }
    List<FileStatus> children = listing.children();
    for (int i = 0; i < children.size(); i += LIST_BATCH) {
      out.onNext(
          ListStatusResponse.newBuilder()
              .addAllChildren(children.subList(i, Math.min(children.size(), i + LIST_BATCH)))
              .setFreshForMs(listing.freshForMs())
              .build());
    }
    if (children.isEmpty()) {
      out.onNext(ListStatusResponse.newBuilder().setFreshForMs(listing.freshForMs()).build());
    }
    out.onCompleted();
  }

  @Override
  public void mkdir(MkdirRequest req, StreamObserver<MkdirResponse> out) {
    Rpc.unary(
        out,
        "mkdir",
        () -> {
          namespace.mkdir(Principal.current(), req);
          return MkdirResponse.getDefaultInstance();
        });
  }

  @Override
  public void delete(DeleteRequest req, StreamObserver<DeleteResponse> out) {
    Rpc.unary(
        out,
        "delete",
        () -> {
          namespace.delete(Principal.current(), req);
          return DeleteResponse.getDefaultInstance();
        });
  }

  @Override
  public void setAttributes(SetAttributesRequest req, StreamObserver<SetAttributesResponse> out) {
    Rpc.unary(
        out,
        "setAttributes",
        () -> {
          namespace.setAttributes(Principal.current(), req);
          return SetAttributesResponse.getDefaultInstance();
        });
  }

  @Override
  public void getXattrs(GetXattrsRequest req, StreamObserver<GetXattrsResponse> out) {
    Rpc.unary(
        out,
        "getXattrs",
        () -> {
          GetXattrsResponse.Builder b = GetXattrsResponse.newBuilder();
          namespace
              .xattrs(Principal.current(), req.getPath())
              .forEach((k, v) -> b.putXattrs(k, ByteString.copyFrom(v)));
          return b.build();
        });
  }

  @Override
  public void setXattr(SetXattrRequest req, StreamObserver<SetXattrResponse> out) {
    Rpc.unary(
        out,
        "setXattr",
        () -> {
          namespace.setXattr(Principal.current(), req);
          return SetXattrResponse.getDefaultInstance();
        });
  }

  @Override
  public void rename(RenameRequest req, StreamObserver<RenameResponse> out) {
    Rpc.unary(
        out,
        "rename",
        () -> {
          namespace.rename(Principal.current(), req);
          return RenameResponse.getDefaultInstance();
        });
  }

  @Override
  public void createNode(CreateNodeRequest req, StreamObserver<CreateNodeResponse> out) {
    Rpc.unary(
        out,
        "createNode",
        () -> {
          namespace.createNode(Principal.current(), req);
          return CreateNodeResponse.getDefaultInstance();
        });
  }

  @Override
  public StreamObserver<WriteRequest> write(StreamObserver<WriteResponse> out) {
    Principal caller = Principal.current();
    StreamObserver<WriteRequest> session = writes.open(out);
    if (!namespace.checked(caller)) {
      return session;
    }
    return new CheckedWrite(session, out, h -> namespace.checkWrite(caller, h));
  }

  @Override
  public void free(FreeRequest req, StreamObserver<FreeResponse> out) {
    Rpc.unary(
        out,
        "free",
        () ->
            FreeResponse.newBuilder()
                .setFreedBytes(namespace.free(Principal.current(), req))
                .build());
  }

  @Override
  public void checkAccess(CheckAccessRequest req, StreamObserver<CheckAccessResponse> out) {
    Rpc.unary(
        out,
        "checkAccess",
        () -> {
          namespace.checkAccess(Principal.current(), req);
          return CheckAccessResponse.getDefaultInstance();
        });
  }

  @Override
  public void invalidateMetadata(
      InvalidateMetadataRequest req, StreamObserver<InvalidateMetadataResponse> out) {
    Rpc.unary(
        out,
        "invalidateMetadata",
        () -> {
          namespace.invalidate(Principal.current(), req);
          return InvalidateMetadataResponse.getDefaultInstance();
        });
  }
}
