package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user who may write one folder of a local under-storage tries to make the worker, which runs as
 * its own OS account, touch files outside the root: by swapping a folder or a file for a symbolic
 * link between the moment the worker checks a path and the moment it uses it (issue 54, item 1), or
 * by links that climb out of the root. Nothing outside the root may change, whatever the call.
 */
class LocalRootEscapeTest {
  @TempDir Path root;
  @TempDir Path outside;
  private LocalUnderFileSystem ufs;

  @BeforeEach
  void open() {
    ufs = new LocalUnderFileSystem(root);
  }

  private static StrataPath p(String s) {
    return StrataPath.of(s);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Swaps the folder {@code name} of the root for a link to the outside folder. */
  private void swapForLinkOut(String name) throws IOException {
    Files.move(root.resolve(name), root.resolve(name + "-moved"));
    Files.createSymbolicLink(root.resolve(name), outside);
  }

  private long filesOutside() throws IOException {
    try (Stream<Path> all = Files.walk(outside)) {
      return all.count() - 1;
    }
  }

  @Test
  void aFolderSwappedForALinkAfterTheHeader_keepsTheWriteInTheFolderItChecked() throws IOException {
    Files.createDirectories(root.resolve("d"));
    try (OutputStream out = ufs.create(p("/d/authorized_keys"), CreateOptions.DEFAULT)) {
      swapForLinkOut("d");
      out.write(bytes("ssh-ed25519 AAAA mallory"));
    } catch (IOException | StrataException refused) {
      // Refusing the write is as good as keeping it in the root.
    }
    assertThat(filesOutside()).as("files written outside the root").isZero();
  }

  @Test
  void aFolderSwappedForALinkDuringAWrite_keepsItsPublicationInTheRoot() throws IOException {
    Files.createDirectories(root.resolve("d"));
    try (OutputStream out = ufs.create(p("/d/f"), CreateOptions.DEFAULT)) {
      out.write(bytes("first"));
      swapForLinkOut("d");
      out.write(bytes(" second"));
    } catch (IOException | StrataException refused) {
      // As above.
    }
    assertThat(filesOutside()).isZero();
  }

  @Test
  void anInPlaceWrite_whoseFileBecomesALink_neverWritesTheLinksTarget() throws IOException {
    Files.writeString(root.resolve("f"), "mine");
    Path victim = Files.writeString(outside.resolve("victim"), "root's own");
    try (OutputStream out =
        ufs.create(p("/f"), new CreateOptions(true, true, 0, true, -1, -1, true, -1))) {
      Files.delete(root.resolve("f"));
      Files.createSymbolicLink(root.resolve("f"), victim);
      out.write(bytes("overwritten"));
    } catch (IOException | StrataException refused) {
      // As above.
    }
    assertThat(Files.readString(victim)).isEqualTo("root's own");
  }

  @Test
  void aLinkClimbingOutOfTheRoot_isRefusedByEveryCall() throws IOException {
    Files.writeString(outside.resolve("secret"), "secret");
    Files.createDirectories(root.resolve("m"));
    // Relative, as a user's `ln -s ../../x` makes it: the kernel would follow it out.
    Path up = root.relativize(outside);
    Files.createSymbolicLink(root.resolve("m/l"), Path.of("..").resolve(up));
    Files.createSymbolicLink(root.resolve("abs"), outside);
    for (String via : new String[] {"/m/l", "/abs"}) {
      assertThat(codeOf(() -> ufs.openReader(p(via + "/secret")))).isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.list(p(via)).close())).isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.getStatus(p(via + "/secret")))).isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.mkdirs(p(via + "/made"), false))).isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.mkdirs(p(via + "/a/b"), true))).isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.delete(p(via + "/secret"), false))).isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.setAttributes(p(via + "/secret"), 0777, "", "")))
          .isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.rename(p(via + "/secret"), p("/stolen"))))
          .isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.createHardLink(p(via + "/secret"), p("/linked"))))
          .isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> ufs.createSymlink(p(via + "/planted"), "x")))
          .isNotEqualTo(StatusCode.OK);
      assertThat(codeOf(() -> create(via + "/new"))).isNotEqualTo(StatusCode.OK);
    }
    assertThat(Files.readString(outside.resolve("secret"))).isEqualTo("secret");
    assertThat(Files.getPosixFilePermissions(outside.resolve("secret")))
        .isNotEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
    assertThat(filesOutside()).isEqualTo(1);
    assertThat(root.resolve("stolen")).doesNotExist();
    assertThat(root.resolve("linked")).doesNotExist();
  }

  /**
   * Issue 78: not even a link that stays inside is followed on the way to an entry. A user's
   * permissions are checked on statuses (cached ones too); a folder swapped for such a link after
   * they were taken led the store, as the worker, into a folder the user may not enter. A link
   * itself is still an entry: its status, its target, its removal.
   */
  @Test
  void aLinkOnTheWay_isNotFollowed_evenOneThatStaysInside() throws IOException {
    Files.createDirectories(root.resolve("data/real"));
    Files.writeString(root.resolve("data/real/f"), "bytes");
    Files.createSymbolicLink(root.resolve("data/alias"), Path.of("real"));
    Files.createSymbolicLink(root.resolve("top"), Path.of("data/../data/real"));
    for (String via : List.of("/data/alias", "/top")) {
      assertRefusedAsALink(() -> ufs.openReader(p(via + "/f")).close());
      assertRefusedAsALink(() -> ufs.getStatus(p(via + "/f")));
      assertRefusedAsALink(() -> ufs.list(p(via)).close());
      assertRefusedAsALink(() -> ufs.delete(p(via + "/f"), false));
      assertRefusedAsALink(() -> create(via + "/g"));
    }
    assertThat(root.resolve("data/real/f")).hasContent("bytes");
    assertThat(root.resolve("data/real/g")).doesNotExist();
    assertThat(ufs.getStatus(p("/data/alias")).directory()).isFalse();
    ufs.delete(p("/data/alias"), false);
    assertThat(root.resolve("data/alias")).doesNotExist();
    assertThat(root.resolve("data/real/f")).exists();
  }

  private static void assertRefusedAsALink(ThrowingCallable call) {
    assertThatThrownBy(call)
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.PERMISSION_DENIED))
        .hasMessageContaining("passes a symbolic link");
  }

  private StatusCode create(String path) {
    try (OutputStream out = ufs.create(p(path), CreateOptions.DEFAULT)) {
      out.write(bytes("x"));
      return StatusCode.OK;
    } catch (IOException e) {
      return StatusCode.INTERNAL;
    }
  }

  private interface Call {
    void run() throws IOException;
  }

  private static StatusCode codeOf(Call c) {
    try {
      c.run();
      return StatusCode.OK;
    } catch (StrataException e) {
      return e.code();
    } catch (IOException e) {
      return StatusCode.INTERNAL;
    }
  }
}
