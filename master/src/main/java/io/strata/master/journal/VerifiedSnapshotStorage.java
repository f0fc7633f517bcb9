package io.strata.master.journal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ratis' snapshot folder, where the latest snapshot is the newest one that passes its MD5 check. At
 * start, a damaged newest snapshot is set aside ({@code <name>.corrupt}, kept for a post-mortem)
 * and the older one the folder keeps is used instead, the log being kept back far enough to replay
 * from it (see {@code RaftSettings}); a snapshot whose writing was cut short is removed.
 *
 * <p>Ratis also asks for the latest snapshot while the master runs: after installing one from the
 * leader, and from a leader's log appenders whenever none is known yet. Those calls only skip what
 * does not verify and never move or remove files, which another thread may be writing: a leader
 * once set aside the snapshot it was finishing, then had nothing to send a joining master.
 */
final class VerifiedSnapshotStorage extends SimpleStateMachineStorage {
  private static final Logger LOG = LoggerFactory.getLogger(VerifiedSnapshotStorage.class);

  private boolean started;

  @Override
  public synchronized SingleFileSnapshotInfo loadLatestSnapshot() {
    File folder = folder();
    if (folder == null || !folder.isDirectory()) {
      return null;
    }
    boolean atStart = !started;
    started = true;
    if (atStart) {
      removeHalfWritten(folder.toPath());
    }
    for (SingleFileSnapshotInfo candidate : newestFirst(folder.toPath())) {
      try {
        SnapshotFiles.verify(candidate);
        return updateLatestSnapshot(candidate);
      } catch (IOException e) {
        if (atStart) {
          LOG.warn(
              "snapshot {} is damaged ({}); setting it aside and trying the one before it",
              candidate.getFile().getPath(),
              e.toString());
          setAside(candidate.getFile().getPath());
        } else {
          LOG.warn("skipping snapshot {}: {}", candidate.getFile().getPath(), e.toString());
        }
      }
    }
    return null;
  }

  /** The folder Ratis gave this storage; null before it is initialised. */
  private File folder() {
    try {
      return getSnapshotFile(0, 0).getParentFile();
    } catch (RuntimeException notYet) {
      return null;
    }
  }

  private static List<SingleFileSnapshotInfo> newestFirst(Path folder) {
    List<SingleFileSnapshotInfo> found = new ArrayList<>();
    try (Stream<Path> files = Files.list(folder)) {
      for (Path p : files.toList()) {
        if (!SNAPSHOT_REGEX.matcher(p.getFileName().toString()).matches()) {
          continue;
        }
        TermIndex last = getTermIndexFromSnapshotFile(p.toFile());
        MD5Hash md5 = MD5FileUtil.readStoredMd5ForFile(p.toFile());
        found.add(new SingleFileSnapshotInfo(new FileInfo(p, md5), last));
      }
    } catch (IOException e) {
      LOG.warn("cannot list the snapshots in {}: {}", folder, e.toString());
    }
    found.sort(Comparator.comparingLong(SingleFileSnapshotInfo::getIndex).reversed());
    return found;
  }

  /**
   * Temporary files of snapshots, or of their MD5s, that a master was killed while writing (see
   * {@link SnapshotFiles}; Ratis writes an MD5 to a temporary name too).
   */
  private static void removeHalfWritten(Path folder) {
    try (Stream<Path> files = Files.list(folder)) {
      for (Path p : files.toList()) {
        if (isHalfWritten(p.getFileName().toString())) {
          LOG.info("removing {}, written by a master stopped before it finished", p);
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot clear half-written snapshots in {}: {}", folder, e.toString());
    }
  }

  private static boolean isHalfWritten(String name) {
    if (!name.endsWith(SnapshotFiles.TEMPORARY)) {
      return false;
    }
    String written = name.substring(0, name.length() - SnapshotFiles.TEMPORARY.length());
    if (written.endsWith(MD5FileUtil.MD5_SUFFIX)) {
      written = written.substring(0, written.length() - MD5FileUtil.MD5_SUFFIX.length());
    }
    return SNAPSHOT_REGEX.matcher(written).matches();
  }

  private static void setAside(Path snapshot) {
    try {
      Files.move(snapshot, snapshot.resolveSibling(snapshot.getFileName() + ".corrupt"));
    } catch (IOException e) {
      LOG.warn("cannot set {} aside: {}", snapshot, e.toString());
    }
  }
}
