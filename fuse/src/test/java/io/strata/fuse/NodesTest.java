package io.strata.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The kernel's node ids and the paths they stand for, through renames, links and forgets. */
class NodesTest {
  private final Nodes nodes = new Nodes();

  private long folder(long parent, String name) {
    return nodes.looked(parent, name, 0, 1, true);
  }

  @Test
  void aRenamedFolder_movesWhatIsBelowIt() {
    long a = folder(Nodes.ROOT, "a");
    long b = folder(a, "b");
    long f = nodes.looked(b, "f", 11, 1, false);
    assertThat(nodes.path(f)).isEqualTo("/a/b/f");
    nodes.renamed(Nodes.ROOT, "a", Nodes.ROOT, "z");
    assertThat(nodes.path(f)).isEqualTo("/z/b/f");
    assertThat(nodes.child(b, "g")).isEqualTo("/z/b/g");
    assertThat(nodes.looked(Nodes.ROOT, "z", 0, 1, true)).isEqualTo(a);
  }

  @Test
  void hardLinks_shareTheirInodesNode_untilTheirNamesAreGone() {
    long one = nodes.looked(Nodes.ROOT, "one", 42, 2, false);
    long two = nodes.looked(Nodes.ROOT, "two", 42, 2, false);
    assertThat(two).isEqualTo(one);
    assertThat(nodes.path(one)).isEqualTo("/two");
    nodes.removed(Nodes.ROOT, "two");
    assertThat(nodes.path(one)).isEqualTo("/one");
    nodes.removed(Nodes.ROOT, "one");
    assertThat(nodes.path(one)).as("no name leads to it").isNull();
    // Its inode number given to a new file: a node of its own.
    assertThat(nodes.looked(Nodes.ROOT, "new", 42, 2, false)).isNotEqualTo(one);
    // One link only, or a folder: never shared.
    assertThat(nodes.looked(Nodes.ROOT, "x", 7, 1, false))
        .isNotEqualTo(nodes.looked(Nodes.ROOT, "y", 7, 1, false));
  }

  @Test
  void aLinkMade_joinsTheLinkedNode_evenOneLookedUpWithOneLink() {
    long one = nodes.looked(Nodes.ROOT, "one", 42, 1, false);
    assertThat(nodes.linked(one, Nodes.ROOT, "two", 42)).isEqualTo(one);
    assertThat(nodes.looked(Nodes.ROOT, "three", 42, 3, false)).isEqualTo(one);
    nodes.removed(Nodes.ROOT, "two");
    nodes.removed(Nodes.ROOT, "three");
    assertThat(nodes.path(one)).isEqualTo("/one");
  }

  @Test
  void aNodeForgottenAsOftenAsLookedUp_isGone_andARenameOverANameUnlinksIt() {
    long f = nodes.looked(Nodes.ROOT, "f", 5, 1, false);
    nodes.looked(Nodes.ROOT, "f", 5, 1, false);
    long g = nodes.looked(Nodes.ROOT, "g", 6, 1, false);
    nodes.forget(f, 1);
    assertThat(nodes.path(f)).isEqualTo("/f");
    nodes.renamed(Nodes.ROOT, "g", Nodes.ROOT, "f");
    assertThat(nodes.path(g)).isEqualTo("/f");
    assertThat(nodes.path(f)).as("replaced by the rename").isNull();
    nodes.forget(f, 1);
    assertThat(nodes.size()).isEqualTo(2);
  }
}
