package io.strata.s3;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The keys of a bucket in S3's order (UTF-8 bytes of the whole key), from a walk of its folders,
 * each read a page at a time from its worker and put in S3's order ({@link S3Order}), so that
 * everything below a folder comes out together. A folder's listing starts at the prefix's or the
 * marker's place in it and stops past the prefix; only folders that can hold a key after the marker
 * and under the prefix are entered; with the delimiter '/' none is entered, a folder being one
 * common prefix. Other delimiters group the keys the walk finds.
 */
final class KeyListing {
  /** A listing's page: keys with their versions, common prefixes, and where the next starts. */
  record Page(List<Entry> contents, List<String> prefixes, boolean truncated, String last) {}

  record Entry(String key, FileInfo info) {}

  /**
   * Entries asked of a worker at a time: a page of a listing reads its folders' entries in pages of
   * this size, so that no folder is held whole here, however large.
   */
  private static final int PAGE = 1000;

  private final FileSystem fs;

  KeyListing(FileSystem fs) {
    this.fs = fs;
  }

  /**
   * @param after keys up to and including this one are left out ("" for none)
   * @param delimiter "" for none
   */
  Page list(String bucket, String prefix, String delimiter, String after, int max) {
    Walk walk = new Walk(prefix, delimiter, after, max);
    String base = prefix.substring(0, prefix.lastIndexOf('/') + 1);
    String folder = S3Names.bucketPath(bucket) + (base.isEmpty() ? "" : "/" + trimSlash(base));
    walk.folder(folder, base);
    return new Page(walk.contents, walk.prefixes, walk.truncated, walk.last);
  }

  private final class Walk {
    final String prefix;
    final String delimiter;
    final String after;
    final int max;
    final List<Entry> contents = new ArrayList<>();
    final List<String> prefixes = new ArrayList<>();
    boolean truncated;
    String last;

    Walk(String prefix, String delimiter, String after, int max) {
      this.prefix = prefix;
      this.delimiter = delimiter;
      this.after = after;
      this.max = max;
    }

    /** Lists {@code path}, whose keys start with {@code keyPrefix}; false once the page is full. */
    boolean folder(String path, String keyPrefix) {
      Iterator<FileInfo> entries;
      try {
        entries = S3Order.of(fs.listStatusPaged(path, nameStart(keyPrefix), PAGE));
      } catch (StrataException e) {
        if (e.code() == StatusCode.NOT_FOUND || e.code() == StatusCode.NOT_A_DIRECTORY) {
          return true;
        }
        throw e;
      }
      while (entries.hasNext()) {
        FileInfo f = entries.next();
        String key = keyPrefix + S3Order.sortName(f);
        // A folder on the way to the prefix is entered; a file is a key only under it.
        if (!key.startsWith(prefix) && !(f.directory() && prefix.startsWith(key))) {
          if (S3Order.compare(key, prefix) > 0) {
            // Past every key under the prefix: so is the rest of the folder.
            return true;
          }
          continue;
        }
        if (f.directory()) {
          int cut = commonPrefixEnd(key);
          if (cut > 0) {
            if (!add(null, key.substring(0, cut))) {
              return false;
            }
            continue;
          }
          // Below a folder every key is after the marker unless the marker is in it or past it.
          if (S3Order.compare(key, after) <= 0 && !after.startsWith(key) && !after.isEmpty()) {
            continue;
          }
          if (!folder(path + "/" + f.name(), key)) {
            return false;
          }
        } else {
          int cut = commonPrefixEnd(key);
          if (!add(cut > 0 ? null : new Entry(key, f), cut > 0 ? key.substring(0, cut) : null)) {
            return false;
          }
        }
      }
      return true;
    }

    /**
     * The name after which the listing of the folder of keys {@code keyPrefix} starts: nothing
     * before the prefix's or the marker's place in it is asked of its worker.
     */
    private String nameStart(String keyPrefix) {
      String start = "";
      if (prefix.startsWith(keyPrefix)) {
        start = S3Order.nameStartFor(prefix.substring(keyPrefix.length()));
      }
      if (!after.isEmpty() && after.startsWith(keyPrefix)) {
        String fromMarker = S3Order.nameStartFor(after.substring(keyPrefix.length()));
        if (fromMarker.compareTo(start) > 0) {
          start = fromMarker;
        }
      }
      return start;
    }

    /** Where the common prefix of {@code key} ends (after the delimiter), or 0 if none. */
    private int commonPrefixEnd(String key) {
      if (delimiter.isEmpty() || !key.startsWith(prefix)) {
        return 0;
      }
      int at = key.indexOf(delimiter, prefix.length());
      return at < 0 ? 0 : at + delimiter.length();
    }

    /** Adds a key or a common prefix past the marker; false once the page is full. */
    private boolean add(Entry entry, String commonPrefix) {
      String name = entry != null ? entry.key() : commonPrefix;
      if (!after.isEmpty() && S3Order.compare(name, after) <= 0) {
        return true;
      }
      if (commonPrefix != null
          && !prefixes.isEmpty()
          && prefixes.get(prefixes.size() - 1).equals(commonPrefix)) {
        return true;
      }
      if (contents.size() + prefixes.size() >= max) {
        truncated = true;
        return false;
      }
      if (entry != null) {
        contents.add(entry);
      } else {
        prefixes.add(commonPrefix);
      }
      last = name;
      return true;
    }
  }

  private static String trimSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }
}
