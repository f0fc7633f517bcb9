package io.strata.ufs.hdfs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.ufs.CreateOptions;
import io.strata.core.ufs.UfsOutputStream;
import io.strata.core.ufs.UfsReader;
import io.strata.core.ufs.UfsStatus;
import io.strata.core.ufs.UnderFileSystem;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.DistributedFileSystem;

/**
 * HDFS, or any other Hadoop-compatible store whose client is on the class path, as an
 * under-storage, through the shaded Hadoop client. Files are versions ({@link HdfsVersions}): pages
 * are positioned reads of one open stream per version, opened so that it reads that version or
 * fails. New files are written under a hidden temporary name and renamed into place on close
 * (atomic on HDFS).
 */
public final class HdfsUnderFileSystem implements UnderFileSystem {
  private static final int BUFFER = 64 << 10;

  private final String uri;
  private final URI root;
  private final String rootPath;
  private final FileSystem fs;
  private final HdfsVersions versions;

  public HdfsUnderFileSystem(String uri, HdfsSettings settings) {
    this.uri = normalize(uri);
    this.root = URI.create(this.uri);
    this.rootPath = root.getPath();
    try {
      this.fs =
          settings.user() == null
              ? FileSystem.newInstance(root, settings.hadoop())
              : FileSystem.newInstance(root, settings.hadoop(), settings.user());
    } catch (IOException e) {
      throw HdfsErrors.toStrata(e, uri, uri);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StrataException(StatusCode.CANCELLED, "opening " + uri + ": interrupted");
    } catch (RuntimeException e) {
      throw StrataException.invalidArgument("cannot open " + uri + ": " + HdfsErrors.firstLine(e));
    }
    this.versions = new HdfsVersions(fs, settings.checksum(), this.uri);
  }

  /** The canonical form: {@code scheme://authority/path}, no trailing slash (the root: none). */
  public static String normalize(String uri) {
    try {
      URI u = new URI(uri).normalize();
      if (u.getScheme() == null || u.getPath() == null) {
        throw new URISyntaxException(uri, "needs a scheme and a path");
      }
      String path = u.getPath().replaceAll("/+$", "");
      return new URI(u.getScheme(), u.getAuthority(), path.isEmpty() ? null : path, null, null)
          .toString();
    } catch (URISyntaxException e) {
      throw StrataException.invalidArgument(
          "malformed under-storage URI '" + uri + "': " + e.getMessage());
    }
  }

  @Override
  public String uri() {
    return uri;
  }

  Path hadoopPath(StrataPath path) {
    String p = path.isRoot() ? rootPath : rootPath.replaceAll("/$", "") + path;
    return new Path(root.getScheme(), root.getAuthority(), p.isEmpty() ? "/" : p);
  }

  private StrataException error(IOException e, StrataPath path) {
    return HdfsErrors.toStrata(e, path.toString(), uri);
  }

  @Override
  public UfsStatus getStatus(StrataPath path) {
    try {
      return versions.status(path.name(), fs.getFileStatus(hadoopPath(path)));
    } catch (IOException e) {
      throw error(e, path);
    } catch (IllegalArgumentException e) {
      throw StrataException.invalidArgument(path + ": " + HdfsErrors.firstLine(e));
    }
  }

  @Override
  public Stream<UfsStatus> list(StrataPath path) {
    Path dir = hadoopPath(path);
    try {
      return new Listing(fs, dir, path, e -> error(e, path))
          .stream()
              .filter(st -> !HdfsOutputStream.isTemp(st.getPath().getName()))
              .map(
                  st -> {
                    try {
                      return versions.status(st.getPath().getName(), st);
                    } catch (IOException e) {
                      throw error(e, path.child(st.getPath().getName()));
                    }
                  });
    } catch (IOException e) {
      throw error(e, path);
    }
  }

  @Override
  public UfsReader openReader(StrataPath path) {
    UfsStatus st = getStatus(path);
    if (st.directory()) {
      throw new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory");
    }
    return openVersion(path, st.fingerprint());
  }

  /** A run continues the DataNode stream of the run before ({@link ParkedStreams}). */
  @Override
  public boolean continuesRuns() {
    return true;
  }

  @Override
  public UfsReader openVersion(StrataPath path, String fingerprint) {
    try {
      return versions.open(path, hadoopPath(path), fingerprint);
    } catch (IOException e) {
      throw error(e, path);
    }
  }

  @Override
  public UfsOutputStream create(StrataPath path, CreateOptions options) {
    if (path.isRoot()) {
      throw new StrataException(StatusCode.IS_A_DIRECTORY, "/ is a directory");
    }
    Path target = hadoopPath(path);
    try {
      if (fs.exists(target)) {
        if (fs.getFileStatus(target).isDirectory()) {
          throw new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory");
        }
        if (!options.overwrite()) {
          throw StrataException.alreadyExists(path + " already exists");
        }
      }
      if (!options.createParents()) {
        requireFolder(path.parent());
      }
    } catch (IOException e) {
      throw error(e, path);
    }
    FsPermission permission =
        options.mode() == 0
            ? FsPermission.getFileDefault().applyUMask(FsPermission.getUMask(fs.getConf()))
            : new FsPermission((short) (options.mode() & 07777));
    return new HdfsOutputStream(
        new Publisher(path), target, options.overwrite(), options.sync(), permission);
  }

  /** Creates, publishes and discards the temporary files of writes of {@code path}. */
  private final class Publisher implements HdfsOutputStream.Store {
    private final StrataPath path;

    Publisher(StrataPath path) {
      this.path = path;
    }

    @Override
    public FSDataOutputStream createTemp(Path temp, FsPermission permission) throws IOException {
      return fs.create(
          temp,
          permission,
          false,
          BUFFER,
          fs.getDefaultReplication(temp),
          fs.getDefaultBlockSize(temp),
          null);
    }

    @Override
    public UfsStatus publish(Path temp, Path target, boolean overwrite) throws IOException {
      // The status of what this writer wrote, taken before the rename (which keeps the inode and
      // its times): another writer's file under the name afterwards is not taken for it.
      FileStatus written = fs.getFileStatus(temp);
      if (overwrite) {
        carryXattrs(target, temp);
      }
      try {
        move(temp, target, overwrite);
      } catch (StrataException e) {
        if (e.code() == StatusCode.ALREADY_EXISTS) {
          throw StrataException.alreadyExists(path + " appeared while it was written");
        }
        throw e;
      }
      return versions.status(path.name(), written);
    }

    /** A file written anew keeps its attributes, as a truncate and write would. */
    private void carryXattrs(Path from, Path to) throws IOException {
      Map<String, byte[]> old;
      try {
        old = fs.getXAttrs(from);
      } catch (FileNotFoundException | UnsupportedOperationException e) {
        return;
      }
      for (Map.Entry<String, byte[]> x : old.entrySet()) {
        if (x.getKey().startsWith("user.")) {
          fs.setXAttr(to, x.getKey(), x.getValue() == null ? new byte[0] : x.getValue());
        }
      }
    }

    @Override
    public void deleteQuietly(Path temp) {
      try {
        fs.delete(temp, false);
      } catch (IOException | RuntimeException e) {
        // A temporary file left behind is hidden from listings and removed by discard().
      }
    }
  }

  private void requireFolder(StrataPath folder) throws IOException {
    FileStatus parent = fs.getFileStatus(hadoopPath(folder));
    if (!parent.isDirectory()) {
      throw new StrataException(StatusCode.NOT_A_DIRECTORY, folder + " is not a directory");
    }
  }

  @Override
  public void mkdirs(StrataPath path, boolean parents) {
    Path dir = hadoopPath(path);
    try {
      if (fs.exists(dir)) {
        throw StrataException.alreadyExists(path + " already exists");
      }
      if (!parents && !path.isRoot()) {
        requireFolder(path.parent());
      }
      if (!fs.mkdirs(dir)) {
        throw StrataException.unavailable(path + ": " + uri + " did not create it", null);
      }
    } catch (IOException e) {
      throw error(e, path);
    }
  }

  @Override
  public void delete(StrataPath path, boolean recursive) {
    if (path.isRoot()) {
      throw new StrataException(StatusCode.NOT_PERMITTED, "the root of " + uri + " stays");
    }
    Path p = hadoopPath(path);
    try {
      if (!fs.exists(p)) {
        throw StrataException.notFound(path + " does not exist");
      }
      if (!fs.delete(p, recursive)) {
        throw StrataException.notFound(path + " does not exist");
      }
    } catch (IOException e) {
      throw error(e, path);
    }
  }

  @Override
  public void setAttributes(StrataPath path, int mode, String owner, String group) {
    Path p = hadoopPath(path);
    try {
      if (mode >= 0) {
        fs.setPermission(p, new FsPermission((short) (mode & 01777)));
      }
      if (!owner.isEmpty() || !group.isEmpty()) {
        fs.setOwner(p, owner.isEmpty() ? null : owner, group.isEmpty() ? null : group);
      }
    } catch (IOException e) {
      throw error(e, path);
    }
  }

  @Override
  public void setModificationTime(StrataPath path, long epochMs) {
    try {
      fs.setTimes(hadoopPath(path), epochMs, -1);
    } catch (IOException e) {
      throw error(e, path);
    }
  }

  @Override
  public void rename(StrataPath src, StrataPath dst) {
    checkRename(src, dst);
    try {
      move(hadoopPath(src), hadoopPath(dst), false);
    } catch (IOException e) {
      throw error(e, src);
    }
  }

  @Override
  public void renameReplacing(StrataPath src, StrataPath dst) {
    checkRename(src, dst);
    try {
      move(hadoopPath(src), hadoopPath(dst), true);
    } catch (IOException e) {
      throw error(e, src);
    }
  }

  private static void checkRename(StrataPath src, StrataPath dst) {
    if (src.isRoot() || dst.isRoot() || dst.isUnder(src)) {
      throw StrataException.invalidArgument("cannot move " + src + " to " + dst);
    }
  }

  /**
   * HDFS renames in one step, replacing a file or an empty folder when asked; other Hadoop stores
   * are checked first (their rename moves a file into an existing folder instead of failing).
   */
  private void move(Path src, Path dst, boolean replace) throws IOException {
    if (fs instanceof DistributedFileSystem dfs) {
      dfs.rename(src, dst, replace ? Options.Rename.OVERWRITE : Options.Rename.NONE);
      return;
    }
    fs.getFileStatus(src);
    if (fs.exists(dst)) {
      if (!replace) {
        throw StrataException.alreadyExists(dst.toUri().getPath() + " already exists");
      }
      fs.delete(dst, false);
    }
    if (!fs.rename(src, dst)) {
      throw StrataException.unavailable(
          "cannot move " + src.toUri().getPath() + " to " + dst.toUri().getPath() + " in " + uri,
          null);
    }
  }

  @Override
  public Map<String, byte[]> xattrs(StrataPath path) {
    try {
      Map<String, byte[]> all = fs.getXAttrs(hadoopPath(path));
      Map<String, byte[]> user = new TreeMap<>();
      all.forEach(
          (k, v) -> {
            if (k.startsWith("user.")) {
              user.put(k, v == null ? new byte[0] : v);
            }
          });
      return user;
    } catch (IOException e) {
      throw error(e, path);
    } catch (UnsupportedOperationException e) {
      return Map.of();
    }
  }

  @Override
  public void setXattr(StrataPath path, String name, byte[] value) {
    Path p = hadoopPath(path);
    try {
      if (value == null) {
        fs.removeXAttr(p, name);
      } else {
        fs.setXAttr(p, name, value);
      }
    } catch (IOException e) {
      throw error(e, path);
    } catch (UnsupportedOperationException e) {
      throw new StrataException(
          StatusCode.NOT_PERMITTED, uri + " cannot hold extended attributes (" + path + ")");
    }
  }

  @Override
  public void discard(String token) {
    Path temp = new Path(root.getScheme(), root.getAuthority(), token);
    if (!HdfsOutputStream.isTemp(temp.getName()) || !token.startsWith(rootPath)) {
      return; // not a write's temporary file under this mount: never removed on a token's word
    }
    try {
      fs.delete(temp, false);
    } catch (IOException e) {
      throw HdfsErrors.toStrata(e, token, uri);
    }
  }

  @Override
  public void close() {
    versions.close();
    try {
      fs.close();
    } catch (IOException e) {
      // Closing only releases the client's connections; nothing is lost.
    }
  }
}
