package io.strata.client.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.transport.LeaseGrant;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaseTest {
  @TempDir Path dir;

  /**
   * A segment file mapped afresh may be another file under the same name (a worker that restarted
   * and wrote other pages there): a page checked in the old mapping is checked again in the new.
   */
  @Test
  void aPageVerifiedInOneMapping_isNotVerifiedInAnother() throws Exception {
    Path file = dir.resolve("seg-1");
    Files.write(file, new byte[8192]);
    LeaseGrant grant =
        new LeaseGrant(
            30_000, 4096, List.of(file.toString()), List.of(new LeaseGrant.Page(0, 0, 0, 4096, 0)));
    Lease lease = new Lease(grant, 0);
    MappedSegment first = MappedSegment.open(file);
    MappedSegment again = MappedSegment.open(file);

    assertThat(lease.verified(0, first)).isFalse();
    lease.markVerified(0, first);
    assertThat(lease.verified(0, first)).isTrue();
    assertThat(lease.verified(0, again)).isFalse();
    assertThat(lease.verified(1, first)).isFalse();
  }
}
