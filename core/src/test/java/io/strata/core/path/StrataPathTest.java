package io.strata.core.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class StrataPathTest {
  @ParameterizedTest
  @CsvSource({"/,/", "//a//b/,/a/b", "/a/./b,/a/b", "/a/b/../c,/a/c", "/a/..,/", "/a b/c,/a b/c"})
  void of_normalizes(String raw, String normal) {
    assertThat(StrataPath.of(raw).toString()).isEqualTo(normal);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a/b", "/..", "/a/../..", "/a/\0b"})
  void of_refusesMalformedOrEscapingPaths(String raw) {
    assertThatThrownBy(() -> StrataPath.of(raw))
        .isInstanceOfSatisfying(
            StrataException.class,
            e -> assertThat(e.code()).isEqualTo(StatusCode.INVALID_ARGUMENT));
  }

  @Test
  void navigation() {
    StrataPath p = StrataPath.of("/data/set/f.bin");
    assertThat(p.name()).isEqualTo("f.bin");
    assertThat(p.parent()).isEqualTo(StrataPath.of("/data/set"));
    assertThat(StrataPath.ROOT.parent()).isEqualTo(StrataPath.ROOT);
    assertThat(p.isUnder(StrataPath.of("/data"))).isTrue();
    assertThat(StrataPath.of("/database").isUnder(StrataPath.of("/data"))).isFalse();
    assertThat(p.relativeTo(StrataPath.of("/data"))).isEqualTo("set/f.bin");
    assertThat(p.depth()).isEqualTo(3);
    assertThat(StrataPath.ROOT.child("x")).isEqualTo(StrataPath.of("/x"));
    assertThatThrownBy(() -> p.child("..")).isInstanceOf(StrataException.class);
    assertThatThrownBy(() -> p.child("a/b")).isInstanceOf(StrataException.class);
  }
}
