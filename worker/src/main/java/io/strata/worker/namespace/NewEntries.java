package io.strata.worker.namespace;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.WriteHeader;
import io.strata.core.security.Principal;
import io.strata.worker.auth.OsAccounts;
import io.strata.worker.auth.Permissions;
import io.strata.worker.ufs.UfsManager;

/**
 * What a caller may make and whose it is: the ids a new entry gets (those a superuser asks for,
 * else a checked user's own where the store keeps numeric owners, as HDFS makes a user's entries
 * theirs), and the checks of a write's header (folder, overwrite, mode bits, owner).
 */
final class NewEntries {
  private static final OsAccounts.Ids NO_OWNER = new OsAccounts.Ids(-1, -1);

  private final Permissions access;
  private final UfsManager ufs;
  private final boolean givesOwners;

  /**
   * @param givesOwners whether this worker may give an entry another account's ids (it runs as
   *     root): a worker that may not makes a user's entries its own, as it could not chown them
   */
  NewEntries(Permissions access, UfsManager ufs, boolean givesOwners) {
    this.access = access;
    this.ufs = ufs;
    this.givesOwners = givesOwners;
  }

  /**
   * The ids an entry {@code caller} is about to make at {@code r} gets: those the request gives
   * (checked by then to be a superuser's), else the caller's own; -1 for none.
   */
  OsAccounts.Ids owner(
      UfsManager.Resolved r, Principal caller, boolean hasUid, long uid, boolean hasGid, long gid) {
    if (hasUid || hasGid) {
      return new OsAccounts.Ids(hasUid ? uid : -1, hasGid ? gid : -1);
    }
    return creatorOwner(r, caller);
  }

  /**
   * The caller's own ids, where the store at {@code r} keeps numeric owners and this worker may
   * give them; -1 for none.
   */
  private OsAccounts.Ids creatorOwner(UfsManager.Resolved r, Principal caller) {
    return givesOwners && r.ufs().keepsNumericOwners()
        ? access.creatorIds(caller).orElse(NO_OWNER)
        : NO_OWNER;
  }

  /** Gives a new entry its owner's ids, where the under-storage keeps them. */
  static void give(UfsManager.Resolved r, OsAccounts.Ids owner) {
    if (owner.uid() >= 0 || owner.gid() >= 0) {
      r.ufs().setOwnerIds(r.ufsPath(), owner.uid(), owner.gid());
    }
  }

  /**
   * A checked caller's write header, refused (with its reason) or given the new file's owner: wx on
   * the folder, w on a file it overwrites, no set-id bits, ids only from a superuser.
   */
  WriteHeader checkWrite(Principal caller, WriteHeader h) {
    StrataPath path = StrataPath.of(h.getPath());
    access.checkParent(caller, path, "write");
    if (h.getOverwrite() || h.getInPlace()) {
      access.checkOverwrite(caller, path, "write");
    }
    access.checkModeBits(caller, path, "write", h.getMode(), false);
    if (h.hasUid() || h.hasGid()) {
      access.checkSuperuser(caller, "give an owner to", path);
      return h;
    }
    OsAccounts.Ids owner = creatorOwner(ufs.resolve(path), caller);
    return owner.uid() < 0
        ? h
        : h.toBuilder().setUid((int) owner.uid()).setGid((int) owner.gid()).build();
  }
}
