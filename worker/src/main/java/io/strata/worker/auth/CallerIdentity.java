package io.strata.worker.auth;

import io.strata.core.security.ActingFor;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.ufs.ActingAs;
import io.strata.core.ufs.ActingUnderFileSystem;
import java.util.function.Supplier;

/**
 * Who the call being served acts as on a local store ({@link ActingUnderFileSystem}): a user whose
 * permissions are checked acts as their account on this host, or as nobody where the host has none
 * (the owner and group classes are then never theirs, as {@link Permissions} sees it too); a
 * cluster process serving a local account's request ({@link ActingFor}: a FUSE mount) acts as that
 * account; every other caller (the cluster's processes, admins, superusers, a call outside any
 * request) acts as the worker.
 */
public final class CallerIdentity implements Supplier<ActingAs.Identity> {
  private final Permissions permissions;

  public CallerIdentity(Permissions permissions) {
    this.permissions = permissions;
  }

  @Override
  public ActingAs.Identity get() {
    Principal caller = Principal.current();
    ActingFor actingFor = ActingFor.current();
    if (actingFor != null && caller != null && caller.role() == Role.SERVICE) {
      return new ActingAs.Identity(actingFor.uid(), actingFor.gid(), actingFor.groups());
    }
    if (!permissions.checked(caller)) {
      return null;
    }
    return permissions
        .creatorIds(caller)
        .map(
            ids ->
                new ActingAs.Identity(
                    (int) ids.uid(),
                    (int) ids.gid(),
                    ids.groups().stream().map(Long::intValue).toList()))
        .orElse(ActingAs.Identity.NOBODY);
  }
}
