package io.strata.fuse;

import static io.strata.fuse.OpenAccess.READ;
import static io.strata.fuse.OpenAccess.WRITE;
import static org.assertj.core.api.Assertions.assertThat;

import io.strata.client.FileInfo;
import io.strata.core.proto.PosixAttributes;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class OpenAccessTest {
  private static final int ALICE = 4001;
  private static final int MALLORY = 4002;
  private static final int STAFF = 50;
  private final Identities ids = new Identities("", "");
  private final AtomicInteger groupReads = new AtomicInteger();

  @Test
  void flagsAskReadWriteOrBoth() {
    assertThat(OpenAccess.asked(0)).isEqualTo(READ);
    assertThat(OpenAccess.asked(01 | 01000)).isEqualTo(WRITE);
    assertThat(OpenAccess.asked(02 | 02000)).isEqualTo(READ | WRITE);
  }

  @Test
  void theOwnersBitsDecideForTheOwner_evenWhereOthersMayMore() {
    FileInfo f = file(ALICE, STAFF, 0066);
    assertThat(permits(ALICE, ALICE, List.of(), f, READ)).isFalse();
    assertThat(permits(MALLORY, MALLORY, List.of(), f, READ | WRITE)).isTrue();
  }

  @Test
  void aPrivateFileOfAnother_isRefusedForReadAndWrite() {
    FileInfo f = file(ALICE, ALICE, 0600);
    assertThat(permits(MALLORY, MALLORY, List.of(), f, READ)).isFalse();
    assertThat(permits(MALLORY, MALLORY, List.of(), f, WRITE)).isFalse();
    assertThat(permits(ALICE, ALICE, List.of(), f, READ | WRITE)).isTrue();
  }

  /** Ids past 2^31 are the kernel's unsigned 32-bit numbers, as the request names the caller. */
  @Test
  void anOwnerWhoseIdIsPastTwoToTheThirtyFirst_isTheOwner() {
    long big = 3_000_000_000L;
    FileInfo f = file((int) big, (int) big, 0600);
    assertThat(Attributes.uid(f, ids)).isEqualTo(big);
    assertThat(permits(big, big, List.of(), f, READ | WRITE)).isTrue();
    assertThat(permits(MALLORY, MALLORY, List.of((int) big), file(ALICE, (int) big, 0640), READ))
        .isTrue();
  }

  @Test
  void rootMayReadAndWriteAnything() {
    assertThat(permits(0, 0, List.of(), file(ALICE, ALICE, 0), READ | WRITE)).isTrue();
  }

  @Test
  void theGroupsBitsDecideForItsMembers_primaryOrSupplementary() {
    FileInfo f = file(ALICE, STAFF, 0640);
    assertThat(permits(MALLORY, STAFF, List.of(), f, READ)).isTrue();
    assertThat(permits(MALLORY, STAFF, List.of(), f, WRITE)).isFalse();
    assertThat(permits(MALLORY, MALLORY, List.of(STAFF), f, READ)).isTrue();
    assertThat(permits(MALLORY, MALLORY, List.of(7), f, READ)).isFalse();
  }

  @Test
  void groupsAreReadOnlyWhereTheyDecide() {
    assertThat(permits(MALLORY, MALLORY, List.of(STAFF), file(ALICE, STAFF, 0644), READ)).isTrue();
    assertThat(permits(MALLORY, MALLORY, List.of(STAFF), file(ALICE, STAFF, 0600), READ)).isFalse();
    assertThat(groupReads).hasValue(0);
    permits(MALLORY, MALLORY, List.of(STAFF), file(ALICE, STAFF, 0640), READ);
    assertThat(groupReads).hasValue(1);
  }

  @Test
  void aStoreWithoutPosixAttributes_isCheckedOnWhatTheKernelIsShown() {
    // No mode: shown 0644, owned by the local account of the owner's name (unknown: this one).
    FileInfo f = new FileInfo("/f", "f", false, 1, 0, 0, "", "", "fp", "/f", 0);
    long shownOwner = Attributes.uid(f, ids);
    assertThat(permits(shownOwner == 0 ? 1 : shownOwner, -1, List.of(), f, READ)).isTrue();
    assertThat(permits(shownOwner + 1, -1, List.of(), f, WRITE)).isFalse();
  }

  private boolean permits(long uid, long gid, List<Integer> groups, FileInfo f, int asked) {
    Supplier<List<Integer>> counted =
        () -> {
          groupReads.incrementAndGet();
          return groups;
        };
    return OpenAccess.permits(uid, gid, counted, f, ids, asked);
  }

  private static FileInfo file(int uid, int gid, int mode) {
    PosixAttributes p =
        PosixAttributes.newBuilder().setUid(uid).setGid(gid).setMode(0100000 | mode).build();
    return new FileInfo("/f", "f", false, 1, 0, mode, "", "", "fp", "/f", 0, p, false);
  }
}
