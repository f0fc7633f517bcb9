package io.strata.worker.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FileType;
import io.strata.core.proto.PosixAttributes;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StrataException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
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

  private void link(String path, String owner, String target) {
    tree.put(
        path,
        FileStatus.newBuilder()
            .setPath(path)
            .setOwner(owner)
            .setGroup(owner)
            .setMode(0777)
            .setPosix(
                PosixAttributes.newBuilder().setType(FileType.SYMLINK).setSymlinkTarget(target))
            .build());
  }

  /** Issue 54, item 2: a link's own 0777 opened alice's 0700 folder to anyone. */
  @Test
  void aLinkOnThePath_isCheckedAsWhereItLeads() {
    Principal mallory = new Principal("mallory", Role.USER);
    entry("/tmp", "root", "root", 01777);
    entry("/tmp/m", "mallory", "mallory", 0755);
    link("/tmp/m/l", "mallory", "../../home/alice");
    link("/tmp/m/n", "mallory", "../../home/alice/notes");
    assertThatThrownBy(() -> check(mallory, "/tmp/m/l/notes", Permissions.READ))
        .hasMessageContaining("mallory lacks x on /home/alice");
    assertThatThrownBy(() -> check(mallory, "/tmp/m/l", Permissions.READ))
        .as("a listing follows the last link")
        .hasMessageContaining("mallory lacks r on /home/alice");
    assertThatThrownBy(() -> check(mallory, "/tmp/m/n", Permissions.READ))
        .hasMessageContaining("lacks x on /home/alice");
    assertThatThrownBy(() -> access.checkParent(mallory, StrataPath.of("/tmp/m/l/x"), "create"))
        .hasMessageContaining("lacks wx on /home/alice");
    assertThatThrownBy(() -> access.checkOwner(mallory, StrataPath.of("/tmp/m/l/notes"), "chmod"))
        .hasMessageContaining("lacks x on /home/alice");
    assertThatCode(() -> check(ALICE, "/tmp/m/l/notes", Permissions.READ))
        .as("alice herself may go through it")
        .doesNotThrowAnyException();
    assertThatCode(() -> access.checkRemove(mallory, StrataPath.of("/tmp/m/l"), "delete"))
        .as("removing the link itself is mallory's right")
        .doesNotThrowAnyException();
  }

  @Test
  void aLinkToAnAbsolutePathOrAboveTheRoot_isRefused() {
    Principal mallory = new Principal("mallory", Role.USER);
    entry("/tmp", "root", "root", 01777);
    link("/tmp/abs", "mallory", "/data");
    link("/tmp/up", "mallory", "../../..");
    assertThatThrownBy(() -> check(mallory, "/tmp/abs/table", Permissions.READ))
        .hasMessageContaining("passes through the symbolic link /tmp/abs -> /data");
    assertThatThrownBy(() -> check(mallory, "/tmp/up/x", 0))
        .hasMessageContaining("leads above the root");
    link("/tmp/self", "mallory", "self");
    assertThatThrownBy(() -> check(mallory, "/tmp/self/x", 0))
        .hasMessageContaining("passes through the symbolic link");
  }

  /** Issue 54, item 3: a hard link and an overwrite rewrote a file its writer may not write. */
  @Test
  void overwritingNeedsWriteOnTheFile_andLinkingWhatLinkAllows() {
    Principal mallory = new Principal("mallory", Role.USER);
    entry("/tmp", "root", "root", 01777);
    entry("/tmp/m", "mallory", "mallory", 0755);
    entry("/tmp/m/payroll.csv", "etl", "data", 0644);
    assertThatThrownBy(
            () -> access.checkOverwrite(mallory, StrataPath.of("/tmp/m/payroll.csv"), "write"))
        .hasMessageContaining("mallory lacks w");
    assertThatCode(() -> access.checkOverwrite(mallory, StrataPath.of("/tmp/m/new"), "write"))
        .as("nothing there yet")
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> access.checkHardLink(mallory, StrataPath.of("/data/table"), "link"))
        .hasMessageContaining("lacks");
    entry("/tmp/shared", "etl", "etl", 0666);
    assertThatCode(() -> access.checkHardLink(mallory, StrataPath.of("/tmp/shared"), "link"))
        .as("rw on it is enough")
        .doesNotThrowAnyException();
    entry("/tmp/tool", "root", "root", 04777);
    assertThatThrownBy(() -> access.checkHardLink(mallory, StrataPath.of("/tmp/tool"), "link"))
        .hasMessageContaining("set-id");
    entry("/tmp/alices", "alice", "alice", 0666);
    assertThatThrownBy(() -> access.checkReplace(mallory, StrataPath.of("/tmp/alices"), "rename"))
        .as("/tmp is sticky")
        .hasMessageContaining("owns neither it nor its sticky folder");
  }

  @Test
  void whatAUserMakesIsTheirs_whereThisHostKnowsThem() {
    Permissions withAccounts =
        new Permissions(
            p -> tree.get(p.toString()),
            () -> true,
            () -> "admins",
            user -> Set.of(),
            user ->
                user.equals("alice")
                    ? Optional.of(new OsAccounts.Ids(4001, 4100))
                    : Optional.empty());
    assertThat(withAccounts.creatorIds(ALICE)).contains(new OsAccounts.Ids(4001, 4100));
    assertThat(withAccounts.creatorIds(new Principal("ghost", Role.USER)))
        .as("a user this host does not know keeps the worker's ids")
        .isEmpty();
    assertThat(withAccounts.creatorIds(new Principal("strata", Role.SERVICE)))
        .as("the cluster's own processes keep the worker's ids")
        .isEmpty();
  }

  private void check(Principal who, String path, int access) {
    this.access.checkPath(who, StrataPath.of(path), access, "read");
  }
}
