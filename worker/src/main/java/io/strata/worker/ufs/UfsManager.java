package io.strata.worker.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.LocalUnderFileSystem;
import io.strata.core.ufs.Mount;
import io.strata.core.ufs.MountTable;
import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UnderFileSystem;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's view of the mount table, and one open {@link UnderFileSystem} per mount. The table
 * comes from the master and is replaced whole when its version changes; a mount that goes (or
 * changes) has its under-storage closed and is handed to the unmount listener, which drops what the
 * worker cached of it. Thread-safe.
 */
public final class UfsManager implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(UfsManager.class);

  /** A Strata path resolved to the UFS that holds it. */
  public record Resolved(
      StrataPath path, UnderFileSystem ufs, StrataPath ufsPath, String ufsUri, Mount mount) {
    public void requireWritable() {
      if (mount.readOnly()) {
        throw new StrataException(StatusCode.PERMISSION_DENIED, path + " is on a read-only mount");
      }
    }
  }

  private final Map<Mount, UnderFileSystem> open = new ConcurrentHashMap<>();
  private final Function<Mount, UnderFileSystem> opener;
  private final List<Consumer<Mount>> unmountListeners = new ArrayList<>();
  private final List<Runnable> firstTableListeners = new ArrayList<>();
  private volatile MountTable table;

  public UfsManager() {
    this(m -> UfsFactory.open(m.ufsUri(), m.options(), LocalUnderFileSystem.DEFAULT_TEMP_MAX_AGE));
  }

  /**
   * @param opener opens a mount's under-storage
   */
  public UfsManager(Function<Mount, UnderFileSystem> opener) {
    this.opener = opener;
  }

  /** Told of each mount that is removed or replaced, after its under-storage is closed. */
  public synchronized void onUnmount(Consumer<Mount> listener) {
    unmountListeners.add(listener);
  }

  /** Runs {@code r} once the first mount table has arrived (at once if it has). */
  public synchronized void onFirstTable(Runnable r) {
    if (table != null) {
      r.run();
    } else {
      firstTableListeners.add(r);
    }
  }

  public void update(MountTable next) {
    List<Mount> gone = new ArrayList<>();
    List<Runnable> first = List.of();
    synchronized (this) {
      MountTable current = table;
      if (current != null && next.version() == current.version()) {
        return;
      }
      table = next;
      Set<Mount> kept = new HashSet<>(next.mounts());
      if (current != null) {
        current.mounts().stream().filter(m -> !kept.contains(m)).forEach(gone::add);
      } else {
        first = List.copyOf(firstTableListeners);
        firstTableListeners.clear();
      }
    }
    for (Mount m : gone) {
      UnderFileSystem ufs = open.remove(m);
      if (ufs != null) {
        ufs.close();
      }
      LOG.info("unmounted {}", m);
      List<Consumer<Mount>> listeners;
      synchronized (this) {
        listeners = List.copyOf(unmountListeners);
      }
      for (Consumer<Mount> l : listeners) {
        try {
          l.accept(m);
        } catch (RuntimeException e) {
          LOG.warn("after unmounting {}: {}", m, e.toString());
        }
      }
    }
    first.forEach(Runnable::run);
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
    return new Resolved(path, ufsOf(r.mount()), r.ufsPath(), r.ufsUri(), r.mount());
  }

  /** Where {@code path} lies in its under-storage; empty before the first mount table. */
  public Optional<String> ufsUriOf(StrataPath path) {
    MountTable t = table;
    return t == null ? Optional.empty() : Optional.of(t.resolve(path).ufsUri());
  }

  /**
   * Where the tree at {@code folder} lies in the under-storages: its own place, and the roots of
   * the mounts below it.
   */
  public List<String> ufsUrisUnder(StrataPath folder) {
    MountTable t = table;
    if (t == null) {
      throw new StrataException(StatusCode.UNAVAILABLE, "the worker has no mount table yet");
    }
    List<String> uris = new ArrayList<>();
    uris.add(t.resolve(folder).ufsUri());
    for (Mount m : t.mounts()) {
      if (!m.path().equals(folder) && m.path().isUnder(folder)) {
        uris.add(m.ufsUri());
      }
    }
    return uris;
  }

  /** The mounts right below {@code folder} (none before the first mount table). */
  public List<StrataPath> mountPointsIn(StrataPath folder) {
    MountTable t = table;
    if (t == null) {
      return List.of();
    }
    List<StrataPath> points = new ArrayList<>();
    for (Mount m : t.mounts()) {
      if (!m.path().isRoot() && m.path().parent().equals(folder)) {
        points.add(m.path());
      }
    }
    return points;
  }

  /** The mount at {@code path} with the under-storage {@code ufsUri}, if the table has it. */
  public Optional<Mount> mountAt(StrataPath path, String ufsUri) {
    MountTable t = table;
    return t == null
        ? Optional.empty()
        : t.mounts().stream()
            .filter(m -> m.path().equals(path) && m.ufsUri().equals(ufsUri))
            .findFirst();
  }

  /** The open under-storage of {@code mount} (opened at first use; closed when it goes). */
  public UnderFileSystem ufsOf(Mount mount) {
    return open.computeIfAbsent(mount, opener);
  }

  @Override
  public void close() {
    open.values().forEach(UnderFileSystem::close);
    open.clear();
  }
}
