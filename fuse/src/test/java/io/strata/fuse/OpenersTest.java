package io.strata.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Closes by the process that opened a descriptor publish; closes by its children wait for it. */
class OpenersTest {
  private final Openers openers = new Openers();
  private final long self = ProcessHandle.current().pid();
  private Process child;

  @BeforeEach
  void startChild() throws Exception {
    child = new ProcessBuilder("sleep", "60").start();
  }

  @AfterEach
  void stopChild() {
    child.destroyForcibly();
  }

  @Test
  void everyThreadOfAProcess_belongsToIt() throws Exception {
    List<Long> threads;
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      threads = tasks.map(t -> Long.parseLong(t.getFileName().toString())).toList();
    }
    assertThat(threads).hasSizeGreaterThan(1);
    assertThat(threads).allSatisfy(tid -> assertThat(Openers.processOf(tid)).isEqualTo(self));
    assertThat(Openers.processOf(child.pid())).isEqualTo(child.pid());
  }

  @Test
  void aChildsCloseWhileTheOpenerHoldsTheFile_publishesNothing_theOpenersCloseDoes() {
    openers.opened(7, self);
    assertThat(openers.closePublishes(7, child.pid())).isFalse();
    assertThat(openers.closePublishes(7, self)).isTrue();
    // The opener closed its own: the child, handed the file, publishes what it writes at its exit.
    assertThat(openers.closePublishes(7, child.pid())).isTrue();
  }

  @Test
  void callersThatCannotBeNamed_publishAsBefore() {
    openers.opened(8, 0);
    assertThat(openers.closePublishes(8, child.pid())).isTrue();
    openers.opened(9, self);
    assertThat(openers.closePublishes(9, 0)).isTrue();
    assertThat(openers.closePublishes(10, child.pid())).as("a handle never opened here").isTrue();
  }

  @Test
  void aReleasedHandle_isForgotten() {
    openers.opened(11, self);
    openers.released(11);
    assertThat(openers.closePublishes(11, child.pid())).isTrue();
  }
}
