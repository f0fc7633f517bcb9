package io.strata.master.journal;

import io.strata.core.proto.journal.ClusterStateSnapshot;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;

/**
 * Writes and reads snapshot files: {@code snapshot.<term>_<index>} holding the state as one
 * protobuf message, with an MD5 file beside it. A snapshot is written to a temporary name and
 * renamed, so a crash never leaves a half-written snapshot under a real name; a snapshot whose MD5
 * does not match fails the load rather than silently restoring damaged state.
 */
final class SnapshotFiles {
  private SnapshotFiles() {}

  static SingleFileSnapshotInfo write(
      SimpleStateMachineStorage storage, TermIndex last, ClusterStateSnapshot snapshot)
      throws IOException {
    File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
    Path temp = file.toPath().resolveSibling(file.getName() + ".tmp");
    try (OutputStream out = Files.newOutputStream(temp)) {
      snapshot.writeTo(out);
    }
    Files.move(
        temp, file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
    return new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last);
  }

  static ClusterStateSnapshot read(SingleFileSnapshotInfo info) throws IOException {
    Path path = info.getFile().getPath();
    MD5Hash expected = info.getFile().getFileDigest();
    if (expected != null) {
      MD5FileUtil.verifySavedMD5(path.toFile(), expected);
    }
    try (InputStream in = Files.newInputStream(path)) {
      return ClusterStateSnapshot.parseFrom(in);
    }
  }
}
