package io.strata.fuse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.status.StrataException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MountOptionsTest {
  private final Configuration conf = new Configuration();

  @Test
  void optionsAsFuseUsersWriteThem_setTheMountsConfiguration() {
    MountOptions.Parsed p =
        MountOptions.apply(
            "ro,attr_timeout=60,entry_timeout=0.5,immutable,threads=8,nosuid,"
                + "strata.fuse.xattr.enabled=true,defaults,_netdev,x-systemd.automount",
            conf);
    assertThat(p.readOnly()).isTrue();
    assertThat(p.allowOther()).isFalse();
    assertThat(p.kernel()).containsExactly("nosuid");
    assertThat(conf.get(FuseKeys.ATTR_TIMEOUT)).isEqualTo(Duration.ofSeconds(60));
    assertThat(conf.get(FuseKeys.ENTRY_TIMEOUT)).isEqualTo(Duration.ofMillis(500));
    assertThat(conf.get(UserKeys.METADATA_CACHE_IMMUTABLE)).isTrue();
    assertThat(conf.get(FuseKeys.THREADS)).isEqualTo(8);
    assertThat(conf.get(FuseKeys.XATTR)).isTrue();
  }

  @Test
  void noOptions_changeNothing() {
    MountOptions.Parsed p = MountOptions.apply("", conf);
    assertThat(p.readOnly()).isFalse();
    assertThat(conf.get(UserKeys.METADATA_CACHE_IMMUTABLE)).isFalse();
    assertThat(conf.get(FuseKeys.ATTR_TIMEOUT)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void badOptions_areRefusedInOneLineNamingThem() {
    for (var bad :
        List.of(
            List.of("sync_read", "unknown mount option 'sync_read'"),
            List.of("ro=1", "mount option ro=1 takes no value"),
            List.of("attr_timeout=", "mount option attr_timeout= needs a value"),
            List.of("attr_timeout=-1", "attr_timeout=-1: must be 0 or more seconds"),
            List.of("threads=999", "strata.fuse.threads"),
            List.of("strata.fuse.nope=1", "strata.fuse.nope"),
            List.of("strata.worker.page.size=2MiB", "a mount reads only client keys"))) {
      assertThatThrownBy(() -> MountOptions.apply(bad.get(0), new Configuration()))
          .as(bad.get(0))
          .isInstanceOf(StrataException.class)
          .hasMessageContaining(bad.get(1))
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
  }

  @Test
  void theProcessTakesOptionsAfterDashO_inEitherForm() {
    FuseProcess f =
        FuseProcess.fromArgs(conf, List.of("/mnt/x", "/data", "-o", "ro", "-oattr_timeout=5"));
    assertThat(f.describe()).contains("read-only");
    assertThatThrownBy(() -> FuseProcess.fromArgs(conf, List.of("/mnt/x", "--fast")))
        .hasMessageContaining("unknown flag --fast");
  }
}
