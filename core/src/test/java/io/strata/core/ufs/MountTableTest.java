package io.strata.core.ufs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.path.StrataPath;
import java.util.List;
import org.junit.jupiter.api.Test;

class MountTableTest {
  @Test
  void resolve_picksTheDeepestMount() {
    MountTable t =
        new MountTable(
            List.of(
                new Mount(StrataPath.ROOT, "file:///srv/root", false),
                new Mount(StrataPath.of("/data"), "file:///srv/data", true)),
            3);
    MountTable.Resolution r = t.resolve(StrataPath.of("/data/a/b"));
    assertThat(r.mount().ufsUri()).isEqualTo("file:///srv/data");
    assertThat(r.ufsPath()).isEqualTo(StrataPath.of("/a/b"));
    assertThat(r.ufsUri()).isEqualTo("file:///srv/data/a/b");
    assertThat(t.resolve(StrataPath.of("/database")).ufsUri())
        .isEqualTo("file:///srv/root/database");
    assertThat(t.resolve(StrataPath.of("/data")).ufsUri()).isEqualTo("file:///srv/data");
  }

  @Test
  void resolve_withoutRoot_isUnavailable() {
    assertThatThrownBy(() -> new MountTable(List.of(), 0).resolve(StrataPath.of("/x")))
        .hasMessageContaining("not mounted");
  }
}
