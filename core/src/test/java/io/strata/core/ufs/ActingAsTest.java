package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.strata.core.path.StrataPath;
import io.strata.core.security.ActingFor;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A thread acting as a user gets the kernel's checks as that user, and only that thread. */
class ActingAsTest {
  private static final ActingAs.Identity MALLORY = new ActingAs.Identity(4002, 4002, List.of());

  @TempDir Path dir;
  private Path root;

  @BeforeEach
  void needsRoot() throws IOException {
    assumeTrue(ActingAs.available(), "switching identities needs a worker running as root");
    root = Files.createDirectory(dir.resolve("ufs"));
    Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path home = Files.createDirectory(root.resolve("home"));
    Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwx------"));
    Files.writeString(home.resolve("secret"), "root's");
    Path shared = Files.createDirectory(root.resolve("shared"));
    Files.setAttribute(shared, "unix:gid", 4100);
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwx---"));
  }

  @Test
  void theKernelRefusesTheUser_andTheThreadIsTheProcessAgainAfter() throws IOException {
    // By path here: the user must pass the temporary folder above (root's 0700).
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
    Path secret = root.resolve("home/secret");
    assertThatThrownBy(() -> ActingAs.call(MALLORY, () -> read(secret)))
        .hasCauseInstanceOf(AccessDeniedException.class);
    assertThat(read(secret)).isEqualTo("root's");
    // The groups count: a member of 4100 may write the group's folder, mallory alone may not.
    Path shared = root.resolve("shared/f");
    assertThatThrownBy(() -> ActingAs.run(MALLORY, () -> write(shared)))
        .hasCauseInstanceOf(AccessDeniedException.class);
    ActingAs.run(new ActingAs.Identity(4002, 4002, List.of(4100)), () -> write(shared));
    assertThat(shared).exists();
  }

  @Test
  void otherThreads_keepTheProcesssIdentityMeanwhile() throws Exception {
    CountDownLatch acting = new CountDownLatch(1);
    CountDownLatch checked = new CountDownLatch(1);
    CompletableFuture<Void> user =
        CompletableFuture.runAsync(
            () ->
                ActingAs.run(
                    MALLORY,
                    () -> {
                      acting.countDown();
                      await(checked);
                    }));
    assertThat(acting.await(10, TimeUnit.SECONDS)).isTrue();
    try {
      assertThat(read(root.resolve("home/secret"))).isEqualTo("root's");
    } finally {
      checked.countDown();
    }
    user.get(10, TimeUnit.SECONDS);
  }

  @Test
  void theStoresRoot_isTheAdministrators_notSearchedAsTheUser() {
    // The temporary folder above the root is root's 0700, yet a user's call works beneath it.
    try (LocalUnderFileSystem ufs =
        new LocalUnderFileSystem(root, Duration.ofHours(1), Clock.systemUTC())) {
      UnderFileSystem acting = new ActingUnderFileSystem(ufs, () -> MALLORY);
      assertThat(acting.getStatus(StrataPath.ROOT).directory()).isTrue();
      assertThat(acting.getStatus(StrataPath.of("/shared")).directory()).isTrue();
      assertThatThrownBy(() -> acting.getStatus(StrataPath.of("/home/secret")))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> {
                assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED);
                assertThat(e.getMessage()).contains("uid 4002");
              });
      assertThatThrownBy(() -> acting.mkdirs(StrataPath.of("/home/planted"), false))
          .isInstanceOfSatisfying(
              StrataException.class,
              e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED));
      assertThat(root.resolve("home/planted")).doesNotExist();
      assertThat(ufs.getStatus(StrataPath.of("/home/secret")).length()).isEqualTo(6);
    }
  }

  /**
   * A listing's entries are looked up as it is consumed, after the call that opened the folder
   * returned: as the worker, a user who may read a folder's names but not search it got each
   * entry's attributes (owner, size, version).
   */
  @Test
  void aListingConsumedLater_looksUpItsEntriesAsTheUser() throws IOException {
    Path names = Files.createDirectory(root.resolve("names"));
    Files.writeString(names.resolve("f"), "root's");
    Files.setPosixFilePermissions(names, PosixFilePermissions.fromString("rwxr--r--"));
    try (LocalUnderFileSystem ufs =
        new LocalUnderFileSystem(root, Duration.ofHours(1), Clock.systemUTC())) {
      UnderFileSystem acting = new ActingUnderFileSystem(ufs, () -> MALLORY);
      try (Stream<UfsStatus> listing = acting.list(StrataPath.of("/names"))) {
        assertThatThrownBy(listing::toList)
            .isInstanceOfSatisfying(
                StrataException.class,
                e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
            .hasMessageContaining("the entries of /names")
            .hasMessageContaining("uid 4002");
      }
      try (Stream<UfsStatus> listing = ufs.list(StrataPath.of("/names"))) {
        assertThat(listing.map(UfsStatus::name).toList()).containsExactly("f");
      }
    }
  }

  /**
   * A FUSE mount's O_TRUNC for a local account ({@link ActingFor}) writes into the file itself: the
   * account's own file in a folder it may not change is written, and stays its own; another's file
   * it may not write is refused, untouched. A checked user's overwrite still replaces the file.
   */
  @Test
  void aLocalAccountsOverwrite_isWrittenInPlace_asOTruncWould() throws Exception {
    Path own = root.resolve("own");
    Files.writeString(own, "old bytes");
    Files.setAttribute(own, "unix:uid", 4002);
    Object inode = Files.getAttribute(own, "unix:ino");
    CreateOptions overwrite = new CreateOptions(true, false, 0, false, -1, -1);
    ActingFor mallory = new ActingFor(4002, 4002, List.of());
    try (LocalUnderFileSystem ufs =
        new LocalUnderFileSystem(root, Duration.ofHours(1), Clock.systemUTC())) {
      UnderFileSystem acting = new ActingUnderFileSystem(ufs, () -> MALLORY);
      mallory.call(() -> writeAll(acting, "/own", overwrite, "new"));
      assertThat(Files.readString(own)).isEqualTo("new");
      assertThat(Files.getAttribute(own, "unix:ino")).isEqualTo(inode);
      assertThat(Files.getAttribute(own, "unix:uid")).isEqualTo(4002);

      Path theirs = root.resolve("theirs");
      Files.writeString(theirs, "root's");
      assertThatThrownBy(() -> mallory.call(() -> writeAll(acting, "/theirs", overwrite, "evil")))
          .hasRootCauseInstanceOf(AccessDeniedException.class);
      assertThat(read(theirs)).isEqualTo("root's");

      // Without a local account: a temporary file renamed over it, which the folder refuses.
      assertThatThrownBy(() -> writeAll(acting, "/own", overwrite, "again"))
          .hasRootCauseInstanceOf(AccessDeniedException.class);
      assertThat(Files.readString(own)).isEqualTo("new");
    }
  }

  private static Void writeAll(UnderFileSystem ufs, String path, CreateOptions o, String bytes) {
    try (UfsOutputStream out = ufs.create(StrataPath.of(path), o)) {
      out.write(bytes.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return null;
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path p) {
    try {
      Files.writeString(p, "x");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
