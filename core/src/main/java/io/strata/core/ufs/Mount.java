package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.MountPoint;

/** An under-storage attached at a Strata path. */
public record Mount(StrataPath path, String ufsUri, boolean readOnly) {
  public static Mount fromProto(MountPoint p) {
    return new Mount(StrataPath.of(p.getPath()), p.getUfsUri(), p.getReadOnly());
  }

  public MountPoint toProto() {
    return MountPoint.newBuilder()
        .setPath(path.toString())
        .setUfsUri(ufsUri)
        .setReadOnly(readOnly)
        .build();
  }
}
