package io.strata.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CompilersTest {
  @Test
  void ticks_areUtimePlusStime_countedAfterTheName_whateverItHolds() {
    String stat =
        "4486 (C2 CompilerThre) S 1 4486 4486 0 -1 4194560 36251 0 1 0 1834 27 0 0 20 0 1 0 1257167";
    assertThat(Compilers.ticks(stat)).isEqualTo(1834 + 27);
    String odd = "77 (a (b) c) R 1 77 77 0 -1 0 0 0 0 0 5 6 0 0 20 0 1 0 1";
    assertThat(Compilers.ticks(odd)).isEqualTo(11);
  }

  @Test
  void onlyTheJitCompilerThreadsCount() {
    assertThat(Compilers.isCompiler("C2 CompilerThre\n")).isTrue();
    assertThat(Compilers.isCompiler("C1 CompilerThre")).isTrue();
    assertThat(Compilers.isCompiler("GC Thread#0")).isFalse();
    assertThat(Compilers.isCompiler("loader-1")).isFalse();
  }

  @Test
  void aProcessThatIsGone_cannotBeRead() {
    assertThat(Compilers.of(Long.MAX_VALUE).cpuMillis()).isEqualTo(-1);
  }

  @Test
  void thisJvmsCompilers_areRead_onLinux() {
    assertThat(Compilers.thisJvmAnd().cpuMillis()).isGreaterThanOrEqualTo(0);
  }
}
