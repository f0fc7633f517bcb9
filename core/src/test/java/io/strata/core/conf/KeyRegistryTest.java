package io.strata.core.conf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Walks every key: each must be usable and documented. */
class KeyRegistryTest {
  @Test
  void everyKey_isNamedParsesItsDefaultAndIsDescribed() {
    Configuration defaults = new Configuration();
    Set<String> envNames = new HashSet<>();
    assertThat(KeyRegistry.all()).hasSizeGreaterThan(20);
    for (ConfKey<?> key : KeyRegistry.all()) {
      assertThat(key.name()).as("name").matches("strata(\\.[a-z0-9]+)+");
      assertThat(key.description()).as(key.name()).isNotBlank().endsWith(".");
      assertThat(defaults.get(key)).as(key.name() + " default").isNotNull();
      assertThat(envNames.add(key.environmentName()))
          .as(key.name() + " env name is unique")
          .isTrue();
      assertThat(KeyRegistry.find(key.name())).contains(key);
    }
  }

  @Test
  void everyNumberAndDuration_isBounded() {
    Set<ConfType<?>> numeric =
        Set.of(ConfType.INT, ConfType.LONG, ConfType.BYTES, ConfType.DURATION);
    assertThat(
            KeyRegistry.all().stream()
                .filter(k -> numeric.contains(k.type()) && !k.isChecked())
                .map(ConfKey::name)
                .toList())
        .as("keys any value of whose type is taken")
        .isEmpty();
  }

  @Test
  void suggestions_findTyposButNotStrangers() {
    Set<String> names = Set.of("strata.worker.page.size", "strata.worker.rpc.port");
    assertThat(Suggestions.closest("strata.worker.page.sise", names))
        .contains("strata.worker.page.size");
    assertThat(Suggestions.closest("strata.worker.rpcport", names))
        .contains("strata.worker.rpc.port");
    assertThat(Suggestions.closest("completely.different", names)).isEmpty();
  }
}
