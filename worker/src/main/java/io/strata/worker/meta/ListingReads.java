package io.strata.worker.meta;

import com.google.common.collect.Iterators;
import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.ufs.UfsStatus;
import io.strata.worker.ufs.UfsManager.Resolved;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads a folder's listing from its under-storage into the cache: in memory, sorted by name, when
 * it holds at most {@link MetadataCache#maxCachedListing} entries; else as rows in the store, which
 * sorts them, so that memory never holds more than that many entries and a batch of rows, however
 * long the folder.
 */
final class ListingReads {
  private final MetadataCache cache;

  ListingReads(MetadataCache cache) {
    this.cache = cache;
  }

  /**
   * Reads the listing of {@code path} (resolved to {@code r}) as of {@code loadedAt} and caches it:
   * its children if it is short enough for memory, else null (its rows are stored: {@link
   * MetadataCache#putLargeListing}).
   */
  List<FileStatus> read(StrataPath path, Resolved r, long loadedAt) {
    boolean listedOnly = !r.ufs().listsAttributes();
    try (Stream<UfsStatus> stream = r.ufs().list(r.ufsPath())) {
      Iterator<FileStatus> entries =
          stream
              .map(s -> s.toProto(path.child(s.name()), r.ufsUri() + "/" + s.name(), listedOnly))
              .iterator();
      List<FileStatus> children = new ArrayList<>();
      while (entries.hasNext() && children.size() <= cache.maxCachedListing()) {
        children.add(entries.next());
      }
      if (children.size() <= cache.maxCachedListing()) {
        children.sort(Comparator.comparing(FileStatus::getName));
        List<FileStatus> sorted = List.copyOf(children);
        cache.putListing(r.ufsUri(), sorted, loadedAt);
        return sorted;
      }
      cache.putLargeListing(r.ufsUri(), Iterators.concat(children.iterator(), entries), loadedAt);
      return null;
    }
  }
}
