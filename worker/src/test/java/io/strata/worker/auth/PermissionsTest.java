package io.strata.worker.auth;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StrataException;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** HDFS's rules on a small tree: owner, group, other; search above; superusers and the switch. */
class PermissionsTest {
  private static final Principal ALICE = new Principal("alice", Role.USER);
  private static final Principal BOB = new Principal("bob", Role.USER);
  private final Map<String, FileStatus> tree = new HashMap<>();
  private final AtomicBoolean enabled = new AtomicBoolean(true);
  private final Permissions access =
      new Permissions(
          p -> {
            FileStatus st = tree.get(p.toString());
            if (st == null) {
              throw StrataException.notFound(p + " does not exist");
            }
            return st;
          },
          enabled::get,
          () -> "admins",
          user -> user.equals("bob") ? Set.of("data", "admins") : Set.of("data"));

  PermissionsTest() {
    entry("/", "root", "root", 0755);
    entry("/home", "root", "root", 0755);
    entry("/home/alice", "alice", "alice", 0700);
    entry("/home/alice/notes", "alice", "alice", 0600);
    entry("/data", "etl", "data", 0770);
    entry("/data/table", "etl", "data", 0640);
  }

  private void entry(String path, String owner, String group, int mode) {
    tree.put(
        path,
        FileStatus.newBuilder()
            .setPath(path)
            .setOwner(owner)
            .setGroup(group)
            .setMode(mode)
            .build());
  }

  @Test
  void ownerGroupAndOtherBitsDecide() {
    assertThatCode(() -> check(ALICE, "/home/alice/notes", Permissions.READ))
        .doesNotThrowAnyException();
    assertThatCode(() -> check(ALICE, "/data/table", Permissions.READ)).doesNotThrowAnyException();
    assertThatThrownBy(() -> check(ALICE, "/data/table", Permissions.WRITE))
        .hasMessageContaining("alice lacks w (owner etl, group data, mode 0640)");
    entry("/home/carol", "carol", "carol", 0755);
    entry("/home/carol/plan", "carol", "carol", 0604);
    assertThatCode(() -> check(ALICE, "/home/carol/plan", Permissions.READ))
        .doesNotThrowAnyException();
  }

  @Test
  void everyFolderAboveNeedsSearch() {
    Principal eve = new Principal("eve", Role.USER);
    assertThatThrownBy(() -> check(eve, "/home/alice/notes", 0))
        .hasMessageContaining("eve lacks x on /home/alice");
  }

  @Test
  void creatingNeedsWriteOnTheNearestFolderThatExists() {
    assertThatCode(() -> access.checkParent(ALICE, StrataPath.of("/home/alice/a/b/c"), "mkdir"))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> access.checkParent(ALICE, StrataPath.of("/home/new"), "mkdir"))
        .hasMessageContaining("mkdir /home/new: alice lacks wx on /home");
  }

  @Test
  void nobodyCheckedRemovesTheRoot_andAStickyFolderKeepsOthersFiles() {
    assertThatThrownBy(() -> access.checkRemove(ALICE, StrataPath.ROOT, "delete"))
        .hasMessageContaining("alice may not delete the root folder");
    entry("/tmp", "root", "root", 01777);
    entry("/tmp/carols", "carol", "carol", 0644);
    entry("/tmp/alices", "alice", "alice", 0644);
    assertThatThrownBy(() -> access.checkRemove(ALICE, StrataPath.of("/tmp/carols"), "delete"))
        .hasMessageContaining("owns neither it nor its sticky folder");
    assertThatCode(() -> access.checkRemove(ALICE, StrataPath.of("/tmp/alices"), "delete"))
        .doesNotThrowAnyException();
    assertThatCode(() -> access.checkParent(ALICE, StrataPath.of("/tmp/new"), "create"))
        .doesNotThrowAnyException();
  }

  @Test
  void onlyTheOwnerChangesModeAndOnlyASuperuserTheOwner() {
    assertThatCode(() -> access.checkOwner(ALICE, StrataPath.of("/home/alice/notes"), "chmod"))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> access.checkOwner(ALICE, StrataPath.of("/data/table"), "chmod"))
        .hasMessageContaining("alice is not its owner");
    assertThatThrownBy(() -> access.checkSuperuser(ALICE, "chown", StrataPath.of("/data/table")))
        .hasMessageContaining("superuser only");
  }

  @Test
  void superusersAdminsProcessesAndASwitchedOffClusterAreNotChecked() {
    assertThatCode(() -> check(BOB, "/home/alice/notes", Permissions.WRITE))
        .as("bob is in the superuser group")
        .doesNotThrowAnyException();
    assertThatCode(() -> check(new Principal("root", Role.ADMIN), "/home/alice/notes", 4))
        .doesNotThrowAnyException();
    assertThatCode(() -> check(new Principal("strata", Role.SERVICE), "/home/alice/notes", 4))
        .doesNotThrowAnyException();
    assertThatCode(() -> check(null, "/home/alice/notes", 4)).doesNotThrowAnyException();
    enabled.set(false);
    assertThatCode(() -> check(new Principal("eve", Role.USER), "/home/alice/notes", 4))
        .doesNotThrowAnyException();
  }

  private void check(Principal who, String path, int access) {
    this.access.checkPath(who, StrataPath.of(path), access, "read");
  }
}
