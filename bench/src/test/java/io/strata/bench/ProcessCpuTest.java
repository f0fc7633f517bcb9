package io.strata.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcessCpuTest {
  @Test
  void ticks_areUtimePlusStime_countedAfterTheName_whateverItHolds() {
    String stat =
        "4486 (C2 CompilerThre) S 1 4486 4486 0 -1 4194560 36251 0 1 0 1834 27 0 0 20 0 1 0 1257167";
    assertThat(ProcessCpu.ticks(stat)).isEqualTo(1834 + 27);
    String odd = "77 (a (b) c) R 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 1";
    assertThat(ProcessCpu.ticks(odd)).isEqualTo(11);
  }

  @Test
  void thisProcess_hasUsedSomeCpu_andOneThatIsGoneNone() {
    assertThat(ProcessCpu.millis(ProcessHandle.current().pid())).isGreaterThanOrEqualTo(0);
    assertThat(ProcessCpu.millis(Long.MAX_VALUE)).isEqualTo(-1);
    assertThat(ProcessCpu.millis(-1)).isEqualTo(-1);
  }
}
