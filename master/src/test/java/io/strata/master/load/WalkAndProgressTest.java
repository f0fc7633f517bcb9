package io.strata.master.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.proto.FileStatus;
import io.strata.core.proto.LoadCounters;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The load job's walk order, resumption after a cursor, and checkpoint accounting. */
class WalkAndProgressTest {
  /** A tree of folders: path → sorted children. */
  private final Map<String, List<FileStatus>> tree = new TreeMap<>();

  private final List<String> listed = new ArrayList<>();

  private void file(String path) {
    String parent = path.substring(0, path.lastIndexOf('/'));
    String name = path.substring(path.lastIndexOf('/') + 1);
    if (!tree.containsKey(parent) && !parent.equals("/r")) {
      dir(parent);
    }
    add(parent, FileStatus.newBuilder().setPath(path).setName(name).setLength(10).build());
  }

  private void dir(String path) {
    String parent = path.substring(0, path.lastIndexOf('/'));
    if (!tree.containsKey(parent) && !parent.equals("/r")) {
      dir(parent);
    }
    tree.put(path, new ArrayList<>());
    add(
        parent,
        FileStatus.newBuilder()
            .setPath(path)
            .setName(path.substring(path.lastIndexOf('/') + 1))
            .setDirectory(true)
            .build());
  }

  private void add(String parent, FileStatus s) {
    List<FileStatus> children = tree.computeIfAbsent(parent, k -> new ArrayList<>());
    children.add(s);
    children.sort((a, b) -> a.getName().compareTo(b.getName()));
  }

  private List<String> walk(String cursor) {
    listed.clear();
    List<String> out = new ArrayList<>();
    Iterator<FileStatus> w =
        new TreeWalker(
            p -> {
              listed.add(p);
              return tree.getOrDefault(p, List.of()).iterator();
            },
            "/r",
            cursor);
    w.forEachRemaining(s -> out.add(s.getPath()));
    return out;
  }

  @Test
  void walk_isDepthFirstInNameOrder_andResumesAfterTheCursorWithoutListingDoneFolders() {
    for (String p : List.of("/r/a/x", "/r/a/y", "/r/b/c/z", "/r/b/d", "/r/e", "/r/a10/q")) {
      file(p);
    }
    assertThat(walk(""))
        .containsExactly("/r/a/x", "/r/a/y", "/r/a10/q", "/r/b/c/z", "/r/b/d", "/r/e");
    assertThat(walk("/r/a10/q")).containsExactly("/r/b/c/z", "/r/b/d", "/r/e");
    assertThat(listed).as("folders wholly before the cursor are not listed").doesNotContain("/r/a");
    assertThat(walk("/r/b/c/z")).containsExactly("/r/b/d", "/r/e");
    assertThat(walk("/r/e")).isEmpty();
  }

  @Test
  void checkpoint_movesOnlyOverAnUnbrokenRunOfFinishedFiles() {
    Progress p =
        new Progress(LoadCounters.newBuilder().setFiles(5).setBytes(50).build(), "/r/before");
    p.finish(1, new Progress.Finished("/r/b", 10, 10, null, false));
    p.finish(2, new Progress.Finished("/r/c", 10, 0, "gone", false));
    assertThat(p.cursor()).isEqualTo("/r/before");
    assertThat(p.committed().getFiles()).isEqualTo(5);
    assertThat(p.live().getFiles()).isEqualTo(7);
    p.finish(0, new Progress.Finished("/r/a", 10, 10, null, false));
    assertThat(p.cursor()).isEqualTo("/r/c");
    assertThat(p.committed().getFiles()).isEqualTo(8);
    assertThat(p.committed().getFilesFailed()).isEqualTo(1);
    assertThat(p.committed().getBytesLoaded()).isEqualTo(20);
    assertThat(p.live()).isEqualTo(p.committed());
    assertThat(p.takeNewFailures()).hasSize(1);
    assertThat(p.takeNewFailures()).isEmpty();
  }
}
