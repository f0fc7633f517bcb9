package io.strata.master.load;

import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.master.journal.MasterJournal;

/**
 * What a user may do on a path, for what the master does on their behalf (a load walks a folder, a
 * pin or TTL acts on others' cached pages): asked of the path's worker as that user, so that the
 * under-storage's bits decide as they do for the user's own calls. The cluster's processes and
 * admins are not checked, nor is anyone in NONE mode.
 */
public final class PathAccess {
  public static final int READ = 4;
  public static final int WRITE = 2;
  public static final int SEARCH = 1;

  private final WorkerStubs stubs;
  private final Rings rings;

  public PathAccess(MasterJournal journal, WorkerStubs stubs, int virtualNodes) {
    this.stubs = stubs;
    this.rings = new Rings(journal, virtualNodes);
  }

  /**
   * Returns if the caller of the call being served may do {@code access} on {@code path}; else
   * PERMISSION_DENIED, naming {@code operation}.
   */
  public void require(String path, int access, String operation) {
    Principal caller = Principal.current();
    if (caller != null && caller.role() == Role.USER) {
      stubs.checkAccess(rings.owner(path), path, caller, access, operation);
    }
  }
}
