package io.strata.s3;

import io.strata.client.FileInfo;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * S3's order of keys (their UTF-8 bytes), for a folder whose entries come in name order, as a
 * worker pages them: a folder sorts as its key prefix ("name/"), so after "name-x" and before
 * "name0", and waits until the entries that sort before it have passed.
 *
 * <p>Workers sort names as Java strings (UTF-16 units), which differs from UTF-8 bytes only between
 * characters outside the Basic Multilingual Plane and U+E000..U+FFFF; keys that mix those in one
 * folder come out in the workers' order.
 */
final class S3Order {
  private S3Order() {}

  /** Compares as S3 orders keys: by their UTF-8 bytes (code points, not UTF-16 units). */
  static int compare(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  /** An entry's key below its folder: a folder's name with the delimiter after it. */
  static String sortName(FileInfo f) {
    return f.directory() ? f.name() + "/" : f.name();
  }

  /**
   * Where a name-ordered listing must start (the names after the result, "" for all) so that no
   * entry whose key sorts after {@code marker} is skipped, {@code marker} being a key relative to
   * the folder. A folder whose name is a prefix of the marker followed by a character below '/'
   * ("a" for the marker "a-b") sorts after the marker ("a/" &gt; "a-b") though its name sorts
   * before it: the start is before the shortest such name. Names between the start and the marker
   * come too; the caller leaves them out by their keys.
   */
  static String nameStartFor(String marker) {
    int end = marker.indexOf('/');
    String component = end < 0 ? marker : marker.substring(0, end);
    int cut = component.length();
    for (int i = 0; i < component.length(); i++) {
      if (component.charAt(i) < '/') {
        cut = i;
        break;
      }
    }
    // Exclusive: one character shorter than the least name that may follow.
    return cut == 0 ? "" : component.substring(0, cut - 1);
  }

  /** {@code byName}'s entries in S3's order; holds only folders waiting for their place. */
  static Iterator<FileInfo> of(Iterator<FileInfo> byName) {
    return new Reordered(byName);
  }

  private static final class Reordered implements Iterator<FileInfo> {
    private final Iterator<FileInfo> byName;

    /**
     * Folders not yet passed, the least key on top: one waits while the names after it start with
     * its own name and a character below '/', so this holds a chain of such names, rarely more than
     * one.
     */
    private final Deque<FileInfo> waiting = new ArrayDeque<>();

    private FileInfo lookahead;
    private FileInfo next;

    Reordered(Iterator<FileInfo> byName) {
      this.byName = byName;
    }

    @Override
    public boolean hasNext() {
      if (next == null) {
        next = advance();
      }
      return next != null;
    }

    @Override
    public FileInfo next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      FileInfo f = next;
      next = null;
      return f;
    }

    private FileInfo advance() {
      while (true) {
        if (lookahead == null && byName.hasNext()) {
          lookahead = byName.next();
        }
        if (lookahead == null) {
          return waiting.poll();
        }
        FileInfo top = waiting.peek();
        if (top != null && compare(sortName(top), sortName(lookahead)) < 0) {
          return waiting.pop();
        }
        FileInfo f = lookahead;
        lookahead = null;
        // Every later name sorts after this one, and so does its key: a file can go now.
        if (!f.directory()) {
          return f;
        }
        waiting.push(f);
      }
    }
  }
}
