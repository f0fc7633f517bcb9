package io.strata.master.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FolderListingTest {
  private static final int CHILDREN = 2 * FolderListing.PAGE + 17;
  private final List<FileStatus> children = new ArrayList<>();
  private final List<String> asked = new ArrayList<>();
  private final Set<String> dead = new HashSet<>();
  private final List<WorkerInfo> owners = List.of(worker("w1"), worker("w2"), worker("w3"));

  FolderListingTest() {
    for (int i = 0; i < CHILDREN; i++) {
      String name = String.format("f%05d", i);
      children.add(FileStatus.newBuilder().setName(name).setPath("/d/" + name).build());
    }
  }

  private static WorkerInfo worker(String id) {
    return WorkerInfo.newBuilder().setId(id).build();
  }

  /** Serves pages like a worker does: sorted children after startAfter, at most limit. */
  private List<FileStatus> page(WorkerInfo w, String folder, String startAfter, int limit) {
    asked.add(w.getId() + ":" + startAfter);
    if (dead.contains(w.getId())) {
      throw StrataException.unavailable("worker " + w.getId() + " is down", null);
    }
    return children.stream()
        .filter(c -> c.getName().compareTo(startAfter) > 0)
        .limit(limit)
        .toList();
  }

  private List<String> names(FolderListing listing) {
    List<String> out = new ArrayList<>();
    listing.forEachRemaining(s -> out.add(s.getName()));
    return out;
  }

  @Test
  void listsEveryChildOnce_inPages_fromTheOwner() {
    List<String> got = names(new FolderListing("/d", () -> owners, this::page));
    assertThat(got).hasSize(CHILDREN).doesNotHaveDuplicates().isSorted();
    assertThat(asked).containsExactly("w1:", "w1:f00999", "w1:f01999");
  }

  /** Serves a tree's files like a worker does: by full path, after startAfter, at most limit. */
  private List<FileStatus> treePage(WorkerInfo w, String folder, String startAfter, int limit) {
    asked.add(w.getId() + ":" + startAfter);
    return children.stream()
        .filter(c -> c.getPath().compareTo(startAfter) > 0)
        .limit(limit)
        .toList();
  }

  @Test
  void aTree_isPagedByFullPath_andResumesAfterItsCursor() {
    List<String> all = names(FolderListing.tree("/d", () -> owners, this::treePage, ""));
    assertThat(all).hasSize(CHILDREN).doesNotHaveDuplicates().isSorted();
    assertThat(asked)
        .as("a small first page, each next twice the last up to a full one")
        .containsExactly("w1:", "w1:/d/f00099", "w1:/d/f00299", "w1:/d/f00699", "w1:/d/f01499");
    asked.clear();
    List<String> rest = names(FolderListing.tree("/d", () -> owners, this::treePage, "/d/f01500"));
    assertThat(rest).hasSize(CHILDREN - 1501).first().isEqualTo("f01501");
    assertThat(asked).containsExactly("w1:/d/f01500", "w1:/d/f01600", "w1:/d/f01800");
  }

  @Test
  void aPageTheOwnerCannotServe_comesFromTheNextWorker_andNothingIsMissed() {
    FolderListing listing = new FolderListing("/d", () -> owners, this::page);
    List<String> got = new ArrayList<>();
    for (int i = 0; i < FolderListing.PAGE + 5; i++) {
      got.add(listing.next().getName());
    }
    dead.add("w1");
    listing.forEachRemaining(s -> got.add(s.getName()));
    assertThat(got).hasSize(CHILDREN).doesNotHaveDuplicates().isSorted();
    assertThat(asked).contains("w1:f00999", "w2:f01999");
  }

  @Test
  void whenNoOwnerAnswers_theListingFailsWithTheLastError_andARefusalIsNotRetried() {
    dead.addAll(List.of("w1", "w2", "w3"));
    assertThatThrownBy(() -> new FolderListing("/d", () -> owners, this::page).hasNext())
        .isInstanceOfSatisfying(
            StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.UNAVAILABLE))
        .hasMessageContaining("w3");
    asked.clear();
    FolderListing.PageSource refusing =
        (w, f, after, limit) -> {
          asked.add(w.getId());
          throw StrataException.notFound(f + " does not exist");
        };
    assertThatThrownBy(() -> new FolderListing("/d", () -> owners, refusing).hasNext())
        .hasMessageContaining("does not exist");
    assertThat(asked).containsExactly("w1");
  }
}
