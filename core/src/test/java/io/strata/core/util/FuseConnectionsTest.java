package io.strata.core.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class FuseConnectionsTest {
  @Test
  void aMountsConnection_isItsDeviceAsTheKernelNamesItsFolder() {
    List<String> mountInfo =
        List.of(
            "27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw",
            "45 27 0:40 / /tmp/mnt rw,relatime - fuse.strata strata:/ rw,user_id=0",
            "46 27 0:300 / /tmp/with\\040space rw - fuse.strata strata:/d rw",
            "47 27 0:41 / /tmp/mnt rw,relatime - fuse.strata strata:/ rw,user_id=0");
    assertThat(FuseConnections.connectionOf(mountInfo, Path.of("/tmp/mnt")))
        .as("the last mount on the folder, the one in effect")
        .hasValue(41);
    assertThat(FuseConnections.connectionOf(mountInfo, Path.of("/tmp/with space")))
        .as("minor numbers past 255 as new_encode_dev puts them")
        .hasValue(44 | (256L << 12));
    assertThat(FuseConnections.connectionOf(mountInfo, Path.of("/tmp/other"))).isEmpty();
  }
}
