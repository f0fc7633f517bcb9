package io.strata.worker.page;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** A quota too small for its segments is a configuration mistake, said in one line. */
class SsdLayoutTest {
  @Test
  void aQuotaUnderTwoSegments_isRefused_namingWhatToChange() {
    assertThatThrownBy(() -> new SsdLayout(Path.of("/cache"), 64L << 20, 64L << 20, 0))
        .isInstanceOf(StrataException.class)
        .matches(e -> ((StrataException) e).code() == StatusCode.INVALID_ARGUMENT)
        .hasMessageContaining(
            "64 MiB", "strata.worker.page.store.dirs", "strata.worker.segment.size")
        .hasMessageNotContaining("\n");
  }
}
