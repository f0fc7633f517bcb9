package io.strata.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.fuse.FuseProcess;
import io.strata.testkit.MiniCluster;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Extended attributes (with {@code strata.fuse.xattr.enabled}) and fallocate(2) on a mount of a
 * local folder, as a local file system answers them: the user namespace's attributes are the
 * folder's own (and outlive a rewrite), others are refused with EOPNOTSUPP; space is reserved,
 * holes punched and ranges zeroed.
 */
class FuseXattrAndAllocateTest {
  private static MiniCluster cluster;

  @TempDir static Path dir;
  private static FuseProcess fuse;
  private static Path mnt;

  @BeforeAll
  static void mount() throws Exception {
    FuseHost.assumeMountable();
    cluster = MiniCluster.builder().start();
    Files.createDirectories(cluster.ufsRoot().resolve("x"));
    mnt = Files.createDirectories(dir.resolve("mnt"));
    Configuration conf = cluster.clientConf();
    conf.set(FuseKeys.XATTR, "true");
    fuse = FuseHost.mount(conf, mnt, "/x");
  }

  @AfterAll
  static void unmount() {
    if (fuse != null) {
      fuse.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  private static UserDefinedFileAttributeView view(Path p) {
    return Files.getFileAttributeView(p, UserDefinedFileAttributeView.class);
  }

  private static String value(UserDefinedFileAttributeView v, String name) throws Exception {
    ByteBuffer b = ByteBuffer.allocate(v.size(name));
    v.read(name, b);
    return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
  }

  @Test
  void userAttributes_areTheFoldersOwn_andOthersAreRefused() throws Exception {
    Path f = mnt.resolve("tagged.txt");
    Files.writeString(f, "data");
    String out =
        FuseHost.python(
            "import os, errno",
            "f = '" + f + "'",
            "os.setxattr(f, 'user.label', b'cat')",
            "os.setxattr(f, 'user.empty', b'')",
            "print(sorted(os.listxattr(f)))",
            "print(os.getxattr(f, 'user.label'))",
            "for flags, name in ((os.XATTR_CREATE, 'user.label'), (os.XATTR_REPLACE, 'user.no')):",
            "    try:",
            "        os.setxattr(f, name, b'x', flags); print('accepted')",
            "    except OSError as e: print(errno.errorcode[e.errno])",
            "for call in (lambda: os.getxattr(f, 'user.no'), lambda: os.removexattr(f, 'user.no'),",
            "             lambda: os.setxattr(f, 'trusted.t', b'x'),",
            "             lambda: os.getxattr(f, 'security.selinux')):",
            "    try:",
            "        call(); print('accepted')",
            "    except OSError as e: print(errno.errorcode[e.errno])",
            "os.removexattr(f, 'user.empty')",
            "print(os.listxattr(f))");
    assertThat(out.lines().toList())
        .containsExactly(
            "['user.empty', 'user.label']",
            "b'cat'",
            "EEXIST",
            "ENODATA",
            "ENODATA",
            "ENODATA",
            "ENOTSUP",
            "ENODATA",
            "['user.label']");
    // In the folder itself; and a rewrite through the mount keeps them, as O_TRUNC would.
    Path inStore = cluster.ufsRoot().resolve("x/tagged.txt");
    assertThat(value(view(inStore), "label")).isEqualTo("cat");
    Files.writeString(f, "new data");
    assertThat(Files.readString(inStore)).isEqualTo("new data");
    assertThat(value(view(inStore), "label")).isEqualTo("cat");
    assertThat(view(f).list()).containsExactly("label");
  }

  @Test
  void attributesSetOnAFileStillBeingWritten_landWithIt() throws Exception {
    Path f = mnt.resolve("copied.bin");
    FuseHost.python(
        "import os",
        "fd = os.open('" + f + "', os.O_WRONLY | os.O_CREAT, 0o644)",
        "os.write(fd, b'x' * 100000)",
        "os.setxattr(fd, 'user.source', b'camera')",
        "assert os.getxattr(fd, 'user.source') == b'camera'",
        "os.close(fd)");
    Path inStore = cluster.ufsRoot().resolve("x/copied.bin");
    assertThat(Files.size(inStore)).isEqualTo(100_000);
    assertThat(value(view(inStore), "source")).isEqualTo("camera");
  }

  @Test
  void fallocate_reservesPunchesAndZeroes_asALocalDiskDoes() throws Exception {
    Path f = mnt.resolve("space.bin");
    Files.write(f, "abcdefghij".getBytes(StandardCharsets.US_ASCII));
    for (List<String> cmd :
        List.of(
            List.of("fallocate", "-l", "16", f.toString()),
            List.of("fallocate", "-p", "-o", "2", "-l", "3", f.toString()),
            List.of("fallocate", "-z", "-o", "8", "-l", "12", f.toString()),
            List.of("fallocate", "-n", "-o", "0", "-l", "4096", f.toString()))) {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("%s: %s", cmd, out).isZero();
    }
    byte[] expected = new byte[20];
    System.arraycopy("ab".getBytes(StandardCharsets.US_ASCII), 0, expected, 0, 2);
    System.arraycopy("fgh".getBytes(StandardCharsets.US_ASCII), 0, expected, 5, 3);
    assertThat(Files.readAllBytes(cluster.ufsRoot().resolve("x/space.bin"))).isEqualTo(expected);
    assertThat(Files.readAllBytes(f)).isEqualTo(expected);

    // A file being written front to back: reserved ahead of what is written.
    String out =
        FuseHost.python(
            "import os",
            "fd = os.open('" + mnt.resolve("reserved.bin") + "', os.O_WRONLY | os.O_CREAT, 0o644)",
            "os.write(fd, b'head')",
            "os.posix_fallocate(fd, 0, 1000)",
            "os.close(fd)",
            "print(os.path.getsize('" + mnt.resolve("reserved.bin") + "'))");
    assertThat(out.trim()).isEqualTo("1000");
  }
}
