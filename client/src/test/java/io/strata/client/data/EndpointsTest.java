package io.strata.client.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EndpointsTest {
  @TempDir Path dir;

  private static WorkerInfo worker(Path socket) {
    return WorkerInfo.newBuilder()
        .setId("w")
        .setAddress(
            WorkerAddress.newBuilder()
                .setHost("localhost")
                .setDataPort(7711)
                .setDomainSocketPath(socket.toString()))
        .build();
  }

  private static boolean bySocket(Path socket) {
    return new Endpoints(() -> true, System::nanoTime).of(worker(socket)).isDomainSocket();
  }

  /**
   * A socket at the worker's path that another account owns is not the worker's (it makes its own
   * owner-only): perhaps one bound there while the worker was down, to pose as it.
   */
  @Test
  void aSocketFileAnotherAccountOwns_isNotUsed_norALinkToIt() throws Exception {
    Path mine = Files.createFile(dir.resolve("mine.sock"));
    assertThat(bySocket(mine)).isTrue();
    assertThat(bySocket(dir.resolve("missing.sock"))).isFalse();

    assumeThat(System.getProperty("user.name"))
        .as("giving a file to another account needs root")
        .isEqualTo("root");
    UserPrincipalLookupService users = dir.getFileSystem().getUserPrincipalLookupService();
    Path theirs = Files.createFile(dir.resolve("theirs.sock"));
    Files.setOwner(theirs, users.lookupPrincipalByName("nobody"));
    assertThat(bySocket(theirs)).isFalse();
    Path link = Files.createSymbolicLink(dir.resolve("link.sock"), theirs);
    Files.setAttribute(link, "unix:uid", 65534, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    assertThat(bySocket(link)).isFalse();
  }
}
