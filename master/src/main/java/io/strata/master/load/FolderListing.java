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
 * A folder's children in name order, fetched a page at a time, each page from the first of the
 * folder's ring owners that answers: a worker that dies while a job walks a large folder costs one
 * page request, not the job. At most one page is held.
 */
final class FolderListing implements Iterator<FileStatus> {
  static final int PAGE = 1000;

  /** Fetches one page: (worker, folder, start after, limit) -> children. */
  interface PageSource {
    List<FileStatus> page(WorkerInfo worker, String folder, String startAfter, int limit);
  }

  private final String folder;
  private final Supplier<List<WorkerInfo>> owners;
  private final PageSource source;
  private Iterator<FileStatus> page = Collections.emptyIterator();
  private String lastName = "";
  private boolean lastPage;

  FolderListing(String folder, Supplier<List<WorkerInfo>> owners, PageSource source) {
    this.folder = folder;
    this.owners = owners;
    this.source = source;
  }

  @Override
  public boolean hasNext() {
    while (!page.hasNext() && !lastPage) {
      List<FileStatus> children = fetch();
      lastPage = children.size() < PAGE;
      if (!children.isEmpty()) {
        lastName = children.get(children.size() - 1).getName();
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

  private List<FileStatus> fetch() {
    StrataException last = null;
    for (WorkerInfo w : owners.get()) {
      try {
        return source.page(w, folder, lastName, PAGE);
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
