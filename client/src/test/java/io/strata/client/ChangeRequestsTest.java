package io.strata.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.proto.FileType;
import io.strata.core.proto.TimeChange;
import org.junit.jupiter.api.Test;

class ChangeRequestsTest {
  @Test
  void whatTheCallerLeavesAsItIs_isLeftOut_andModesKeepOnlyTheirPermissionBits() {
    var mkdir = ChangeRequests.mkdir("/a//b/", true, new NewEntry(0100755, -1, 7));
    assertThat(mkdir.getPath()).isEqualTo("/a/b");
    assertThat(mkdir.getMode()).isEqualTo(0755);
    assertThat(mkdir.hasUid()).isFalse();
    assertThat(mkdir.getGid()).isEqualTo(7);
    assertThat(ChangeRequests.mkdir("/a", false, NewEntry.DEFAULT).hasMode()).isFalse();

    var ids = ChangeRequests.ownerIds("/f", 5, -1);
    assertThat(ids.getUid()).isEqualTo(5);
    assertThat(ids.hasGid()).isFalse();
    assertThat(ChangeRequests.mode("/f", 0104755).getMode()).isEqualTo(04755);

    var times =
        ChangeRequests.times(
            "/f", TimeChange.getDefaultInstance(), TimeChange.newBuilder().setNow(true).build());
    assertThat(times.hasAtime()).isFalse();
    assertThat(times.getMtime().getNow()).isTrue();
  }

  @Test
  void nodesAndXattrs_sayWhatTheyAre() {
    var link = ChangeRequests.hardLink("/x/./a", "/x/b");
    assertThat(link.getLinkTo()).isEqualTo("/x/a");
    assertThat(link.getType()).isEqualTo(FileType.REGULAR);

    var fifo = ChangeRequests.special("/p", FileType.FIFO, 0, NewEntry.DEFAULT);
    assertThat(fifo.getMode()).as("no mode given: none but the type").isZero();
    assertThat(fifo.hasUid()).isFalse();

    var symlink = ChangeRequests.symlink("/s", "../t", new NewEntry(-1, 3, 4));
    assertThat(symlink.getSymlinkTarget()).isEqualTo("../t");
    assertThat(symlink.getUid()).isEqualTo(3);

    assertThat(ChangeRequests.xattr("/f", "user.k", null).hasValue())
        .as("a null value removes the attribute")
        .isFalse();
    assertThat(ChangeRequests.xattr("/f", "user.k", new byte[] {1}).getValue().size()).isOne();
  }
}
