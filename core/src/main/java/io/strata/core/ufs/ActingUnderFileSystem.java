package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileType;
import io.strata.core.security.ActingFor;
import io.strata.core.status.IoErrors;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Supplier;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A local store whose calls act as the caller ({@link ActingAs}): the kernel checks what a user's
 * call opens, on the very folders and files it opens, however the names changed since the worker's
 * own check. A write acts as its caller for its whole life (its file is made at the first write and
 * published at close). A reader, once open, reads bytes only: it acts as the worker, as page
 * fetches shared by many callers must.
 */
public final class ActingUnderFileSystem implements UnderFileSystem {
  private final UnderFileSystem store;
  private final Supplier<ActingAs.Identity> caller;

  /**
   * @param caller who the call being served acts as (null: the worker itself)
   */
  public ActingUnderFileSystem(UnderFileSystem store, Supplier<ActingAs.Identity> caller) {
    this.store = store;
    this.caller = caller;
  }

  private <T> T acting(Supplier<T> op) {
    return acting(caller.get(), op);
  }

  private static <T> T acting(ActingAs.Identity who, Supplier<T> op) {
    try {
      return ActingAs.call(who, op);
    } catch (StrataException e) {
      if (who == null || e.code() != StatusCode.PERMISSION_DENIED) {
        throw e;
      }
      // The kernel's refusal names no one: say whose call it was.
      throw new StrataException(
          StatusCode.PERMISSION_DENIED,
          e.getMessage() + " (refused by the under-storage to " + who + ")");
    }
  }

  private void acting(Runnable op) {
    acting(
        () -> {
          op.run();
          return null;
        });
  }

  @Override
  public String uri() {
    return store.uri();
  }

  @Override
  public UfsStatus getStatus(StrataPath path) {
    return acting(() -> store.getStatus(path));
  }

  /**
   * The folder is opened (and its r checked) here; its entries are read from that descriptor and
   * each one's attributes looked up as the stream is consumed, which may be after this call: so
   * each step acts as the caller too, and the kernel checks the folder's x for each look-up (a user
   * who may read a folder's names but not search it gets no attributes of its entries).
   */
  @Override
  public Stream<UfsStatus> list(StrataPath path) {
    ActingAs.Identity who = caller.get();
    Stream<UfsStatus> entries = acting(who, () -> store.list(path));
    if (who == null) {
      return entries;
    }
    Iterator<UfsStatus> each = entries.iterator();
    Iterator<UfsStatus> acting =
        new Iterator<>() {
          @Override
          public boolean hasNext() {
            return step(who, path, each::hasNext);
          }

          @Override
          public UfsStatus next() {
            return step(who, path, each::next);
          }
        };
    return StreamSupport.stream(
            Spliterators.spliteratorUnknownSize(acting, Spliterator.ORDERED), false)
        .onClose(entries::close);
  }

  /** One step of a listing (an entry looked up), as {@code who}. */
  private static <T> T step(ActingAs.Identity who, StrataPath folder, Supplier<T> step) {
    return acting(
        who,
        () -> {
          try {
            return step.get();
          } catch (UncheckedIOException e) {
            throw IoErrors.toStrata(e, "the entries of " + folder);
          }
        });
  }

  @Override
  public boolean listsAttributes() {
    return store.listsAttributes();
  }

  @Override
  public List<UfsStatus> listFiles(StrataPath dir, String startAfter, int limit) {
    return acting(() -> store.listFiles(dir, startAfter, limit));
  }

  @Override
  public UfsReader openReader(StrataPath path) {
    return acting(() -> store.openReader(path));
  }

  @Override
  public void willNeed(StrataPath path, long length) {
    store.willNeed(path, length);
  }

  @Override
  public boolean continuesRuns() {
    return store.continuesRuns();
  }

  @Override
  public UfsReader openVersion(StrataPath path, String fingerprint) {
    return acting(() -> store.openVersion(path, fingerprint));
  }

  /**
   * A local account's new version of an existing file (a FUSE mount's open with O_TRUNC, made for
   * that account: {@link ActingFor}) is written into the file itself, as the kernel's O_TRUNC
   * would: the kernel then checks w on the file the account opens and nothing on its folder (a user
   * may write their own file in a folder they may not change, or a file whose group they are in),
   * and the file stays whose it was. A temporary file renamed over it would need the folder's w and
   * a chown back to the owner, which a user may not do. Root's and other callers' overwrites still
   * replace the file whole, atomically.
   */
  @Override
  public UfsOutputStream create(StrataPath path, CreateOptions options) {
    ActingAs.Identity who = caller.get();
    CreateOptions asked =
        who != null && who.uid() != 0 && options.overwrite() && ActingFor.current() != null
            ? options.rewritingInPlace()
            : options;
    UfsOutputStream out = acting(() -> store.create(path, asked));
    return who == null ? out : new ActingOutputStream(out, who);
  }

  @Override
  public void mkdirs(StrataPath path, boolean parents) {
    acting(() -> store.mkdirs(path, parents));
  }

  @Override
  public void mkdirs(StrataPath path, boolean parents, long uid, long gid) {
    acting(() -> store.mkdirs(path, parents, uid, gid));
  }

  @Override
  public void delete(StrataPath path, boolean recursive) {
    acting(() -> store.delete(path, recursive));
  }

  @Override
  public void setAttributes(StrataPath path, int mode, String owner, String group) {
    acting(() -> store.setAttributes(path, mode, owner, group));
  }

  @Override
  public void setModificationTime(StrataPath path, long epochMs) {
    acting(() -> store.setModificationTime(path, epochMs));
  }

  @Override
  public void rename(StrataPath src, StrataPath dst) {
    acting(() -> store.rename(src, dst));
  }

  @Override
  public void renameReplacing(StrataPath src, StrataPath dst) {
    acting(() -> store.renameReplacing(src, dst));
  }

  @Override
  public boolean keepsNumericOwners() {
    return store.keepsNumericOwners();
  }

  @Override
  public void setOwnerIds(StrataPath path, long uid, long gid) {
    acting(() -> store.setOwnerIds(path, uid, gid));
  }

  @Override
  public void setTimes(StrataPath path, long atimeNs, long mtimeNs) {
    acting(() -> store.setTimes(path, atimeNs, mtimeNs));
  }

  @Override
  public void createSymlink(StrataPath path, String target) {
    acting(() -> store.createSymlink(path, target));
  }

  @Override
  public void createHardLink(StrataPath existing, StrataPath path) {
    acting(() -> store.createHardLink(existing, path));
  }

  @Override
  public void createSpecial(StrataPath path, FileType type, int mode, long rdev) {
    acting(() -> store.createSpecial(path, type, mode, rdev));
  }

  @Override
  public Map<String, byte[]> xattrs(StrataPath path) {
    return acting(() -> store.xattrs(path));
  }

  @Override
  public void setXattr(StrataPath path, String name, byte[] value) {
    acting(() -> store.setXattr(path, name, value));
  }

  @Override
  public void discard(String token) {
    store.discard(token);
  }

  @Override
  public void close() {
    store.close();
  }

  /** A write that acts as the one who began it, whichever thread carries it on. */
  private static final class ActingOutputStream extends UfsOutputStream {
    private final UfsOutputStream out;
    private final ActingAs.Identity who;

    ActingOutputStream(UfsOutputStream out, ActingAs.Identity who) {
      this.out = out;
      this.who = who;
    }

    private interface Io {
      void run() throws IOException;
    }

    private void acting(Io op) throws IOException {
      try {
        ActingAs.run(
            who,
            () -> {
              try {
                op.run();
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
      } catch (UncheckedIOException e) {
        throw e.getCause();
      }
    }

    @Override
    public void write(int b) throws IOException {
      acting(() -> out.write(b));
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      acting(() -> out.write(b, off, len));
    }

    @Override
    public void flush() throws IOException {
      acting(out::flush);
    }

    @Override
    public void abort() {
      ActingAs.run(who, out::abort);
    }

    @Override
    public String token() {
      return out.token();
    }

    @Override
    public long bytesWritten() {
      return out.bytesWritten();
    }

    @Override
    public void close() throws IOException {
      acting(out::close);
    }

    @Override
    public UfsStatus published() {
      return out.published();
    }
  }
}
