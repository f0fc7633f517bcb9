package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.FileType;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Entries whose path, with the under-storage folder in front, is longer than the kernel takes whole
 * (PATH_MAX, 4096 bytes): everything works on them as on short ones, and none of their folders may
 * be a link.
 */
class LocalLongPathTest {
  @TempDir Path root;
  @TempDir Path outside;
  private LocalUnderFileSystem ufs;

  /** 34 folders of 127 bytes: about 4,350 bytes, over PATH_MAX before the root is put in front. */
  private static final String DEEP = deep(34);

  @BeforeEach
  void open() {
    ufs = new LocalUnderFileSystem(root);
  }

  private static String deep(int levels) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < levels; i++) {
      b.append('/').append(String.format("%03d", i)).append("d".repeat(124));
    }
    return b.toString();
  }

  private static StrataPath p(String s) {
    return StrataPath.of(s);
  }

  private void write(String path, String text) throws IOException {
    try (UfsOutputStream out = ufs.create(p(path), new CreateOptions(false, true, 0640))) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
  }

  private String read(String path) throws IOException {
    try (UfsReader r = ufs.openReader(p(path))) {
      ByteBuffer b = ByteBuffer.allocate((int) r.length());
      r.readFully(0, b);
      assertThat(r.currentFingerprint()).isEqualTo(ufs.getStatus(p(path)).fingerprint());
      return new String(b.array(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void everyOperation_worksOnAPathLongerThanPathMax() throws IOException {
    assertThat((root + DEEP).length()).isGreaterThan(4096);
    ufs.mkdirs(p(DEEP), true);
    assertThat(ufs.getStatus(p(DEEP)).directory()).isTrue();

    write(DEEP + "/f", "deep bytes");
    assertThat(read(DEEP + "/f")).isEqualTo("deep bytes");
    UfsStatus f = ufs.getStatus(p(DEEP + "/f"));
    assertThat(f.length()).isEqualTo(10);
    assertThat(f.posix().getMode()).isEqualTo(0640);
    try (Stream<UfsStatus> children = ufs.list(p(DEEP))) {
      assertThat(children.map(UfsStatus::name).toList()).containsExactly("f");
    }

    ufs.setAttributes(p(DEEP + "/f"), 04600, "", "");
    ufs.setOwnerIds(p(DEEP + "/f"), 12, 34);
    ufs.setTimes(p(DEEP + "/f"), UnderFileSystem.TIME_OMIT, 1_500_000_000_123_456_789L);
    UfsStatus changed = ufs.getStatus(p(DEEP + "/f"));
    assertThat(changed.posix().getUid()).isEqualTo(12);
    assertThat(changed.posix().getGid()).isEqualTo(34);
    assertThat(changed.posix().getMtimeNs()).isEqualTo(1_500_000_000_123_456_789L);

    ufs.createSymlink(p(DEEP + "/link"), "f");
    assertThat(ufs.getStatus(p(DEEP + "/link")).posix().getSymlinkTarget()).isEqualTo("f");
    ufs.createHardLink(p(DEEP + "/f"), p(DEEP + "/hard"));
    assertThat(ufs.getStatus(p(DEEP + "/f")).posix().getNlink()).isEqualTo(2);
    ufs.createSpecial(p(DEEP + "/fifo"), FileType.FIFO, 0600, 0);
    assertThat(ufs.getStatus(p(DEEP + "/fifo")).posix().getType()).isEqualTo(FileType.FIFO);

    ufs.rename(p(DEEP + "/hard"), p(DEEP + "/moved"));
    try (UfsOutputStream out = ufs.create(p(DEEP + "/moved"), new CreateOptions(true, false, 0))) {
      out.write("replaced".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(read(DEEP + "/moved")).isEqualTo("replaced");

    for (String name : List.of("f", "link", "fifo", "moved")) {
      ufs.delete(p(DEEP + "/" + name), false);
    }
    try (Stream<UfsStatus> children = ufs.list(p(DEEP))) {
      assertThat(children).isEmpty();
    }
    // Folder by folder, from the deepest, as rm -r through the mount goes (a recursive delete of a
    // tree deeper than PATH_MAX in one call is not supported yet: it fails, ENAMETOOLONG).
    for (StrataPath d = p(DEEP); !d.isRoot(); d = d.parent()) {
      ufs.delete(d, false);
    }
    assertThat(root.toFile().list()).isEmpty();
  }

  @Test
  void aLinkOnTheWay_isNotFollowed() throws IOException {
    String half = deep(20);
    ufs.mkdirs(p(half), true);
    Files.createDirectories(outside.resolve("x".repeat(100)));
    // A link deep in the tree, to a folder outside the root.
    Files.createSymbolicLink(root.resolve(half.substring(1) + "/out"), outside);
    String beyond = half + "/out/" + "x".repeat(100) + deep(14) + "/f";
    StrataException e = failure(() -> ufs.getStatus(p(beyond)));
    assertThat(e.code()).isNotEqualTo(StatusCode.OK);
    StrataException w = failure(() -> ufs.create(p(beyond), new CreateOptions(false, true, 0)));
    assertThat(w.code()).isNotEqualTo(StatusCode.OK);
    try (Stream<Path> made = Files.walk(outside)) {
      assertThat(made.count()).as("nothing made outside the root").isEqualTo(2);
    }
  }

  private static StrataException failure(Runnable r) {
    try {
      r.run();
    } catch (StrataException e) {
      return e;
    }
    throw new AssertionError("no failure");
  }
}
