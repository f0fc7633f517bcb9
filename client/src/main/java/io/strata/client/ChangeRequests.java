package io.strata.client;

import com.google.protobuf.ByteString;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.CreateNodeRequest;
import io.strata.core.proto.FileType;
import io.strata.core.proto.MkdirRequest;
import io.strata.core.proto.SetAttributesRequest;
import io.strata.core.proto.SetXattrRequest;
import io.strata.core.proto.TimeChange;

/**
 * The requests of namespace changes, from the {@link FileSystem} API's arguments: paths made
 * canonical, modes cut to their permission bits, and what the caller left as it is ({@code -1} ids,
 * an unset time) left out, so that the worker keeps or defaults it.
 */
final class ChangeRequests {
  private ChangeRequests() {}

  static MkdirRequest mkdir(String path, boolean parents, NewEntry entry) {
    MkdirRequest.Builder req =
        MkdirRequest.newBuilder().setPath(canonical(path)).setParents(parents);
    if (entry.mode() >= 0) {
      req.setMode(entry.mode() & 07777);
    }
    if (entry.uid() >= 0) {
      req.setUid((int) entry.uid());
    }
    if (entry.gid() >= 0) {
      req.setGid((int) entry.gid());
    }
    return req.build();
  }

  static CreateNodeRequest symlink(String path, String target, NewEntry entry) {
    return entry
        .applyTo(
            CreateNodeRequest.newBuilder()
                .setPath(canonical(path))
                .setType(FileType.SYMLINK)
                .setSymlinkTarget(target))
        .build();
  }

  static CreateNodeRequest hardLink(String existing, String path) {
    return CreateNodeRequest.newBuilder()
        .setPath(canonical(path))
        .setType(FileType.REGULAR)
        .setLinkTo(canonical(existing))
        .build();
  }

  static CreateNodeRequest special(String path, FileType type, long rdev, NewEntry entry) {
    return entry
        .applyTo(
            CreateNodeRequest.newBuilder().setPath(canonical(path)).setType(type).setRdev(rdev))
        .setMode(Math.max(entry.mode(), 0) & 07777)
        .build();
  }

  static SetAttributesRequest mode(String path, int mode) {
    return attributes(path).setMode(mode & 07777).build();
  }

  static SetAttributesRequest ownerIds(String path, long uid, long gid) {
    SetAttributesRequest.Builder req = attributes(path);
    if (uid >= 0) {
      req.setUid((int) uid);
    }
    if (gid >= 0) {
      req.setGid((int) gid);
    }
    return req.build();
  }

  static SetAttributesRequest owner(String path, String owner, String group) {
    return attributes(path).setOwner(owner).setGroup(group).build();
  }

  static SetAttributesRequest times(String path, TimeChange atime, TimeChange mtime) {
    SetAttributesRequest.Builder req = attributes(path);
    if (atime.getValueCase() != TimeChange.ValueCase.VALUE_NOT_SET) {
      req.setAtime(atime);
    }
    if (mtime.getValueCase() != TimeChange.ValueCase.VALUE_NOT_SET) {
      req.setMtime(mtime);
    }
    return req.build();
  }

  static SetAttributesRequest modificationTime(String path, long epochMs) {
    return attributes(path).setMtimeMs(epochMs).build();
  }

  /** Sets {@code name} to {@code value}; a null value removes it. */
  static SetXattrRequest xattr(String path, String name, byte[] value) {
    SetXattrRequest.Builder req =
        SetXattrRequest.newBuilder().setPath(canonical(path)).setName(name);
    if (value != null) {
      req.setValue(ByteString.copyFrom(value));
    }
    return req.build();
  }

  private static SetAttributesRequest.Builder attributes(String path) {
    return SetAttributesRequest.newBuilder().setPath(canonical(path));
  }

  private static String canonical(String path) {
    return StrataPath.of(path).toString();
  }
}
