package io.strata.worker.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.PooledByteBufAllocator;
import io.strata.core.proto.CheckAccessRequest;
import io.strata.core.proto.DeleteRequest;
import io.strata.core.proto.FileStatus;
import io.strata.core.proto.FreeRequest;
import io.strata.core.proto.GetStatusRequest;
import io.strata.core.proto.ListStatusRequest;
import io.strata.core.proto.MkdirRequest;
import io.strata.core.proto.RenameRequest;
import io.strata.core.proto.SetAttributesRequest;
import io.strata.core.security.Principal;
import io.strata.core.security.Role;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.worker.TestFiles;
import io.strata.worker.auth.Permissions;
import io.strata.worker.kv.MemoryKvStore;
import io.strata.worker.meta.MetadataCache;
import io.strata.worker.meta.MetadataService;
import io.strata.worker.page.PageStore;
import io.strata.worker.read.PageFetcher;
import io.strata.worker.ufs.UfsManager;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namespace without gRPC, on a local folder with a metadata cache whose entries never expire
 * here: what a change leaves cached is what a caller would see.
 */
class NamespaceTest {
  private static final Principal SERVICE = new Principal("worker", Role.SERVICE);
  private static final Principal ALICE = new Principal("alice", Role.USER);

  @TempDir Path root;
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final PageStore store = TestFiles.pageStore(1 << 20, registry);
  private MetadataService metadata;
  private Namespace namespace;
  private UfsManager ufs;
  private Permissions access;
  private PageFetcher fetcher;

  @BeforeEach
  void setUp() {
    ufs = TestFiles.ufsAt(root);
    metadata =
        new MetadataService(
            ufs,
            new MetadataCache(
                1000,
                Duration.ofHours(1),
                Duration.ofHours(1),
                System::currentTimeMillis,
                new MemoryKvStore()),
            registry);
    access = Permissions.of(p -> metadata.getStatus(p, -1), () -> true, () -> "");
    fetcher = new PageFetcher(store, 4096, Runnable::run, PooledByteBufAllocator.DEFAULT, registry);
    namespace = new Namespace(ufs, metadata, fetcher, access);
  }

  @AfterEach
  void tearDown() {
    store.close();
  }

  /**
   * Issue 78: free needed only r on the path, so any user's {@code fs free -R /} emptied the
   * cluster's cache. A user now frees what they may write, a tree as far as they could remove it.
   */
  @Test
  void aUserFreesOnlyWhatTheyMayChange() throws Exception {
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path proj = Files.createDirectories(root.resolve("proj"));
    Files.setPosixFilePermissions(proj, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path home = owned(Files.createDirectories(proj.resolve("alice")), 4001, 0777);
    owned(Files.createDirectories(home.resolve("private")), 4001, 0700);
    owned(Files.writeString(home.resolve("private/f"), "alice's"), 4001, 0600);
    owned(Files.writeString(proj.resolve("shared.csv"), "rows"), 4001, 0644);
    Path mine = owned(Files.createDirectories(proj.resolve("m")), 4002, 0755);
    owned(Files.writeString(mine.resolve("f"), "mallory's"), 4002, 0644);
    Principal mallory = new Principal("4002", Role.USER);

    for (String refused : List.of("/", "/proj/alice", "/proj/shared.csv")) {
      assertThatThrownBy(
              () ->
                  namespace.free(
                      mallory,
                      FreeRequest.newBuilder().setPath(refused).setRecursive(true).build()))
          .as(refused)
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
          .hasMessageContaining("free ");
    }
    assertThat(
            namespace.free(
                mallory, FreeRequest.newBuilder().setPath("/proj/m").setRecursive(true).build()))
        .as("her own tree")
        .isZero();
  }

  /**
   * Issue 78: a worker that is not root (the local default) gave a host user's new entries their
   * ids, and the chown failed with EPERM: no user could make anything. Such a worker makes them its
   * own; a root worker still gives them the user's.
   */
  @Test
  void aWorkerThatMayNotChown_makesAUsersEntriesItsOwn() throws Exception {
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
    Principal alice = new Principal("4001", Role.USER);
    Namespace notRoot = new Namespace(ufs, metadata, fetcher, access, false);
    notRoot.mkdir(alice, MkdirRequest.newBuilder().setPath("/hers").build());
    int own = (int) Files.getAttribute(root, "unix:uid");
    assertThat(Files.getAttribute(root.resolve("hers"), "unix:uid")).isEqualTo(own);

    if (own == 0) {
      new Namespace(ufs, metadata, fetcher, access, true)
          .mkdir(alice, MkdirRequest.newBuilder().setPath("/given").build());
      assertThat(Files.getAttribute(root.resolve("given"), "unix:uid")).isEqualTo(4001);
    }
  }

  /**
   * Issue 78, high 5: a recursive delete was checked against the top folder's parent only, so a
   * user who may write /proj deleted another's 0700 subtree wherever the store deletes as the
   * worker (S3, HDFS, a worker not running as root; here the test's own account).
   */
  @Test
  void aRecursiveDelete_needsEveryFolderOfTheTree_andTheStickyRule() throws Exception {
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path proj = Files.createDirectories(root.resolve("proj"));
    Files.setPosixFilePermissions(proj, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path home = owned(Files.createDirectories(proj.resolve("alice")), 4001, 0755);
    owned(Files.createDirectories(home.resolve("private")), 4001, 0700);
    owned(Files.writeString(home.resolve("private/f"), "alice's"), 4001, 0600);
    Principal mallory = new Principal("4002", Role.USER);

    assertThatThrownBy(() -> namespace.delete(mallory, recursive("/proj/alice")))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
        .hasMessageContaining("delete /proj/alice: 4002 lacks rwx (owner 4001");
    assertThat(home.resolve("private/f")).hasContent("alice's");

    // In a sticky folder of her own making, another's entry stays too.
    Path shared = owned(Files.createDirectories(proj.resolve("shared")), 4002, 01777);
    owned(Files.writeString(shared.resolve("hers"), "x"), 4001, 0666);
    Files.setPosixFilePermissions(proj, PosixFilePermissions.fromString("rwxrwxrwx"));
    namespace.delete(mallory, recursive("/proj/shared"));
    assertThat(shared).doesNotExist();
    Path sticky = owned(Files.createDirectories(proj.resolve("tmp")), 0, 01777);
    Path mine = owned(Files.createDirectories(sticky.resolve("mine")), 4002, 0777);
    owned(Files.writeString(mine.resolve("hers"), "x"), 4001, 0666);
    owned(Files.createDirectories(mine.resolve("deep")), 4001, 01777);
    owned(Files.writeString(mine.resolve("deep/hers"), "x"), 4001, 0666);
    assertThatThrownBy(() -> namespace.delete(mallory, recursive("/proj/tmp/mine")))
        .hasMessageContaining("owns neither it nor its sticky folder");
    assertThat(mine.resolve("deep/hers")).exists();

    namespace.delete(new Principal("4001", Role.USER), recursive("/proj/alice"));
    assertThat(home).doesNotExist();
  }

  /**
   * Review of issue 78: the tree was checked on the worker's cached statuses, so a folder cached
   * open and closed since (or swapped through another worker) still let the delete through.
   */
  @Test
  void aRecursiveDelete_readsTheTreeAsTheStoreHasItNow() throws Exception {
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path proj = owned(Files.createDirectories(root.resolve("proj")), 0, 0777);
    Path home = owned(Files.createDirectories(proj.resolve("alice")), 4001, 0777);
    Path inner = owned(Files.createDirectories(home.resolve("inner")), 4001, 0777);
    owned(Files.writeString(inner.resolve("f"), "alice's"), 4001, 0600);
    Principal mallory = new Principal("4002", Role.USER);
    namespace.list(mallory, ListStatusRequest.newBuilder().setPath("/proj/alice").build());
    namespace.list(mallory, ListStatusRequest.newBuilder().setPath("/proj/alice/inner").build());

    owned(home, 4001, 0755);
    owned(inner, 4001, 0755);

    assertThatThrownBy(() -> namespace.delete(mallory, recursive("/proj/alice")))
        .hasMessageContaining(
            "delete /proj/alice: 4002 lacks rwx (owner 4001, group 4001, mode 0755)");
    assertThat(inner.resolve("f")).hasContent("alice's");
  }

  /** As rm -r: an empty folder goes by its parent's bits (rmdir(2)), whoever owns it. */
  @Test
  void aRecursiveDelete_takesAnotherOwnersEmptyFolder_asRmdirWould() throws Exception {
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path mine = owned(Files.createDirectories(root.resolve("mine")), 4002, 0777);
    owned(Files.createDirectories(mine.resolve("empty")), 4001, 0500);

    namespace.delete(new Principal("4002", Role.USER), recursive("/mine"));

    assertThat(mine).doesNotExist();
  }

  /**
   * Review of issue 78: a folder moved to another folder has its ".." rewritten, so rename(2) asks
   * for write on it; within one folder its parent's bits decide alone.
   */
  @Test
  void movingAnothersFolderElsewhere_needsWriteOnIt() throws Exception {
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxrwxrwx"));
    Path hers = owned(Files.createDirectories(root.resolve("hers")), 4001, 0555);
    owned(Files.createDirectories(root.resolve("elsewhere")), 4002, 0777);
    Principal mallory = new Principal("4002", Role.USER);

    assertThatThrownBy(
            () ->
                namespace.rename(
                    mallory,
                    RenameRequest.newBuilder().setSrc("/hers").setDst("/elsewhere/hers").build()))
        .hasMessageContaining("rename /hers: 4002 lacks w (owner 4001");
    assertThat(hers).isDirectory();

    namespace.rename(
        mallory, RenameRequest.newBuilder().setSrc("/hers").setDst("/renamed").build());
    assertThat(root.resolve("renamed")).isDirectory();
  }

  private static DeleteRequest recursive(String path) {
    return DeleteRequest.newBuilder().setPath(path).setRecursive(true).build();
  }

  private static Path owned(Path p, int uid, int mode) throws java.io.IOException {
    Files.setAttribute(p, "unix:uid", uid);
    Files.setAttribute(p, "unix:gid", uid);
    Files.setAttribute(p, "unix:mode", mode);
    return p;
  }

  @Test
  void mkdirWithParents_isListedAtOnce_byEveryAncestorCachedBefore() {
    assertThat(names("/")).isEmpty();

    namespace.mkdir(SERVICE, MkdirRequest.newBuilder().setPath("/a/b/c").setParents(true).build());

    assertThat(names("/")).containsExactly("a");
    assertThat(names("/a/b")).containsExactly("c");
    assertThat(Files.isDirectory(root.resolve("a/b/c"))).isTrue();
  }

  @Test
  void aRenamedFolder_servesNothingUnderItsOldName() throws Exception {
    Files.createDirectories(root.resolve("d"));
    Files.writeString(root.resolve("d/x"), "12345");
    assertThat(status("/d/x").getLength()).isEqualTo(5);

    namespace.rename(SERVICE, RenameRequest.newBuilder().setSrc("/d").setDst("/e").build());

    assertThatThrownBy(() -> status("/d/x"))
        .isInstanceOfSatisfying(
            StrataException.class, e -> assertThat(e.code()).isEqualTo(StatusCode.NOT_FOUND));
    assertThat(status("/e/x").getLength()).isEqualTo(5);
  }

  @Test
  void aModeChange_isSeenAtOnce_andAFailedDelete_stillDropsTheCachedEntry() throws Exception {
    Files.createDirectories(root.resolve("full"));
    Files.writeString(root.resolve("full/f"), "x");
    assertThat(status("/full").getDirectory()).isTrue();

    namespace.setAttributes(
        SERVICE, SetAttributesRequest.newBuilder().setPath("/full").setMode(0750).build());
    assertThat(status("/full").getMode() & 07777).isEqualTo(0750);

    assertThat(names("/full")).containsExactly("f");
    Files.writeString(root.resolve("full/g"), "made behind the worker's back");
    assertThatThrownBy(
            () -> namespace.delete(SERVICE, DeleteRequest.newBuilder().setPath("/full").build()))
        .isInstanceOf(StrataException.class);
    assertThat(names("/full")).as("listed again after the failed change").contains("f", "g");
  }

  @Test
  void aUserWhoMayNotWriteTheFolder_isRefused_andTheFileStays() throws Exception {
    Files.writeString(root.resolve("kept"), "data");

    assertThatThrownBy(
            () -> namespace.delete(ALICE, DeleteRequest.newBuilder().setPath("/kept").build()))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED));
    assertThat(root.resolve("kept")).exists();
    assertThat(namespace.checked(ALICE)).isTrue();
    assertThat(namespace.checked(SERVICE)).isFalse();
  }

  @Test
  void anAccessCheckNamingAnOddOperation_isRefusedBeforeAnyLookUp() {
    assertThatThrownBy(
            () ->
                namespace.checkAccess(
                    SERVICE,
                    CheckAccessRequest.newBuilder()
                        .setPath("/missing")
                        .setOperation("rm -rf; \"quoted\"")
                        .build()))
        .hasMessageContaining("up to 32 letters and spaces");
  }

  private FileStatus status(String path) {
    return namespace.status(SERVICE, GetStatusRequest.newBuilder().setPath(path).build());
  }

  private List<String> names(String folder) {
    return namespace
        .list(SERVICE, ListStatusRequest.newBuilder().setPath(folder).build())
        .children()
        .stream()
        .map(FileStatus::getName)
        .toList();
  }
}
