package io.strata.core.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterConfTest {
  @Test
  void validateUpdate_refusesTheWholeBatch_namingEachBadKey() {
    assertThatThrownBy(
            () ->
                ClusterConf.validateUpdate(
                    Map.of(
                        "strata.worker.metadata.cache.ttl", "10s",
                        "strata.worker.metadata.cache.tll", "5s",
                        "strata.worker.page.size", "2MiB",
                        "strata.user.write.type", "SOMETIMES")))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> {
              assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
              assertThat(e.getMessage())
                  .startsWith("nothing changed:")
                  .contains(
                      "unknown key 'strata.worker.metadata.cache.tll' (did you mean 'strata.worker.metadata.cache.ttl'?)")
                  .contains("strata.worker.page.size cannot change while Strata runs", "restart")
                  .contains("'SOMETIMES' for strata.user.write.type")
                  .doesNotContain("\n");
            });
  }

  @Test
  void validateUpdate_acceptsDynamicKeysWithGoodValues() {
    ClusterConf.validateUpdate(
        Map.of("strata.worker.metadata.cache.ttl", "10s", "strata.log.levels", "a.b=DEBUG"));
    assertThatThrownBy(() -> ClusterConf.validateUpdate(Map.of()))
        .hasMessageContaining("nothing to update");
    assertThatThrownBy(() -> ClusterConf.validateUpdate(Map.of("strata.log.levels", "a.b=LOUD")))
        .hasMessageContaining("logger=LEVEL");
    assertThatThrownBy(() -> ClusterConf.validateUnset(List.of("strata.no.key")))
        .hasMessageContaining("unknown key");
  }

  @Test
  void hash_dependsOnContentNotOrder() {
    assertThat(ClusterConf.hash(Map.of("a", "1", "b", "2")))
        .isEqualTo(ClusterConf.hash(Map.of("b", "2", "a", "1")))
        .isNotEqualTo(ClusterConf.hash(Map.of("a", "1", "b", "3")))
        .hasSize(16);
  }

  @Test
  void apply_replacesTheClusterLayer_andUnsetBringsBackTheSiteValue() {
    Configuration conf = new Configuration();
    conf.set(WorkerKeys.METADATA_TTL, "2min", Source.SITE_PROPERTIES, "site");
    List<Duration> seen = new ArrayList<>();
    conf.onChange(WorkerKeys.METADATA_TTL, seen::add);
    ClusterConf.apply(
        conf, Map.of("strata.worker.metadata.cache.ttl", "5s", "strata.unknown.key", "x"), 1);
    assertThat(conf.get(WorkerKeys.METADATA_TTL)).isEqualTo(Duration.ofSeconds(5));
    assertThat(conf.source(WorkerKeys.METADATA_TTL)).isEqualTo(Source.CLUSTER);
    ClusterConf.apply(conf, Map.of("strata.worker.metadata.cache.ttl", "5s"), 2);
    ClusterConf.apply(conf, Map.of(), 3);
    assertThat(conf.get(WorkerKeys.METADATA_TTL)).isEqualTo(Duration.ofMinutes(2));
    assertThat(seen)
        .as("listeners hear of effective changes only")
        .containsExactly(Duration.ofSeconds(5), Duration.ofMinutes(2));
  }

  @Test
  void clusterOverride_beatsEverySource() {
    Configuration conf = new Configuration();
    conf.set(WorkerKeys.METADATA_TTL, "1s", Source.SYSTEM_PROPERTY, "-D");
    ClusterConf.apply(conf, Map.of("strata.worker.metadata.cache.ttl", "9s"), 1);
    assertThat(conf.get(WorkerKeys.METADATA_TTL)).isEqualTo(Duration.ofSeconds(9));
    conf.unset(WorkerKeys.METADATA_TTL, Source.CLUSTER);
    assertThat(conf.get(WorkerKeys.METADATA_TTL)).isEqualTo(Duration.ofSeconds(1));
  }
}
