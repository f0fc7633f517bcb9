package io.strata.worker.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UnderFileSystem;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The worker's view of the mount table, and one open {@link UnderFileSystem} per UFS root. The
 * table comes from the master and is replaced whole when its version changes. Thread-safe.
 */
public final class UfsManager implements AutoCloseable {
  /** A Strata path resolved to the UFS that holds it. */
  public record Resolved(
      StrataPath path, UnderFileSystem ufs, StrataPath ufsPath, String ufsUri, Mount mount) {
    public void requireWritable() {
      if (mount.readOnly()) {
        throw new StrataException(StatusCode.PERMISSION_DENIED, path + " is on a read-only mount");
      }
    }
  }

  private final Map<String, UnderFileSystem> open = new ConcurrentHashMap<>();
  private final Function<String, UnderFileSystem> opener;
  private volatile MountTable table;

  public UfsManager() {
    this(UfsFactory::open);
  }

  /**
   * @param opener opens the under-storage of a mount's URI
   */
  public UfsManager(Function<String, UnderFileSystem> opener) {
    this.opener = opener;
  }

  public void update(MountTable next) {
    MountTable current = table;
    if (current == null || next.version() != current.version()) {
      table = next;
    }
  }

  public long version() {
    MountTable t = table;
    return t == null ? -1 : t.version();
  }

  public boolean hasTable() {
    return table != null;
  }

  public Resolved resolve(StrataPath path) {
    MountTable t = table;
    if (t == null) {
      throw new StrataException(StatusCode.UNAVAILABLE, "the worker has no mount table yet");
    }
    MountTable.Resolution r = t.resolve(path);
    UnderFileSystem ufs = open.computeIfAbsent(r.mount().ufsUri(), opener);
    return new Resolved(path, ufs, r.ufsPath(), r.ufsUri(), r.mount());
  }

  @Override
  public void close() {
    open.values().forEach(UnderFileSystem::close);
    open.clear();
  }
}
