package io.strata.ufs.hdfs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsStatus;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.HexFormat;
import java.util.Optional;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileChecksum;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.InvalidPathHandleException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsFileStatus;
import org.apache.hadoop.hdfs.protocol.HdfsPathHandle;

/**
 * What version of a file the store holds, and how to read exactly that version: a fingerprint of
 * inode id, length and modification time (and the file checksum when asked), and one stream per
 * version shared by the readers of its pages ({@link OpenStreams}), on HDFS opened by inode and
 * modification time so that it reads that version or fails.
 */
final class HdfsVersions implements AutoCloseable {
  private static final int BUFFER = 64 << 10;

  private final FileSystem fs;
  private final boolean checksum;
  private final String mount;
  private final OpenStreams streams = new OpenStreams();
  private final ParkedStreams parked = new ParkedStreams(ParkedStreams.IDLE);

  HdfsVersions(FileSystem fs, boolean checksum, String mount) {
    this.fs = fs;
    this.checksum = checksum;
    this.mount = mount;
  }

  UfsStatus status(String name, FileStatus st) throws IOException {
    return new UfsStatus(
        name,
        st.isDirectory(),
        st.isDirectory() ? 0 : st.getLen(),
        st.getModificationTime(),
        st.getPermission().toShort() & 01777,
        st.getOwner(),
        st.getGroup(),
        st.isDirectory() ? "" : fingerprint(st));
  }

  private String fingerprint(FileStatus st) throws IOException {
    long fileId = st instanceof HdfsFileStatus h ? h.getFileId() : 0;
    String plain = Fingerprint.of(fileId, st.getLen(), st.getModificationTime());
    if (!checksum) {
      return plain;
    }
    FileChecksum sum = fs.getFileChecksum(st.getPath());
    return sum == null ? plain : plain + ":" + HexFormat.of().formatHex(sum.getBytes());
  }

  /** A reader of the version {@code fingerprint} of {@code file}. */
  HdfsReader open(StrataPath path, Path file, String fingerprint) throws IOException {
    Fingerprint version = Fingerprint.parse(path, fingerprint);
    String key = file + "\n" + fingerprint;
    OpenStreams.Shared stream = streams.hold(key, () -> openStream(file, version));
    return new HdfsReader(
        stream,
        new HdfsReader.Runs() {
          @Override
          public FSDataInputStream resume(long position) throws IOException {
            FSDataInputStream in = parked.take(key, position);
            if (in != null) {
              return in;
            }
            FSDataInputStream opened = openStream(file, version);
            try {
              opened.seek(position);
            } catch (IOException | RuntimeException e) {
              ParkedStreams.closeQuietly(opened);
              throw e;
            }
            return opened;
          }

          @Override
          public void park(long position, FSDataInputStream in) {
            parked.park(key, position, in);
          }
        },
        version.length(),
        () -> fingerprint(fs.getFileStatus(file)));
  }

  private FSDataInputStream openStream(Path file, Fingerprint version) throws IOException {
    if (fs instanceof DistributedFileSystem dfs && version.fileId() > 0) {
      try {
        return dfs.open(
            new HdfsPathHandle(
                "/.reserved/.inodes/" + version.fileId(),
                Optional.of(version.fileId()),
                Optional.of(version.mtime())),
            BUFFER);
      } catch (InvalidPathHandleException | FileNotFoundException e) {
        throw new StrataException(
            StatusCode.FAILED_PRECONDITION,
            file.toUri().getPath() + " changed in " + mount + " since it was looked up");
      }
    }
    return fs.open(file, BUFFER);
  }

  @Override
  public void close() {
    streams.close();
    parked.close();
  }
}
