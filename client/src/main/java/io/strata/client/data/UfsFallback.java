package io.strata.client.data;

import io.strata.client.FileInfo;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.FileStatus;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.LocalUnderFileSystem;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UnderFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the under-storage directly when no worker can serve a read (with
 * strata.user.ufs.fallback.enabled). Like a worker, it checks after reading that the file is still
 * the version the reader opened, so a fallback never mixes versions either. Thread-safe.
 */
public final class UfsFallback implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UfsFallback.class);

  private final Supplier<ClusterView> view;
  private final Map<Mount, UnderFileSystem> open = new ConcurrentHashMap<>();

  public UfsFallback(Supplier<ClusterView> view) {
    this.view = view;
  }

  /** The file's status as the under-storage has it now (for an open no worker could answer). */
  public FileStatus status(String path) {
    StrataPath p = StrataPath.of(path);
    MountTable.Resolution r = resolve(p);
    LOG.debug("no worker could open {}; asking the under-storage directly", path);
    return ufs(r).getStatus(r.ufsPath()).toProto(p, r.ufsUri());
  }

  public int read(FileInfo file, long offset, ByteBuffer dst) {
    MountTable.Resolution r = resolve(StrataPath.of(file.path()));
    UnderFileSystem ufs = ufs(r);
    LOG.debug("no worker could serve {}; reading the under-storage directly", file.path());
    try (UfsReader reader = ufs.openReader(r.ufsPath())) {
      int n = reader.readFully(offset, dst);
      if (!reader.currentFingerprint().equals(file.fingerprint())) {
        throw new StrataException(
            StatusCode.FAILED_PRECONDITION,
            file.path() + " changed in the under-storage while being read; open it again");
      }
      return n;
    } catch (IOException e) {
      throw StrataException.unavailable(
          "reading " + file.path() + " from the under-storage failed: " + e, e);
    }
  }

  private MountTable.Resolution resolve(StrataPath path) {
    ClusterView v = view.get();
    return MountTable.fromProto(v.getMountsList(), v.getMountTableVersion()).resolve(path);
  }

  /**
   * A user's view of the mount table carries no credentials ({@link Mount#REDACTED}): the store is
   * then reached with this process's own (the SDK's default chain), never with the cluster's.
   */
  private UnderFileSystem ufs(MountTable.Resolution r) {
    return open.computeIfAbsent(
        r.mount(),
        m -> {
          // Asked once per mount, not per read: a driver that opens other schemes asks Hadoop.
          if (UfsFactory.find(m.ufsUri()).isEmpty()) {
            // The client carries no drivers of its own: the reader gets the cause, not a
            // NoClassDefFoundError.
            throw StrataException.unavailable(
                "no worker could serve "
                    + r.ufsUri()
                    + ", and this process cannot read it directly: "
                    + UfsFactory.why(m.ufsUri()),
                null);
          }
          return UfsFactory.open(
              m.ufsUri(), ownCredentials(m.options()), LocalUnderFileSystem.DEFAULT_TEMP_MAX_AGE);
        });
  }

  private static Map<String, String> ownCredentials(Map<String, String> options) {
    Map<String, String> kept = new java.util.HashMap<>(options);
    kept.values().removeIf(Mount.REDACTED::equals);
    return kept;
  }

  @Override
  public void close() {
    open.values().forEach(UnderFileSystem::close);
    open.clear();
  }
}
