package io.strata.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PagedListingTest {
  private static FileInfo entry(int i) {
    String name = String.format("n%03d", i);
    return new FileInfo("/d/" + name, name, false, 0, 0, 0644, "", "", "f", "", -1);
  }

  /** A folder of {@code size} entries, paged as a worker pages it; records each call. */
  private static List<FileInfo> page(int size, int limit, String after, List<String> calls) {
    calls.add(after);
    return IntStream.range(0, size)
        .mapToObj(PagedListingTest::entry)
        .filter(e -> e.name().compareTo(after) > 0)
        .limit(limit)
        .toList();
  }

  private static List<String> names(int size, int pageSize, List<String> calls) {
    PagedListing it = new PagedListing(pageSize, "", after -> page(size, pageSize, after, calls));
    List<String> names = new ArrayList<>();
    it.forEachRemaining(e -> names.add(e.name()));
    return names;
  }

  @Test
  void everyEntryComesOnce_inOrder_aPageACall() {
    List<String> calls = new ArrayList<>();
    assertThat(names(25, 10, calls)).hasSize(25).doesNotHaveDuplicates().isSorted();
    assertThat(calls).containsExactly("", "n009", "n019");
  }

  @Test
  void aFolderOfWholePages_endsWithOneEmptyPage_andAnEmptyFolderWithOneCall() {
    List<String> calls = new ArrayList<>();
    assertThat(names(20, 10, calls)).hasSize(20);
    assertThat(calls).containsExactly("", "n009", "n019");
    calls.clear();
    assertThat(names(0, 10, calls)).isEmpty();
    assertThat(calls).containsExactly("");
  }
}
