package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileType;
import io.strata.core.status.IoErrors;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A local (or NFS-mounted) folder as under-storage. Every path is resolved under the root, and the
 * real location (after symbolic links) of the path or its nearest existing ancestor must still be
 * under the root's real location.
 */
public final class LocalUnderFileSystem implements UnderFileSystem {
  /** How long a temporary file of a write may go untouched before it is taken for a dead one's. */
  public static final Duration DEFAULT_TEMP_MAX_AGE = Duration.ofHours(1);

  private final Path root;
  private final LocalPaths paths;
  private final DeadWriters deadWriters;

  public LocalUnderFileSystem(Path root) {
    this(root, DEFAULT_TEMP_MAX_AGE, Clock.systemUTC());
  }

  /**
   * @param tempMaxAge a write's hidden temporary file untouched this long belongs to a writer that
   *     died: it is removed when its folder is listed or deleted
   */
  public LocalUnderFileSystem(Path root, Duration tempMaxAge, Clock clock) {
    this.root = root.toAbsolutePath().normalize();
    this.paths = new LocalPaths(this.root);
    this.deadWriters = new DeadWriters(tempMaxAge, clock);
  }

  @Override
  public String uri() {
    return root.toUri().toString().replaceAll("/$", "");
  }

  @Override
  public UfsStatus getStatus(StrataPath path) {
    try (LocalPaths.Located l = paths.entry(path)) {
      return LocalAttributes.status(path.isRoot() ? "" : path.name(), l.path());
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public Stream<UfsStatus> list(StrataPath path) {
    LocalPaths.Located l = paths.target(path);
    Path dir = l.path();
    try {
      if (!Files.isDirectory(dir)) {
        throw Files.exists(dir)
            ? new StrataException(StatusCode.NOT_A_DIRECTORY, path + " is not a directory")
            : StrataException.notFound(path + " does not exist");
      }
      // The caller closes the returned stream, which closes the directory with it.
      @SuppressWarnings("StreamResourceLeak")
      Stream<Path> children = Files.list(dir);
      return children
          .onClose(l::close)
          .filter(child -> !deadWriters.hide(child))
          .map(child -> childStatus(child))
          .filter(s -> s != null);
    } catch (IOException e) {
      l.close();
      throw IoErrors.toStrata(e, path.toString());
    } catch (RuntimeException e) {
      l.close();
      throw e;
    }
  }

  /** A child's status, or null if it vanished between listing and stat. */
  private UfsStatus childStatus(Path child) {
    try {
      return LocalAttributes.status(child.getFileName().toString(), child);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void willNeed(StrataPath path, long length) {
    try (LocalPaths.Located l = paths.entry(path)) {
      PosixCalls.willNeed(l.path(), 0, length);
    } catch (RuntimeException e) {
      // Only a hint: the read that follows reports what is wrong with the path.
    }
  }

  @Override
  public UfsReader openReader(StrataPath path) {
    LocalPaths.Located l = paths.entry(path);
    Path p = l.path();
    try (Pinned file = Pinned.of(p)) {
      // One look at the entry itself, pinned: what is opened below is what was looked at.
      BasicFileAttributes a = file.attributes();
      if (a.isDirectory()) {
        throw new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory");
      }
      if (a.isSymbolicLink()) {
        // Its status describes the link, not the target; a reader asks for the target's path.
        // Not followed here, not even to look: where it leads may be outside the root.
        throw StrataException.invalidArgument(
            path + " is a symbolic link to " + Files.readSymbolicLink(p) + ": read its target");
      }
      if (!a.isRegularFile()) {
        // A FIFO would block the reader until someone writes to it.
        throw StrataException.invalidArgument(path + " is not a regular file");
      }
      return new LocalReader(p, file.openFile(path.toString(), StandardOpenOption.READ), l);
    } catch (IOException e) {
      l.close();
      throw IoErrors.toStrata(e, path.toString());
    } catch (RuntimeException e) {
      l.close();
      throw e;
    }
  }

  @Override
  public UfsOutputStream create(StrataPath path, CreateOptions options) {
    if (path.isRoot()) {
      throw new StrataException(StatusCode.IS_A_DIRECTORY, "/ is a directory");
    }
    LocalPaths.Located l =
        paths.newFile(path, options.createParents(), options.uid(), options.gid());
    Path target = l.path();
    try {
      Path parent = target.getParent();
      if (!Files.isDirectory(parent)) {
        throw StrataException.notFound("parent of " + path + " does not exist");
      }
      if (Files.isDirectory(target)) {
        throw new StrataException(StatusCode.IS_A_DIRECTORY, path + " is a directory");
      }
      if (!options.overwrite() && Files.exists(target, LinkOption.NOFOLLOW_LINKS)) {
        throw StrataException.alreadyExists(path + " already exists");
      }
      if (options.inPlace() && Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
        return new LocalInPlaceStream(target, path.toString(), options.sync(), l);
      }
      // The temporary file comes at the first write: a folder it cannot be made in is told now.
      if (!Files.isWritable(parent)) {
        throw new AccessDeniedException(parent.toString());
      }
      return LocalOutputStream.open(target, path, options, l);
    } catch (IOException e) {
      l.close();
      throw IoErrors.toStrata(e, path.toString());
    } catch (RuntimeException e) {
      l.close();
      throw e;
    }
  }

  @Override
  public void mkdirs(StrataPath path, boolean parents) {
    mkdirs(path, parents, -1, -1);
  }

  @Override
  public void mkdirs(StrataPath path, boolean parents, long uid, long gid) {
    try (LocalPaths.Located l = parents ? paths.newFile(path, true, uid, gid) : paths.entry(path)) {
      Path p = l.path();
      if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
        throw Files.isDirectory(p)
            ? StrataException.alreadyExists(path + " already exists")
            : StrataException.alreadyExists(path + " already exists as a file");
      }
      if (parents) {
        Files.createDirectories(p);
      } else {
        if (!Files.isDirectory(p.getParent())) {
          throw StrataException.notFound("parent of " + path + " does not exist");
        }
        Files.createDirectory(p);
      }
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public void delete(StrataPath path, boolean recursive) {
    if (path.isRoot()) {
      throw new StrataException(
          StatusCode.PERMISSION_DENIED, "the root of a mount cannot be deleted");
    }
    try (LocalPaths.Located l = paths.entry(path)) {
      delete(l.path(), path, recursive);
    }
  }

  private void delete(Path p, StrataPath path, boolean recursive) {
    try {
      if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
        throw StrataException.notFound(path + " does not exist");
      }
      if (recursive && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
        DeadWriters.deleteTree(p);
      } else {
        deadWriters.deleteOne(p);
      }
    } catch (DirectoryNotEmptyException e) {
      throw new StrataException(
          StatusCode.DIRECTORY_NOT_EMPTY,
          path
              + (DeadWriters.holdsOnlyTemporaries(p)
                  ? " holds a file being written (hidden until it is closed)"
                  : " is a non-empty directory"),
          e);
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public void discard(String token) {
    if (token.startsWith(LocalInPlaceStream.TOKEN_PREFIX)) {
      return;
    }
    StrataPath path = StrataPath.of(token);
    if (path.isRoot() || !LocalOutputStream.isTemporary(path.name())) {
      throw StrataException.invalidArgument(token + " is not a write's temporary file");
    }
    try (LocalPaths.Located l = paths.entry(path)) {
      Files.deleteIfExists(l.path());
    } catch (IOException e) {
      throw IoErrors.toStrata(e, token);
    }
  }

  @Override
  public void rename(StrataPath src, StrataPath dst) {
    move(src, dst, false);
  }

  @Override
  public void renameReplacing(StrataPath src, StrataPath dst) {
    move(src, dst, true);
  }

  private void move(StrataPath src, StrataPath dst, boolean replacing) {
    if (src.isRoot() || dst.isRoot()) {
      throw new StrataException(
          StatusCode.PERMISSION_DENIED, "the root of a mount cannot be renamed");
    }
    if (dst.isUnder(src)) {
      throw StrataException.invalidArgument("cannot move " + src + " into itself (" + dst + ")");
    }
    try (LocalPaths.Located a = paths.entry(src);
        LocalPaths.Located b = paths.entry(dst)) {
      Path from = a.path();
      Path to = b.path();
      if (!Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
        throw StrataException.notFound(src + " does not exist");
      }
      if (!Files.isDirectory(to.getParent())) {
        throw StrataException.notFound("parent of " + dst + " does not exist");
      }
      // Without REPLACE_EXISTING the JDK refuses an existing target, then renames in place; with
      // ATOMIC_MOVE it is rename(2), which replaces a file or an empty folder in one step.
      if (replacing) {
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
      } else {
        Files.move(from, to);
      }
    } catch (java.nio.file.AtomicMoveNotSupportedException e) {
      throw new StrataException(
          StatusCode.CROSS_DEVICE, src + " and " + dst + " are on different devices", e);
    } catch (IOException e) {
      throw IoErrors.toStrata(
          e,
          e instanceof java.nio.file.FileAlreadyExistsException ? dst.toString() : src.toString());
    }
  }

  @Override
  public void setAttributes(StrataPath path, int mode, String owner, String group) {
    try (LocalPaths.Located l = paths.entry(path)) {
      Path p = l.path();
      if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
        throw StrataException.notFound(path + " does not exist");
      }
      if (mode >= 0) {
        if (Files.isSymbolicLink(p)) {
          // Linux has no lchmod; chmod would change the link's target, maybe outside the root.
          throw new StrataException(
              StatusCode.NOT_PERMITTED, path + " is a symbolic link: its mode cannot change");
        }
        PosixCalls.chmod(p, mode);
      }
      var names = p.getFileSystem().getUserPrincipalLookupService();
      // lchown: the entry itself, never what a link swapped in for it would lead to.
      var view =
          Files.getFileAttributeView(
              p, java.nio.file.attribute.PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
      if (!owner.isEmpty()) {
        view.setOwner(lookUp(() -> names.lookupPrincipalByName(owner), "user", owner));
      }
      if (!group.isEmpty()) {
        view.setGroup(lookUp(() -> names.lookupPrincipalByGroupName(group), "group", group));
      }
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public void setModificationTime(StrataPath path, long epochMs) {
    try (LocalPaths.Located l = paths.entry(path)) {
      // The entry's own time (utimensat without following a link).
      PosixCalls.setTimes(l.path(), UnderFileSystem.TIME_OMIT, epochMs * 1_000_000L);
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  private interface Lookup<T> {
    T get() throws IOException;
  }

  private static <T> T lookUp(Lookup<T> lookup, String kind, String name) throws IOException {
    try {
      return lookup.get();
    } catch (java.nio.file.attribute.UserPrincipalNotFoundException e) {
      throw StrataException.invalidArgument(
          "no " + kind + " " + name + " on the under-storage's host");
    }
  }

  @Override
  public void close() {
    paths.close();
  }

  @Override
  public boolean keepsNumericOwners() {
    return true;
  }

  @Override
  public void setOwnerIds(StrataPath path, long uid, long gid) {
    try (LocalPaths.Located l = paths.entry(path)) {
      Path p = l.path();
      // The "unix" view without following links is lchown(2).
      if (uid >= 0) {
        Files.setAttribute(p, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
      }
      if (gid >= 0) {
        Files.setAttribute(p, "unix:gid", (int) gid, LinkOption.NOFOLLOW_LINKS);
      }
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public void setTimes(StrataPath path, long atimeNs, long mtimeNs) {
    try (LocalPaths.Located l = paths.entry(path)) {
      PosixCalls.setTimes(l.path(), atimeNs, mtimeNs);
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public Map<String, byte[]> xattrs(StrataPath path) {
    try (LocalPaths.Located l = paths.entry(path)) {
      return LocalXattrs.read(l.path(), path.toString());
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public void setXattr(StrataPath path, String name, byte[] value) {
    try (LocalPaths.Located l = paths.entry(path)) {
      LocalXattrs.write(l.path(), path.toString(), name, value);
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public void createSymlink(StrataPath path, String target) {
    try (LocalPaths.Located l = paths.entry(path)) {
      PosixCalls.symlink(target, l.path());
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public void createHardLink(StrataPath existing, StrataPath path) {
    try (LocalPaths.Located a = paths.entry(existing);
        LocalPaths.Located b = paths.entry(path)) {
      try {
        // link(2) links a symbolic link itself, never its target.
        Files.createLink(b.path(), a.path());
      } catch (NoSuchFileException e) {
        throw IoErrors.toStrata(
            e, Files.exists(b.path().getParent()) ? existing.toString() : path.toString());
      }
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }

  @Override
  public void createSpecial(StrataPath path, FileType type, int mode, long rdev) {
    int format =
        switch (type) {
          case FIFO -> PosixCalls.S_IFIFO;
          case SOCKET -> PosixCalls.S_IFSOCK;
          case CHAR_DEVICE -> PosixCalls.S_IFCHR;
          case BLOCK_DEVICE -> PosixCalls.S_IFBLK;
          default -> throw StrataException.invalidArgument(type + " is not a special file type");
        };
    try (LocalPaths.Located l = paths.entry(path)) {
      PosixCalls.mknod(l.path(), format | (mode & 07777), rdev);
    } catch (IOException e) {
      throw IoErrors.toStrata(e, path.toString());
    }
  }
}
