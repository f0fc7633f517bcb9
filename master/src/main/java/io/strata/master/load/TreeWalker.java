package io.strata.master.load;

import com.google.common.base.Splitter;
import io.strata.core.proto.FileStatus;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The files under a folder, depth first, children in name order, streamed: at most one page of
 * listing per open folder is in memory. Resuming after {@code cursor} skips every file up to and
 * including it in that order (and the folders that hold only such files) without listing them.
 */
final class TreeWalker implements Iterator<FileStatus> {
  private final Function<String, Iterator<FileStatus>> lister;
  private final Predicate<String> enters;
  private final String cursor;
  private final Deque<Iterator<FileStatus>> stack = new ArrayDeque<>();
  private FileStatus next;

  TreeWalker(Function<String, Iterator<FileStatus>> lister, String root, String cursor) {
    this(lister, folder -> true, root, cursor);
  }

  /**
   * @param enters whether the walk goes into a folder below the root (by its path)
   */
  TreeWalker(
      Function<String, Iterator<FileStatus>> lister,
      Predicate<String> enters,
      String root,
      String cursor) {
    this.lister = lister;
    this.enters = enters;
    this.cursor = cursor;
    stack.push(lister.apply(root));
  }

  @Override
  public boolean hasNext() {
    while (next == null && !stack.isEmpty()) {
      Iterator<FileStatus> top = stack.peek();
      if (!top.hasNext()) {
        stack.pop();
        continue;
      }
      FileStatus s = top.next();
      if (s.getDirectory()) {
        boolean ahead =
            cursor.isEmpty()
                || cursor.startsWith(s.getPath() + "/")
                || PathOrder.compare(s.getPath(), cursor) > 0;
        if (ahead && enters.test(s.getPath())) {
          stack.push(lister.apply(s.getPath()));
        }
      } else if (cursor.isEmpty() || PathOrder.compare(s.getPath(), cursor) > 0) {
        next = s;
      }
    }
    return next != null;
  }

  @Override
  public FileStatus next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    FileStatus s = next;
    next = null;
    return s;
  }

  /** Depth-first order of paths: component by component, a folder before what it holds. */
  static final class PathOrder {
    private PathOrder() {}

    static int compare(String a, String b) {
      List<String> x = Splitter.on('/').splitToList(a);
      List<String> y = Splitter.on('/').splitToList(b);
      for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
        int c = x.get(i).compareTo(y.get(i));
        if (c != 0) {
          return c;
        }
      }
      return Integer.compare(x.size(), y.size());
    }
  }
}
