package io.strata.hadoop;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.client.WriteOptions;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;

/**
 * {@code strata://}: Strata as a Hadoop FileSystem, for Spark, Hive, Flink, Trino and MapReduce.
 * Every call goes through the Java client ({@link FileSystem}), reads included, so a co-located job
 * reads by short-circuit or domain socket. {@link #getFileBlockLocations} names the worker that
 * owns a file, so schedulers place tasks next to its cache.
 */
public class StrataHadoopFileSystem extends org.apache.hadoop.fs.FileSystem {
  public static final String SCHEME = "strata";

  /** Entries per call of {@link #listStatusIterator}, as HDFS's dfs.ls.limit. */
  static final int LIST_PAGE = 1000;

  /** What Hadoop shows as a file's block size: splits of this size (one per task). */
  private static final long BLOCK_SIZE = 64L << 20;

  private URI uri;
  private Path workingDir;
  private FileSystem client;

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public void initialize(URI name, Configuration conf) throws IOException {
    super.initialize(name, conf);
    setConf(conf);
    String masters = name.getAuthority();
    uri = URI.create(SCHEME + "://" + (masters == null || masters.isEmpty() ? "/" : masters));
    workingDir = new Path("/");
    try {
      client = FileSystem.create(StrataConfs.of(name, conf));
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public URI getUri() {
    return uri;
  }

  @Override
  public Path getWorkingDirectory() {
    return workingDir;
  }

  @Override
  public void setWorkingDirectory(Path dir) {
    workingDir = makeQualified(dir);
  }

  /** The Strata path of {@code p}, relative ones taken from the working folder. */
  String strataPath(Path p) {
    checkPath(p);
    String path = makeQualified(p).toUri().getPath();
    return path.isEmpty() ? "/" : path;
  }

  private FileStatus toHadoop(FileInfo f, Path path) {
    return new FileStatus(
        f.directory() ? 0 : f.length(),
        f.directory(),
        1,
        BLOCK_SIZE,
        f.mtimeMs(),
        0,
        new FsPermission((short) (f.mode() & 01777)),
        f.owner(),
        f.group(),
        makeQualified(path));
  }

  /** The entry at {@code p}; none where a parent is a file, as Hadoop sees such a path. */
  private Optional<FileInfo> find(Path p) throws IOException {
    try {
      return client.findStatus(strataPath(p));
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_A_DIRECTORY) {
        return Optional.empty();
      }
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    FileInfo info =
        find(f).orElseThrow(() -> new FileNotFoundException(strataPath(f) + " does not exist"));
    return toHadoop(info, f);
  }

  @Override
  public FSDataInputStream open(Path f, int bufferSize) throws IOException {
    try {
      FileInfo info = client.getStatus(strataPath(f));
      if (info.directory()) {
        throw new FileNotFoundException(strataPath(f) + " is a directory");
      }
      return new FSDataInputStream(new StrataInputStream(client.open(info), statistics));
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public FSDataOutputStream create(
      Path f,
      FsPermission permission,
      boolean overwrite,
      int bufferSize,
      short replication,
      long blockSize,
      Progressable progress)
      throws IOException {
    Optional<FileInfo> existing = find(f);
    if (existing.isPresent()) {
      if (existing.get().directory()) {
        throw new FileAlreadyExistsException(strataPath(f) + " is a directory");
      }
      if (!overwrite) {
        throw new FileAlreadyExistsException(strataPath(f) + " already exists");
      }
    }
    requireFolderOrNothing(f.getParent());
    int mode = permission == null ? 0 : permission.toShort() & 07777;
    try {
      return new FSDataOutputStream(
          client.create(strataPath(f), new WriteOptions(overwrite, null, mode)), statistics);
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  /** A create whose parent folder must exist already (Hadoop's builder and output committers). */
  @Override
  public FSDataOutputStream createNonRecursive(
      Path f,
      FsPermission permission,
      EnumSet<CreateFlag> flags,
      int bufferSize,
      short replication,
      long blockSize,
      Progressable progress)
      throws IOException {
    Path parent = f.getParent();
    if (parent != null && !parent.isRoot()) {
      FileInfo folder =
          find(parent)
              .orElseThrow(() -> new FileNotFoundException(strataPath(parent) + " does not exist"));
      if (!folder.directory()) {
        throw new ParentNotDirectoryException(strataPath(parent) + " is a file");
      }
    }
    return create(
        f,
        permission,
        flags.contains(CreateFlag.OVERWRITE),
        bufferSize,
        replication,
        blockSize,
        progress);
  }

  /** Hadoop's create and mkdirs make missing parents, but never under a file. */
  private void requireFolderOrNothing(Path folder) throws IOException {
    for (Path p = folder; p != null && !p.isRoot(); p = p.getParent()) {
      Optional<FileInfo> info = find(p);
      if (info.isPresent()) {
        if (!info.get().directory()) {
          throw new ParentNotDirectoryException(strataPath(p) + " is a file");
        }
        return;
      }
    }
  }

  @Override
  public FSDataOutputStream append(Path f, int bufferSize, Progressable progress)
      throws IOException {
    throw new UnsupportedOperationException(
        "strata:// files are written whole; append is not supported (" + strataPath(f) + ")");
  }

  /**
   * Hadoop's rename: into {@code dst} when it is a folder; false (nothing changed) when the source
   * is missing, the target exists as a file, or its parent does not exist.
   */
  @Override
  public boolean rename(Path src, Path dst) throws IOException {
    String from = strataPath(src);
    String to = strataPath(dst);
    Optional<FileInfo> source = find(src);
    if (source.isEmpty() || from.equals("/")) {
      return false;
    }
    if (from.equals(to)) {
      return !source.get().directory();
    }
    if (to.startsWith(from + "/")) {
      return false;
    }
    Optional<FileInfo> target = find(dst);
    if (target.isPresent()) {
      if (!target.get().directory()) {
        return false;
      }
      to = (to.equals("/") ? "" : to) + "/" + src.getName();
      if (client.exists(to)) {
        return false;
      }
    } else {
      Path parent = dst.getParent();
      Optional<FileInfo> folder = parent == null ? Optional.empty() : find(parent);
      if (parent != null && !parent.isRoot() && (folder.isEmpty() || !folder.get().directory())) {
        return false;
      }
    }
    try {
      client.rename(from, to);
      return true;
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND || e.code() == StatusCode.ALREADY_EXISTS) {
        return false;
      }
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public boolean delete(Path f, boolean recursive) throws IOException {
    String path = strataPath(f);
    Optional<FileInfo> info = find(f);
    if (info.isEmpty()) {
      return false;
    }
    if (path.equals("/")) {
      // As HDFS does: never, not even emptying it. Below / lie every mount's stores, and one
      // mistyped path of a job must not wipe them all.
      if (!recursive && !client.listStatus("/").isEmpty()) {
        throw new org.apache.hadoop.fs.PathIsNotEmptyDirectoryException("/");
      }
      return false;
    }
    try {
      client.delete(path, recursive);
      return true;
    } catch (StrataException e) {
      if (e.code() == StatusCode.NOT_FOUND) {
        return false;
      }
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    FileInfo info =
        find(f).orElseThrow(() -> new FileNotFoundException(strataPath(f) + " does not exist"));
    if (!info.directory()) {
      return new FileStatus[] {toHadoop(info, f)};
    }
    try {
      List<FileInfo> children = client.listStatus(strataPath(f));
      FileStatus[] out = new FileStatus[children.size()];
      for (int i = 0; i < out.length; i++) {
        out[i] = toHadoop(children.get(i), new Path(makeQualified(f), children.get(i).name()));
      }
      return out;
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  /**
   * A folder's entries {@link #LIST_PAGE} at a time, as HDFS pages them: each page is one call to
   * the folder's worker, so a huge folder is never held whole here.
   */
  @Override
  public RemoteIterator<FileStatus> listStatusIterator(Path f) throws IOException {
    FileInfo info =
        find(f).orElseThrow(() -> new FileNotFoundException(strataPath(f) + " does not exist"));
    Path folder = makeQualified(f);
    if (!info.directory()) {
      return new StatusIterator(List.of(info).iterator(), c -> toHadoop(c, folder));
    }
    try {
      return new StatusIterator(
          client.listStatusPaged(strataPath(f), LIST_PAGE),
          c -> toHadoop(c, new Path(folder, c.name())));
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public boolean mkdirs(Path f, FsPermission permission) throws IOException {
    Optional<FileInfo> info = find(f);
    if (info.isPresent()) {
      if (info.get().directory()) {
        return true;
      }
      throw new FileAlreadyExistsException(strataPath(f) + " is a file");
    }
    requireFolderOrNothing(f.getParent());
    try {
      client.mkdir(strataPath(f), true);
      if (permission != null) {
        client.setMode(
            strataPath(f),
            permission.applyUMask(FsPermission.getUMask(getConf())).toShort() & 01777);
      }
      return true;
    } catch (StrataException e) {
      if (e.code() == StatusCode.ALREADY_EXISTS && client.getStatus(strataPath(f)).directory()) {
        return true;
      }
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public void setPermission(Path p, FsPermission permission) throws IOException {
    try {
      client.setMode(strataPath(p), permission.toShort() & 01777);
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public void setOwner(Path p, String username, String groupname) throws IOException {
    try {
      client.setOwner(
          strataPath(p), username == null ? "" : username, groupname == null ? "" : groupname);
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  @Override
  public void setTimes(Path p, long mtime, long atime) throws IOException {
    if (mtime < 0) {
      getFileStatus(p); // a missing file fails even when nothing changes
      return;
    }
    try {
      client.setModificationTime(strataPath(p), mtime);
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
  }

  /**
   * One location for the whole range: the workers that serve the file, its owner first (what {@link
   * FileSystem#owners} says), by host name, so a scheduler runs the task beside its cache.
   */
  @Override
  public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len)
      throws IOException {
    if (file == null) {
      return null;
    }
    if (start < 0 || len < 0) {
      throw new IllegalArgumentException("negative start or length");
    }
    if (file.isDirectory() || start >= file.getLen()) {
      return new BlockLocation[0];
    }
    List<String> workers;
    try {
      workers = client.owners(strataPath(file.getPath()));
    } catch (StrataException e) {
      throw HadoopErrors.toHadoop(e);
    }
    return new BlockLocation[] {WorkerLocations.of(workers, file.getLen())};
  }

  @Override
  public long getDefaultBlockSize(Path f) {
    return BLOCK_SIZE;
  }

  @Override
  public void close() throws IOException {
    try {
      if (client != null) {
        client.close();
      }
    } finally {
      super.close();
    }
  }
}
