package io.strata.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CompilersTest {
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
