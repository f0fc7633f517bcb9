package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.status.IoErrors;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Where a local folder's paths lead, resolved by the kernel so that no path leaves the root.
 *
 * <p>A user who may write one folder of the root can swap any folder or file of it for a symbolic
 * link at any moment, and the worker acts as its own OS account. So a path is never checked and
 * then handed to the kernel as a string (the kernel would follow whatever link stands there by
 * then): its folder is opened with openat2 beneath a descriptor of the root (no link followed on
 * the way, not even one that stays inside; {@link PosixCalls#openBeneath}), held open, and the
 * entry is used as {@code /proc/self/fd/N/NAME}: the kernel starts from that very folder however
 * the names above it change. The entry's own name is the caller's to follow or not (each caller
 * opens with NOFOLLOW where a link must not be followed); {@link #target} resolves the entry itself
 * beneath the root instead. A path longer than the kernel takes at once is resolved a part at a
 * time, each part beneath the folder before it (a link there may not climb above its part).
 */
final class LocalPaths {
  /** Bytes of one openat2 path: below PATH_MAX (4096, its NUL included). */
  private static final int MAX_PART_BYTES = 4000;

  private static final Path FDS = Path.of("/proc/self/fd");

  private final Path root;

  LocalPaths(Path root) {
    this.root = root;
  }

  /**
   * A path of the store, usable until {@link #close} (which lets its folder's descriptor go):
   * {@link #path} is what the kernel is given.
   */
  static final class Located implements Closeable {
    private final Path path;
    private final int fd;
    private final AtomicBoolean closed = new AtomicBoolean();

    Located(Path path, int fd) {
      this.path = path;
      this.fd = fd;
    }

    Path path() {
      return path;
    }

    /** Once only: a descriptor number closed twice may by then be another thread's file. */
    @Override
    public void close() {
      if (fd >= 0 && closed.compareAndSet(false, true)) {
        PosixCalls.close(fd);
      }
    }
  }

  /**
   * The path itself, links in it (the last one too) followed while they stay inside the root: a
   * folder to list, say. Not for a file to open for its bytes ({@link #entry}, opened with
   * NOFOLLOW): {@code path()} is a link of /proc, which a NOFOLLOW open refuses.
   */
  Located target(StrataPath path) {
    if (path.isRoot()) {
      return theRoot(path);
    }
    try {
      int fd = withRoot(path, dir -> walk(dir, components(path), false, false, path));
      return new Located(FDS.resolve(Integer.toString(fd)), fd);
    } catch (IOException e) {
      throw errorOf(e, path);
    }
  }

  /**
   * An entry looked at or changed itself: its folder resolved inside the root and held, its own
   * name not followed by this (the caller opens it with NOFOLLOW where a link must not be).
   */
  Located entry(StrataPath path) {
    return locate(path, false);
  }

  /** A file about to be written, its missing folders made if {@code createFolders}. */
  Located newFile(StrataPath path, boolean createFolders) {
    return newFile(path, createFolders, -1, -1);
  }

  /**
   * As {@link #newFile(StrataPath, boolean)}, the folders it makes given the owner {@code uid} and
   * group {@code gid} (-1: the process's): those this call made, never one that another made
   * meanwhile, so that a user's {@code mkdir -p} or write makes their folders theirs and no one
   * else's.
   */
  Located newFile(StrataPath path, boolean createFolders, long uid, long gid) {
    return locate(path, createFolders, new Owner(uid, gid));
  }

  /** Who the folders a walk makes belong to (-1: the process's account). */
  private record Owner(long uid, long gid) {
    static final Owner PROCESS = new Owner(-1, -1);

    boolean given() {
      return uid >= 0 || gid >= 0;
    }
  }

  private Located locate(StrataPath path, boolean createFolders) {
    return locate(path, createFolders, Owner.PROCESS);
  }

  private Located locate(StrataPath path, boolean createFolders, Owner owner) {
    if (path.isRoot()) {
      return theRoot(path);
    }
    List<String> names = components(path);
    List<String> folders = names.subList(0, names.size() - 1);
    String name = names.get(names.size() - 1);
    try {
      int folder = withRoot(path, dir -> openFolder(dir, folders, createFolders, owner, path));
      return new Located(FDS.resolve(Integer.toString(folder)).resolve(name), folder);
    } catch (IOException e) {
      throw errorOf(e, path);
    }
  }

  /**
   * The root folder by a descriptor of its own: a call acting as a user is never asked to search
   * the folders above it, which are the administrator's.
   */
  private Located theRoot(StrataPath path) {
    try {
      int fd = withRoot(path, dir -> rootHere(dir, path));
      // "." names the folder itself to a call that does not follow links (the descriptor's own
      // /proc entry is a link).
      return new Located(FDS.resolve(Integer.toString(fd)).resolve("."), fd);
    } catch (IOException e) {
      throw errorOf(e, path);
    }
  }

  /** A descriptor of its own for the root {@code dir}, unless that folder was removed. */
  private int rootHere(int dir, StrataPath path) throws IOException {
    int fd = dup(dir, path);
    Object links;
    try {
      links = Files.getAttribute(FDS.resolve(Integer.toString(fd)), "unix:nlink");
    } catch (IOException | RuntimeException e) {
      PosixCalls.close(fd);
      throw e;
    }
    if (links instanceof Integer n && n == 0) {
      // Removed (an administrator recreated it, say): withRoot opens the new one.
      PosixCalls.close(fd);
      throw new NoSuchFileException(root.toString());
    }
    return fd;
  }

  /** A walk from the root's descriptor. */
  private interface Walk {
    int from(int rootFd) throws IOException;
  }

  /**
   * {@code walk} from the root's descriptor, held for this store's life (one open and close less
   * per call). If the walk finds nothing and the root folder was replaced since (an administrator
   * recreated it), the new one is opened and the walk made again; the old descriptor stays open,
   * for a call under way may still use it.
   */
  private int withRoot(StrataPath path, Walk walk) throws IOException {
    int fd = rootFd(path);
    try {
      return walk.from(fd);
    } catch (NoSuchFileException e) {
      if (!rootReplaced(fd)) {
        throw e;
      }
      synchronized (this) {
        if (rootFd == fd) {
          rootFd = -1;
        }
      }
      return walk.from(rootFd(path));
    }
  }

  private volatile int rootFd = -1;

  private int rootFd(StrataPath path) {
    int fd = rootFd;
    if (fd >= 0) {
      return fd;
    }
    // The root and the folders above it are the administrator's: opened as the worker.
    return ActingAs.asProcess(() -> openRoot(path));
  }

  private int openRoot(StrataPath path) {
    synchronized (this) {
      if (rootFd < 0) {
        try {
          rootFd = PosixCalls.openPlace(root);
        } catch (NoSuchFileException e) {
          throw missingRoot();
        } catch (IOException e) {
          throw IoErrors.toStrata(e, path.toString());
        }
      }
      return rootFd;
    }
  }

  private boolean rootReplaced(int fd) {
    return ActingAs.asProcess(() -> rootReplacedBy(fd));
  }

  private boolean rootReplacedBy(int fd) {
    try {
      Object held =
          Files.readAttributes(FDS.resolve(Integer.toString(fd)), BasicFileAttributes.class)
              .fileKey();
      Object now = Files.readAttributes(root, BasicFileAttributes.class).fileKey();
      return !Objects.equals(held, now);
    } catch (IOException e) {
      return true;
    }
  }

  private StrataException missingRoot() {
    return StrataException.notFound("under-storage folder " + root + " does not exist");
  }

  /** Lets the root's descriptor go (the store is closed). */
  synchronized void close() {
    if (rootFd >= 0) {
      PosixCalls.close(rootFd);
      rootFd = -1;
    }
  }

  /** A descriptor of its own for the folder {@code dir}. */
  private int dup(int dir, StrataPath path) throws IOException {
    return PosixCalls.openBeneath(dir, "", true, false, shown(path));
  }

  /** The folder {@code folders} beneath {@code dir}, missing ones made if {@code create}. */
  private int openFolder(
      int dir, List<String> folders, boolean create, Owner owner, StrataPath path)
      throws IOException {
    if (folders.isEmpty()) {
      return rootHere(dir, path);
    }
    try {
      return walk(dir, folders, true, false, path);
    } catch (NoSuchFileException missing) {
      if (!create) {
        throw missing;
      }
    }
    // The deepest folder there is, then the rest made one at a time in the one before.
    int have = folders.size() - 1;
    int fd = -1;
    while (fd < 0) {
      if (have == 0) {
        fd = dup(dir, path);
        break;
      }
      try {
        fd = walk(dir, folders.subList(0, have), true, false, path);
      } catch (NoSuchFileException e) {
        have--;
      }
    }
    try {
      for (int i = have; i < folders.size(); i++) {
        String name = folders.get(i);
        boolean made = PosixCalls.mkdirAt(fd, name, shown(path));
        int next = PosixCalls.openBeneath(fd, name, true, true, shown(path));
        PosixCalls.close(fd);
        fd = next;
        if (made && owner.given()) {
          // On the folder as opened (no link followed): the one this call made.
          PosixCalls.fchown(fd, owner.uid(), owner.gid(), shown(path));
        }
      }
      return fd;
    } catch (IOException | RuntimeException e) {
      PosixCalls.close(fd);
      throw e;
    }
  }

  /**
   * {@code names} beneath {@code dir} as one openat2 call, or as several (each beneath the last)
   * when too long for one.
   */
  private int walk(int dir, List<String> names, boolean folder, boolean noFollow, StrataPath path)
      throws IOException {
    List<String> parts = parts(names);
    int fd = dir;
    try {
      for (int i = 0; i < parts.size(); i++) {
        boolean last = i == parts.size() - 1;
        int next =
            PosixCalls.openBeneath(
                fd, parts.get(i), !last || folder, last && noFollow, shown(path));
        if (fd != dir) {
          PosixCalls.close(fd);
        }
        fd = next;
      }
      return fd;
    } catch (IOException | RuntimeException e) {
      if (fd != dir) {
        PosixCalls.close(fd);
      }
      throw e;
    }
  }

  /** {@code names} joined by slashes into parts the kernel takes whole. */
  private static List<String> parts(List<String> names) {
    List<String> parts = new ArrayList<>();
    StringBuilder part = new StringBuilder();
    int bytes = 0;
    for (String name : names) {
      int n = name.getBytes(StandardCharsets.UTF_8).length;
      if (bytes > 0 && bytes + 1 + n > MAX_PART_BYTES) {
        parts.add(part.toString());
        part.setLength(0);
        bytes = 0;
      }
      if (bytes > 0) {
        part.append('/');
        bytes++;
      }
      part.append(name);
      bytes += n;
    }
    parts.add(part.toString());
    return parts;
  }

  private static List<String> components(StrataPath path) {
    return List.of(path.toString().substring(1).split("/", -1));
  }

  private Path shown(StrataPath path) {
    return Path.of(path.toString());
  }

  private static StrataException errorOf(IOException e, StrataPath path) {
    if (e instanceof PosixCalls.LeadsOutside) {
      return new StrataException(
          StatusCode.PERMISSION_DENIED, path + " leads outside the mount's under-storage");
    }
    if (e instanceof PosixCalls.PassesALink) {
      return new StrataException(
          StatusCode.PERMISSION_DENIED,
          path
              + " passes a symbolic link of the under-storage, which the worker does not follow"
              + " (a FUSE mount does, a name at a time)");
    }
    return IoErrors.toStrata(e, path.toString());
  }
}
