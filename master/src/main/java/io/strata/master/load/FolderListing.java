package io.strata.master.load;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Supplier;

/**
 * A folder's children in name order, or every file of its tree in its store's key order, fetched a
 * page at a time, each page from the first of the folder's ring owners that answers: a worker that
 * dies while a job walks a large folder costs one page request, not the job. At most one page is
 * held.
 */
final class FolderListing implements Iterator<FileStatus> {
  static final int PAGE = 1000;

  /**
   * A tree's first page; each next one is twice the last, up to {@link #PAGE}. The job's first
   * batch goes as soon as the first page is listed, its second as soon as the second is: an object
   * store lists a hundred keys many times faster than a thousand, and with one page of a thousand
   * second, the first batch loaded alone while it was listed (a sixth of a 1,000-object job).
   */
  static final int FIRST_TREE_PAGE = 100;

  /** Fetches one page: (worker, folder, start after, limit) -> children. */
  interface PageSource {
    List<FileStatus> page(WorkerInfo worker, String folder, String startAfter, int limit);
  }

  private final String folder;
  private final Supplier<List<WorkerInfo>> owners;
  private final PageSource source;
  private final boolean tree;
  private Iterator<FileStatus> page = Collections.emptyIterator();
  private String after;
  private boolean lastPage;
  private int limit;

  /** The children of {@code folder}; the source pages by child name. */
  FolderListing(String folder, Supplier<List<WorkerInfo>> owners, PageSource source) {
    this(folder, owners, source, false, "");
  }

  private FolderListing(
      String folder,
      Supplier<List<WorkerInfo>> owners,
      PageSource source,
      boolean tree,
      String startAfter) {
    this.folder = folder;
    this.owners = owners;
    this.source = source;
    this.tree = tree;
    this.after = startAfter;
    this.limit = tree ? FIRST_TREE_PAGE : PAGE;
  }

  /**
   * The files of {@code folder}'s tree after the file {@code startAfter} ("" from the start); the
   * source pages by full path.
   */
  static FolderListing tree(
      String folder, Supplier<List<WorkerInfo>> owners, PageSource source, String startAfter) {
    return new FolderListing(folder, owners, source, true, startAfter);
  }

  @Override
  public boolean hasNext() {
    while (!page.hasNext() && !lastPage) {
      List<FileStatus> children = fetch(limit);
      lastPage = children.size() < limit;
      limit = Math.min(PAGE, 2 * limit);
      if (!children.isEmpty()) {
        FileStatus end = children.get(children.size() - 1);
        after = tree ? end.getPath() : end.getName();
      }
      page = children.iterator();
    }
    return page.hasNext();
  }

  @Override
  public FileStatus next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return page.next();
  }

  private List<FileStatus> fetch(int limit) {
    StrataException last = null;
    for (WorkerInfo w : owners.get()) {
      try {
        return source.page(w, folder, after, limit);
      } catch (StrataException e) {
        if (!workerFailed(e)) {
          throw e;
        }
        last = e;
      }
    }
    throw last != null
        ? last
        : StrataException.unavailable("no live worker to list " + folder, null);
  }

  private static boolean workerFailed(StrataException e) {
    return e.code() == StatusCode.UNAVAILABLE || e.code() == StatusCode.DEADLINE_EXCEEDED;
  }
}
