package io.strata.shell.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.status.StrataException;
import org.junit.jupiter.api.Test;

class ModeSpecTest {
  @Test
  void octal_replacesTheBits() {
    assertThat(ModeSpec.parse("755").apply(0600, false)).isEqualTo(0755);
    assertThat(ModeSpec.parse("0640").apply(0777, true)).isEqualTo(0640);
  }

  @Test
  void symbolic_addsRemovesAndSets_asChmodDoes() {
    assertThat(ModeSpec.parse("u+x").apply(0644, false)).isEqualTo(0744);
    assertThat(ModeSpec.parse("go-w").apply(0666, false)).isEqualTo(0644);
    assertThat(ModeSpec.parse("a=r,u+w").apply(0777, false)).isEqualTo(0644);
    assertThat(ModeSpec.parse("+x").apply(0644, false)).isEqualTo(0755);
    assertThat(ModeSpec.parse("o=").apply(0757, false)).isEqualTo(0750);
  }

  @Test
  void capitalX_setsExecuteOnFoldersAndOnFilesSomeoneMayExecute() {
    assertThat(ModeSpec.parse("a+X").apply(0644, true)).isEqualTo(0755);
    assertThat(ModeSpec.parse("a+X").apply(0644, false)).isEqualTo(0644);
    assertThat(ModeSpec.parse("a+X").apply(0744, false)).isEqualTo(0755);
  }

  @Test
  void nonsense_isRefusedWithTheFormsItTakes() {
    for (String bad : new String[] {"", "9", "u+y", "rwx", "u+x,", "12345", "1777", "g+s", "+t"}) {
      assertThatThrownBy(() -> ModeSpec.parse(bad))
          .as(bad)
          .isInstanceOf(StrataException.class)
          .hasMessageContaining("invalid mode '" + bad + "'");
    }
  }
}
