package io.strata.core.ufs;

import io.strata.core.proto.FileType;
import io.strata.core.proto.PosixAttributes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A local entry's status as lstat(2) gives it: a symbolic link is described, never followed. */
final class LocalAttributes {
  /** lstat's fields: "unix:*" would also name the owner and group, a look-up each (OwnerNames). */
  private static final String ATTRIBUTES =
      "unix:mode,size,uid,gid,nlink,ino,rdev,lastAccessTime,lastModifiedTime,ctime,fileKey";

  private LocalAttributes() {}

  static UfsStatus status(String name, Path p) throws IOException {
    Map<String, Object> a = Files.readAttributes(p, ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
    int mode = (Integer) a.get("mode");
    FileType type = PosixModes.type(mode);
    boolean directory = type == FileType.DIRECTORY;
    long size = (Long) a.get("size");
    long mtimeNs = nanos(a.get("lastModifiedTime"));
    PosixAttributes.Builder posix =
        PosixAttributes.newBuilder()
            .setType(type)
            .setMode(mode & 07777)
            .setUid((Integer) a.get("uid"))
            .setGid((Integer) a.get("gid"))
            .setNlink((Integer) a.get("nlink"))
            .setInode((Long) a.get("ino"))
            .setRdev((Long) a.get("rdev"))
            .setAtimeNs(nanos(a.get("lastAccessTime")))
            .setMtimeNs(mtimeNs)
            .setCtimeNs(nanos(a.get("ctime")));
    if (type == FileType.SYMLINK) {
      posix.setSymlinkTarget(Files.readSymbolicLink(p).toString());
    }
    return new UfsStatus(
        name,
        directory,
        directory ? 0 : size,
        mtimeNs / 1_000_000,
        mode & 0777,
        OwnerNames.user((Integer) a.get("uid"), p),
        OwnerNames.group((Integer) a.get("gid"), p),
        fingerprint(size, mtimeNs, a.get("fileKey")),
        posix.build());
  }

  /** Length, mtime in ns and the file key (device and inode): any rewrite changes one of them. */
  static String fingerprint(long size, long mtimeNs, Object fileKey) {
    return size + ":" + mtimeNs + ":" + fileKey;
  }

  private static long nanos(Object time) {
    return ((FileTime) time).to(TimeUnit.NANOSECONDS);
  }
}
