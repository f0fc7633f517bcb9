package io.strata.shell.fs;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.shell.ShellContext;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code fs mount} takes {@code --read-only} as {@code fuse mount} spells it, and its own. */
class ReadOnlySpellingTest {
  @Test
  void bothSpellings_mountReadOnly() {
    for (String flag : new String[] {"--readonly", "--read-only"}) {
      MountCommand cmd = new MountCommand(new ShellContext(System.out, System.err, () -> null));
      new CommandLine(cmd).parseArgs("/archive", "/nfs/archive", flag);
      assertThat(cmd.readOnly).as(flag).isTrue();
    }
  }
}
