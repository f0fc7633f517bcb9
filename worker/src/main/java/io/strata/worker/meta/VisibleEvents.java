package io.strata.worker.meta;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.MetadataEvent;
import io.strata.core.security.Principal;
import io.strata.core.status.StrataException;
import io.strata.worker.auth.Permissions;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What a watcher may hear of an event: the paths it could stat itself. A path below a folder the
 * watcher may not search is heard as that folder, dropped recursively: the watcher forgets at least
 * what the event names, and learns no name it could not list (issue 78: every user heard every path
 * the worker dropped, `/home/alice/offer-letter.pdf` included).
 *
 * <p>Only statuses the worker holds in memory decide (no store, no UFS: events are published from
 * any thread, the data plane's included); an ancestor it does not hold counts as not searchable, so
 * the event is lifted above it. The cluster's processes and unchecked callers hear events as they
 * are.
 */
public final class VisibleEvents {
  private static final String OP = "watch";

  private final Permissions access;

  /**
   * @param metadata whose in-memory statuses decide
   * @param enabled whether permissions are checked
   * @param superuserGroup members hear everything ("" for none)
   */
  public VisibleEvents(
      MetadataService metadata, BooleanSupplier enabled, Supplier<String> superuserGroup) {
    this.access =
        Permissions.of(
            p ->
                metadata
                    .statusInMemory(p, -1)
                    .orElseThrow(() -> StrataException.unavailable(p + " is not in memory", null)),
            enabled,
            superuserGroup);
  }

  /** {@code e} as {@code caller} may hear it. */
  MetadataEvent forCaller(Principal caller, MetadataEvent e) {
    if (e.getPathsCount() == 0 || !access.checked(caller)) {
      return e;
    }
    Set<String> heard = new LinkedHashSet<>();
    boolean lifted = false;
    for (String p : e.getPathsList()) {
      StrataPath path = StrataPath.of(p);
      StrataPath visible = nearestVisible(caller, path);
      lifted |= !visible.equals(path);
      heard.add(visible.toString());
    }
    if (!lifted) {
      return e;
    }
    return MetadataEvent.newBuilder().addAllPaths(heard).setRecursive(true).build();
  }

  /** {@code path}, or its nearest folder {@code caller} may search every folder above. */
  private StrataPath nearestVisible(Principal caller, StrataPath path) {
    StrataPath at = path;
    while (!at.isRoot()) {
      try {
        access.checkPath(caller, at, 0, OP);
        return at;
      } catch (StrataException denied) {
        at = at.parent();
      }
    }
    return at;
  }
}
