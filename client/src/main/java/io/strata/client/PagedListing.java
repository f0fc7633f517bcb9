package io.strata.client;

import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;

/**
 * A folder's children a page at a time: the next page is asked for (the names after the last one
 * seen) once the caller has read the current one, and a page shorter than asked is the last.
 */
final class PagedListing implements Iterator<FileInfo> {
  private final int pageSize;
  private final Function<String, List<FileInfo>> pageAfter;
  private List<FileInfo> page;
  private int next;

  /**
   * {@code pageAfter} gives the page of entries whose names sort after its argument ("": first);
   * the first page is the one after {@code startAfter}.
   */
  PagedListing(int pageSize, String startAfter, Function<String, List<FileInfo>> pageAfter) {
    this.pageSize = pageSize;
    this.pageAfter = pageAfter;
    this.page = pageAfter.apply(startAfter);
  }

  @Override
  public boolean hasNext() {
    if (next < page.size()) {
      return true;
    }
    if (page.size() < pageSize) {
      return false;
    }
    page = pageAfter.apply(page.get(page.size() - 1).name());
    next = 0;
    return !page.isEmpty();
  }

  @Override
  public FileInfo next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    return page.get(next++);
  }
}
