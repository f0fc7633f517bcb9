package io.strata.s3;

import io.strata.client.FileInfo;
import io.strata.client.FileSystem;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The keys of a bucket in S3's order (UTF-8 bytes of the whole key), from a walk of its folders: a
 * folder's entries sorted with a folder named as its key prefix ("name/"), so that everything below
 * a folder comes out together, after "name-x" and before "name0". Only folders that can hold a key
 * after the marker and under the prefix are entered; with the delimiter '/' none is entered, a
 * folder being one common prefix. Other delimiters group the keys the walk finds.
 */
final class KeyListing {
  /** A listing's page: keys with their versions, common prefixes, and where the next starts. */
  record Page(List<Entry> contents, List<String> prefixes, boolean truncated, String last) {}

  record Entry(String key, FileInfo info) {}

  private static final Comparator<FileInfo> S3_ORDER =
      Comparator.comparing(KeyListing::sortName, KeyListing::compareUtf8);

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
      List<FileInfo> entries;
      try {
        entries = new ArrayList<>(fs.listStatus(path));
      } catch (StrataException e) {
        if (e.code() == StatusCode.NOT_FOUND || e.code() == StatusCode.NOT_A_DIRECTORY) {
          return true;
        }
        throw e;
      }
      entries.sort(S3_ORDER);
      for (FileInfo f : entries) {
        String key = keyPrefix + f.name();
        if (f.directory()) {
          String folderKey = key + "/";
          if (!folderKey.startsWith(prefix) && !prefix.startsWith(folderKey)) {
            continue;
          }
          int cut = commonPrefixEnd(folderKey);
          if (cut > 0) {
            if (!add(null, folderKey.substring(0, cut))) {
              return false;
            }
            continue;
          }
          // Below a folder every key is after the marker unless the marker is in it or past it.
          if (compareUtf8(folderKey, after) <= 0
              && !after.startsWith(folderKey)
              && !after.isEmpty()) {
            continue;
          }
          if (!folder(path + "/" + f.name(), folderKey)) {
            return false;
          }
        } else if (key.startsWith(prefix)) {
          int cut = commonPrefixEnd(key);
          if (!add(cut > 0 ? null : new Entry(key, f), cut > 0 ? key.substring(0, cut) : null)) {
            return false;
          }
        }
      }
      return true;
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
      if (!after.isEmpty() && compareUtf8(name, after) <= 0) {
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

  private static String sortName(FileInfo f) {
    return f.directory() ? f.name() + "/" : f.name();
  }

  private static String trimSlash(String s) {
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  /** Compares as S3 orders keys: by their UTF-8 bytes (code points, not UTF-16 units). */
  static int compareUtf8(String a, String b) {
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
}
