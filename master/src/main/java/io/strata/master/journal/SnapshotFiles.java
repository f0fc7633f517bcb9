package io.strata.master.journal;

import io.strata.core.proto.journal.ClusterStateSnapshot;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;

/**
 * Writes and reads snapshot files: {@code snapshot.<term>_<index>} holding the state as one
 * protobuf message, with an MD5 file beside it. A snapshot is written to a temporary name, forced
 * to the device, its MD5 saved, and renamed (the folder forced too) before Ratis purges the log it
 * replaces, so neither a crash nor a power loss leaves a half-written snapshot under a real name; a
 * snapshot whose MD5 does not match is not restored ({@link VerifiedSnapshotStorage} falls back to
 * the one before it).
 */
final class SnapshotFiles {
  /** What a snapshot's name ends with while it is being written. */
  static final String TEMPORARY = ".tmp";

  private SnapshotFiles() {}

  static SingleFileSnapshotInfo write(
      SimpleStateMachineStorage storage, TermIndex last, ClusterStateSnapshot snapshot)
      throws IOException {
    File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
    Path temp = file.toPath().resolveSibling(file.getName() + TEMPORARY);
    try (FileChannel out =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      snapshot.writeTo(Channels.newOutputStream(out));
      out.force(true);
    }
    // The MD5 first: a snapshot under its real name always has its MD5 beside it, so nothing that
    // scans the folder meanwhile (Ratis' log appenders do) takes a snapshot being written for a
    // damaged one.
    MD5Hash md5 = MD5FileUtil.computeMd5ForFile(temp.toFile());
    MD5FileUtil.saveMD5File(file, md5);
    force(MD5FileUtil.getDigestFileForFile(file).toPath());
    Files.move(
        temp, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    force(file.toPath().getParent());
    return new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last);
  }

  /**
   * Throws when the snapshot's bytes do not match the MD5 saved beside it. (Ratis' verifySavedMD5
   * compares the saved MD5 with a given one, not with the file's bytes.)
   */
  static void verify(SingleFileSnapshotInfo info) throws IOException {
    MD5Hash saved = info.getFile().getFileDigest();
    if (saved == null) {
      throw new IOException("no MD5 beside " + info.getFile().getPath());
    }
    MD5Hash actual = MD5FileUtil.computeMd5ForFile(info.getFile().getPath().toFile());
    if (!actual.equals(saved)) {
      throw new IOException("its bytes have MD5 " + actual + ", not the saved " + saved);
    }
  }

  /** Forces a file, or a folder's entries, to the device. */
  private static void force(Path path) throws IOException {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  static ClusterStateSnapshot read(SingleFileSnapshotInfo info) throws IOException {
    Path path = info.getFile().getPath();
    if (info.getFile().getFileDigest() != null) {
      verify(info);
    }
    try (InputStream in = Files.newInputStream(path)) {
      return ClusterStateSnapshot.parseFrom(in);
    }
  }
}
