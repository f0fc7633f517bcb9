package io.strata.shell.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.shell.ShellContext;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code fuse mount} takes {@code --readonly} as {@code fs mount} spells it, and its own. */
class ReadOnlySpellingTest {
  @Test
  void bothSpellings_mountReadOnly() {
    for (String flag : new String[] {"--read-only", "--readonly"}) {
      FuseCommand.MountCommand cmd =
          new FuseCommand.MountCommand(new ShellContext(System.out, System.err, () -> null));
      new CommandLine(cmd).parseArgs("/mnt/strata", flag);
      assertThat(cmd.readOnly).as(flag).isTrue();
    }
  }
}
