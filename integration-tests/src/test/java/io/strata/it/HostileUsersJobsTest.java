package io.strata.it;

import static io.strata.it.HostileUsers.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.strata.master.load.LoadControl;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Attacks through the cluster's jobs (issues 54 and 78): loads of what a user may not list, of a
 * shared folder, or many at once; others' jobs; pins and TTLs. The cluster: {@link HostileUsers}.
 */
@ExtendWith(HostileUsers.class)
class HostileUsersJobsTest {
  /** Medium: a user could load any folder into the cache and stop anyone's load. */
  @Test
  void aUserLoadsOnlyWhatTheyMayList_andStopsOnlyTheirOwnJobs() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    ShellRunner.Run load = mallory.run("fs", "distributedLoad", "--submit", "/home/ali");
    assertOneLineRefusal(load.err(), "PERMISSION_DENIED", "load /home/ali: 4002 lacks r");
    // What lies in alice's folder stays hers to know: a file there, and nothing, answer alike.
    for (String probe : List.of("/home/ali/secret", "/home/ali/nothing-here")) {
      ShellRunner.Run probed = mallory.run("fs", "distributedLoad", "--submit", probe);
      assertOneLineRefusal(probed.err(), "PERMISSION_DENIED", "4002 lacks x on /home/ali");
    }
    ShellRunner.Run jobs = shellAs(ALICE).run("job", "list");
    assertThat(jobs.out()).as("mallory's refused load left no job").doesNotContain("/home/ali");

    ShellRunner.Run alices = shellAs(ALICE).run("fs", "distributedLoad", "/home/ali", "--json");
    assertThat(alices.code()).as(alices.err()).isZero();
    assertThat(alices.out()).contains("\"owner\":\"4001\"", "\"files\":1");
    long id = Long.parseLong(alices.out().replaceAll("(?s).*\"id\":(\\d+).*", "$1"));
    ShellRunner.Run stop = mallory.run("job", "stop", Long.toString(id));
    assertOneLineRefusal(
        stop.err(), "PERMISSION_DENIED", "is 4001's; 4002 may stop only their own jobs");
    assertThat(stop.err()).as("nor learns the job's path").doesNotContain("/home/ali");
    ShellRunner.Run status = mallory.run("job", "status", Long.toString(id));
    assertOneLineRefusal(
        status.err(), "PERMISSION_DENIED", "is 4001's; 4002 may see only their own jobs");
    ShellRunner.Run list = mallory.run("job", "list");
    assertThat(list.code()).as(list.err()).isZero();
    assertThat(list.out()).as("another's jobs are not listed").doesNotContain("/home/ali");
    assertThat(shellAs(ALICE).run("job", "list").out()).contains("/home/ali");
    ShellRunner.Run own = shellAs(ALICE).run("job", "stop", Long.toString(id));
    assertOneLineRefusal(own.err(), "FAILED_PRECONDITION", "is not running");
  }

  /**
   * Medium: a user who may list a shared folder loaded everything under it, other users' private
   * folders included, as the walk runs as the cluster; and one user could run every load slot.
   */
  @Test
  void aUsersLoadWalksOnlyWhatTheyMayList_andRunsAFewAtOnce() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    ShellRunner.Run hers = mallory.run("fs", "distributedLoad", "/shared", "--json");
    assertThat(hers.code()).as(hers.out() + hers.err()).isZero();
    ShellRunner.Run alices = shellAs(ALICE).run("fs", "distributedLoad", "/shared", "--json");
    assertThat(alices.code()).as(alices.err()).isZero();
    assertThat(files(hers.out()))
        .as("alice's 0700 /shared/a is not walked for mallory")
        .isEqualTo(files(alices.out()) - 1);

    // Each runs for about 12 s, holding a loader thread for jobs with a limit as it waits.
    List<String> running = new ArrayList<>();
    try {
      for (int i = 0; i < LoadControl.MAX_RUNNING_PER_USER; i++) {
        String path = "/shared/m/l" + i;
        ShellRunner.Run r = slowLoad(mallory, path);
        assertThat(r.code()).as(r.err()).isZero();
        running.add(path);
      }
      ShellRunner.Run fifth = slowLoad(mallory, "/shared/m/l" + LoadControl.MAX_RUNNING_PER_USER);
      assertOneLineRefusal(
          fifth.err(), "RESOURCE_EXHAUSTED", "4002 runs 4 loads already, the most a user may");
      // Her slow loads wait on loader threads of their own: another user's load goes on.
      ShellRunner.Run others =
          shellAs(ALICE).run("fs", "distributedLoad", "/pub", "--force", "--json");
      assertThat(others.code()).as(others.out() + others.err()).isZero();
    } finally {
      for (String path : running) {
        mallory.run("fs", "distributedLoad", path, "--stop");
      }
    }
  }

  /**
   * A load of {@code path} submitted and left running: forced (the parts are cached already), a
   * file per batch at 256 KiB/s.
   */
  private static ShellRunner.Run slowLoad(ShellRunner shell, String path) {
    return shell.run(
        "fs",
        "distributedLoad",
        path,
        "--submit",
        "--force",
        "--batch-size",
        "1",
        "--bandwidth",
        "256KiB");
  }

  private static long files(String json) {
    return Long.parseLong(json.replaceAll("(?s).*\"files\":(\\d+).*", "$1"));
  }

  /** Item 7: any user could pin, or set a TTL on, what others cache. */
  @Test
  void aUserPinsAndSetsTtlsOnlyWhereTheyMayWrite() throws Exception {
    ShellRunner mallory = shellAs(MALLORY);
    ShellRunner.Run pin = mallory.run("fs", "pin", "/data/table.csv");
    assertOneLineRefusal(pin.err(), "PERMISSION_DENIED", "pin /data/table.csv: 4002 lacks w");
    ShellRunner.Run ttl = mallory.run("fs", "setTtl", "/home/ali", "1min");
    assertOneLineRefusal(ttl.err(), "PERMISSION_DENIED", "set a TTL on /home/ali: 4002 lacks w");
    ShellRunner.Run own = mallory.run("fs", "pin", "/tmp/m");
    assertThat(own.code()).as(own.err()).isZero();
    // Hers, counted against her share of the cluster's policies (PathPolicies.MAX_PER_USER).
    assertThat(view(as(ALICE)).getPoliciesList())
        .filteredOn(p -> p.getPath().equals("/tmp/m"))
        .extracting(p -> p.getOwner())
        .containsExactly(MALLORY);
    assertThat(mallory.run("fs", "unpin", "/tmp/m").code()).isZero();
    ShellRunner.Run alices = shellAs(ALICE).run("fs", "pin", "/home/ali");
    assertThat(alices.code()).as(alices.err()).isZero();
    ShellRunner.Run unpin = mallory.run("fs", "unpin", "/home/ali");
    assertOneLineRefusal(unpin.err(), "PERMISSION_DENIED", "unpin /home/ali: 4002 lacks w");
    assertThat(shellAs(ALICE).run("fs", "unpin", "/home/ali").code()).isZero();
  }
}
