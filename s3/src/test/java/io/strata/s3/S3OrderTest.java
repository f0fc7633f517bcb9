package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.FileInfo;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * A folder's entries, as a worker pages them in name order, come out in S3's key order; a listing
 * started where {@link S3Order#nameStartFor} says misses no key after the marker.
 */
class S3OrderTest {
  private static FileInfo entry(String name, boolean folder) {
    return new FileInfo("/b/" + name, name, folder, 0, 0, 0644, "", "", "f", "", -1);
  }

  /** Names made of the characters around '/' in the order that matter: '-', '.', '0', 'a'. */
  @Provide
  Arbitrary<SortedMap<String, Boolean>> folders() {
    Arbitrary<String> names =
        Arbitraries.strings().withChars("-.0a!").ofMinLength(1).ofMaxLength(4);
    return Arbitraries.maps(names, Arbitraries.of(true, false))
        .ofMaxSize(30)
        .map(m -> (SortedMap<String, Boolean>) new TreeMap<>(m));
  }

  private static List<FileInfo> byName(SortedMap<String, Boolean> folder) {
    List<FileInfo> entries = new ArrayList<>();
    folder.forEach((name, isFolder) -> entries.add(entry(name, isFolder)));
    return entries;
  }

  private static List<String> keys(List<FileInfo> entries) {
    return entries.stream().map(S3Order::sortName).toList();
  }

  @Property
  void entriesInNameOrder_comeOutInKeyOrder(@ForAll("folders") SortedMap<String, Boolean> folder) {
    List<FileInfo> entries = byName(folder);
    List<String> out = new ArrayList<>();
    S3Order.of(entries.iterator()).forEachRemaining(f -> out.add(S3Order.sortName(f)));
    List<String> sorted = new ArrayList<>(keys(entries));
    sorted.sort(S3Order::compare);
    assertThat(out).isEqualTo(sorted);
  }

  @Property
  void aListingStartedForAMarker_holdsEveryKeyAfterIt(
      @ForAll("folders") SortedMap<String, Boolean> folder,
      @ForAll("folders") SortedMap<String, Boolean> markers) {
    List<FileInfo> entries = byName(folder);
    Set<String> candidates = new java.util.TreeSet<>(markers.keySet());
    // Markers inside a folder of the listing, too ("a/x": the listing must enter "a").
    folder.forEach((name, isFolder) -> candidates.add(name + "/x"));
    for (String marker : candidates) {
      String start = S3Order.nameStartFor(marker);
      List<String> listed =
          keys(entries.stream().filter(f -> f.name().compareTo(start) > 0).toList());
      for (String key : keys(entries)) {
        boolean needed =
            S3Order.compare(key, marker) > 0 || (key.endsWith("/") && marker.startsWith(key));
        if (needed) {
          assertThat(listed).as("marker %s, start after '%s'", marker, start).contains(key);
        }
      }
    }
  }

  @Test
  void aFolderWaitsForTheNamesThatSortBeforeItsKey() {
    List<FileInfo> entries =
        List.of(entry("a", true), entry("a-b", true), entry("a.c", false), entry("a0", false));
    List<String> out = new ArrayList<>();
    S3Order.of(entries.iterator()).forEachRemaining(f -> out.add(S3Order.sortName(f)));
    assertThat(out).containsExactly("a-b/", "a.c", "a/", "a0");
    assertThat(S3Order.nameStartFor("a-b/x")).isEqualTo("");
    assertThat(S3Order.nameStartFor("ab-c")).isEqualTo("a");
    assertThat(S3Order.nameStartFor("abc/d")).isEqualTo("ab");
    assertThat(S3Order.compare("\uFFFF", "\uD83D\uDE00")).isNegative();
    assertThat(Comparator.<String>naturalOrder().compare("\uFFFF", "\uD83D\uDE00")).isPositive();
  }
}
