package io.strata.core.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigurationTest {
  @Test
  void set_badValue_changesNothing() {
    Configuration conf = new Configuration();
    conf.set(WorkerKeys.RPC_PORT, "1234");
    assertThatThrownBy(() -> conf.set(WorkerKeys.RPC_PORT, "70000"))
        .hasMessageContaining("between 0 and 65535");
    assertThatThrownBy(() -> conf.set(WorkerKeys.RPC_PORT, "abc"))
        .hasMessageContaining("expected a whole number");
    assertThat(conf.get(WorkerKeys.RPC_PORT)).isEqualTo(1234);
  }

  @Test
  void set_lowerPrecedenceSource_doesNotOverride() {
    Configuration conf = new Configuration();
    conf.set(WorkerKeys.RPC_PORT, "1", Source.SYSTEM_PROPERTY, "-D");
    conf.set(WorkerKeys.RPC_PORT, "2", Source.SITE_PROPERTIES, "file");
    assertThat(conf.get(WorkerKeys.RPC_PORT)).isEqualTo(1);
  }

  @Test
  void types_parseWhatPeopleWrite() {
    Configuration conf = new Configuration();
    conf.set(WorkerKeys.METADATA_TTL, "5min");
    conf.set(WorkerKeys.MEM_SIZE, "1.5GiB");
    conf.set(UserKeys.WRITE_TYPE, "cache_through");
    conf.set(CommonKeys.MASTER_RPC_ADDRESSES, " a:1, b:2 ,");
    assertThat(conf.get(WorkerKeys.METADATA_TTL)).isEqualTo(Duration.ofMinutes(5));
    assertThat(conf.get(WorkerKeys.MEM_SIZE)).isEqualTo(3L << 29);
    assertThat(conf.get(UserKeys.WRITE_TYPE)).isEqualTo(UserKeys.WriteType.CACHE_THROUGH);
    assertThat(conf.get(CommonKeys.MASTER_RPC_ADDRESSES)).containsExactly("a:1", "b:2");
  }

  @Test
  void types_refuseMalformedText() {
    Configuration conf = new Configuration();
    assertThatThrownBy(() -> conf.set(UserKeys.WRITE_TYPE, "SOMETIMES"))
        .hasMessageContaining("one of THROUGH");
    assertThatThrownBy(() -> conf.set(WorkerKeys.MEM_SIZE, "12 parsecs"))
        .hasMessageContaining("expected a size");
    assertThatThrownBy(() -> conf.set(WorkerKeys.MEM_SIZE, "-1MB"))
        .hasMessageContaining("expected a size");
    assertThatThrownBy(() -> conf.set(WorkerKeys.HEARTBEAT_INTERVAL, "1.5s"))
        .hasMessageContaining("duration");
    assertThatThrownBy(() -> conf.set(WorkerKeys.HEARTBEAT_INTERVAL, "0"))
        .hasMessageContaining("must be positive");
  }

  @Test
  void durations_refuseTheAmbiguousM_andWhatDoesNotFitInMilliseconds() {
    Configuration conf = new Configuration();
    assertThatThrownBy(() -> conf.set(WorkerKeys.METADATA_TTL, "5m"))
        .hasMessageContaining("'m' could mean minutes or MiB: write 5min");
    conf.set(WorkerKeys.METADATA_TTL, "5min");
    assertThat(conf.get(WorkerKeys.METADATA_TTL)).hasMinutes(5);
    assertThatThrownBy(() -> conf.set(WorkerKeys.METADATA_TTL, "9223372036854775807d"))
        .hasMessageContaining("must fit in a long of milliseconds");
    assertThatThrownBy(() -> conf.set(UserKeys.METADATA_SYNC_INTERVAL, "-2"))
        .hasMessageContaining("must be -1");
    assertThatThrownBy(() -> conf.set(WorkerKeys.MEM_SIZE, "2TiB"))
        .hasMessageContaining("from 0 to 1TiB");
  }

  @Test
  void aMemoryTier_mustFitTheDirectMemory_withRoomForTheDataPlane() {
    assertThat(DirectMemoryFit.fits(192L << 20, 256L << 20)).isTrue();
    assertThat(DirectMemoryFit.fits(193L << 20, 256L << 20)).isFalse();
    assertThatThrownBy(() -> DirectMemoryFit.require(1L << 30, 256L << 20))
        .hasMessageContainingAll("1024 MiB", "256 MiB", "-XX:MaxDirectMemorySize");
  }

  @Test
  void reference_toUnknownKey_isRefused() {
    Configuration conf = new Configuration();
    assertThatThrownBy(() -> conf.set(MasterKeys.JOURNAL_FOLDER, "${strata.nowhere}/journal"))
        .hasMessageContaining("strata.nowhere");
  }

  @Test
  void copy_isIndependent() {
    Configuration conf = new Configuration();
    Configuration copy = conf.copy();
    copy.set(WorkerKeys.RPC_PORT, "42");
    assertThat(conf.get(WorkerKeys.RPC_PORT)).isEqualTo(7710);
    assertThat(copy.get(WorkerKeys.RPC_PORT)).isEqualTo(42);
  }
}
