package io.strata.master.journal;

import static org.assertj.core.api.Assertions.assertThat;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.PathPolicy;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerState;
import io.strata.core.status.StatusCode;
import io.strata.core.ufs.Mount;
import io.strata.master.journal.MasterCommand.AddMount;
import io.strata.master.journal.MasterCommand.DecommissionWorker;
import io.strata.master.journal.MasterCommand.RegisterWorker;
import io.strata.master.journal.MasterCommand.RemoveMount;
import io.strata.master.journal.MasterCommand.SetPathPolicy;
import io.strata.master.journal.MasterCommand.WorkerBack;
import io.strata.master.journal.MasterCommand.WorkerLost;
import io.strata.master.state.ApplyResult;
import io.strata.master.state.ClusterState;
import io.strata.master.state.PathPolicies;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Feeds command sequences to the state machine's applier, without Ratis or a network. */
class ApplierScenarioTest {
  private static WorkerAddress worker(int port) {
    return WorkerAddress.newBuilder().setHost("h").setRpcPort(port).setDataPort(port + 1).build();
  }

  private static final Mount ROOT = new Mount(StrataPath.ROOT, "file:///srv", false);

  /** Applies through the codec too, as the log would. */
  private static ApplyResult apply(ClusterState state, MasterCommand c) throws Exception {
    return CommandCodec.decode(CommandCodec.encode(c)).accept(new Applier(state));
  }

  @Test
  void membership_movesThroughItsStates() throws Exception {
    ClusterState s = new ClusterState();
    assertThat(apply(s, new RegisterWorker(worker(1), 100)).ok()).isTrue();
    assertThat(apply(s, new RegisterWorker(worker(3), 101)).ok()).isTrue();
    long v = s.membership().version();
    assertThat(apply(s, new RegisterWorker(worker(1), 102)).ok()).isTrue();
    assertThat(s.membership().version()).as("re-registering unchanged is no change").isEqualTo(v);
    apply(s, new WorkerLost("h:1", 200));
    assertThat(s.membership().get("h:1").orElseThrow().getState()).isEqualTo(WorkerState.LOST);
    apply(s, new WorkerLost("h:1", 201));
    apply(s, new WorkerBack("h:1", 300));
    assertThat(s.membership().get("h:1").orElseThrow().getState()).isEqualTo(WorkerState.LIVE);
    assertThat(s.membership().get("h:1").orElseThrow().getStateChangedAtMs()).isEqualTo(300);
    apply(s, new DecommissionWorker("h:3", 400));
    assertThat(s.membership().get("h:3").orElseThrow().getState())
        .isEqualTo(WorkerState.DECOMMISSIONED);
    assertThat(apply(s, new WorkerLost("h:9", 500)).code()).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(s.membership().version()).isEqualTo(v + 3);
  }

  @Test
  void aWorkerThatIsGone_isRemovedForGood_neverALiveOne() throws Exception {
    ClusterState s = new ClusterState();
    apply(s, new RegisterWorker(worker(1), 100));
    apply(s, new RegisterWorker(worker(2), 100));
    ApplyResult live = apply(s, new MasterCommand.RemoveWorker("h:1"));
    assertThat(live.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(live.message()).contains("LIVE", "decommissionWorker");
    apply(s, new WorkerLost("h:1", 200));
    long v = s.membership().version();
    assertThat(apply(s, new MasterCommand.RemoveWorker("h:1")).ok()).isTrue();
    assertThat(s.membership().get("h:1")).isEmpty();
    assertThat(s.membership().version()).isEqualTo(v + 1);
    assertThat(apply(s, new MasterCommand.RemoveWorker("h:1")).code())
        .isEqualTo(StatusCode.NOT_FOUND);
    ClusterState restored = new ClusterState();
    restored.restore(s.snapshot());
    assertThat(restored.digest()).isEqualTo(s.digest());
    assertThat(restored.membership().all()).hasSize(1);
  }

  @Test
  void pinsAndTtls_mergeByPath_survivingASnapshot_andRefuseWhatIsNotThere() throws Exception {
    ClusterState s = new ClusterState();
    assertThat(apply(s, new SetPathPolicy("/data/", true, null, "")).ok()).isTrue();
    assertThat(apply(s, new SetPathPolicy("/data", null, 60_000L, "")).ok()).isTrue();
    assertThat(s.policies().all())
        .containsExactly(
            PathPolicy.newBuilder().setPath("/data").setPinned(true).setTtlMs(60_000).build());
    ApplyResult under = apply(s, new SetPathPolicy("/data/x", false, null, ""));
    assertThat(under.code()).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(under.message()).isEqualTo("/data/x is not pinned (its folder /data is pinned)");
    assertThat(apply(s, new SetPathPolicy("/other", null, 0L, "")).message())
        .isEqualTo("/other has no TTL");
    assertThat(apply(s, new SetPathPolicy("/other", null, -5L, "")).code())
        .isEqualTo(StatusCode.INVALID_ARGUMENT);
    long v = s.policies().version();
    assertThat(apply(s, new SetPathPolicy("/data", true, null, "")).ok()).isTrue();
    assertThat(s.policies().version()).as("pinning again is no change").isEqualTo(v);

    ClusterState restored = new ClusterState();
    restored.restore(s.snapshot());
    assertThat(restored.digest()).isEqualTo(s.digest());
    assertThat(restored.view().getPoliciesList()).isEqualTo(s.view().getPoliciesList());

    assertThat(apply(s, new SetPathPolicy("/data", false, 0L, "")).ok()).isTrue();
    assertThat(s.policies().all()).as("neither pinned nor with a TTL: gone").isEmpty();
    assertThat(s.policies().version()).isEqualTo(v + 1);
  }

  @Test
  void mounts_refuseDuplicatesAndRootRemoval_replaceWhenAsked() throws Exception {
    ClusterState s = new ClusterState();
    Mount data = new Mount(StrataPath.of("/data"), "file:///d", true);
    assertThat(apply(s, new AddMount(data, false)).code())
        .isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(apply(s, new AddMount(ROOT, false)).ok()).isTrue();
    assertThat(apply(s, new AddMount(data, false)).ok()).isTrue();
    assertThat(apply(s, new AddMount(data, false)).code()).isEqualTo(StatusCode.ALREADY_EXISTS);
    Mount inside = new Mount(StrataPath.of("/data/in"), "s3://bkt/in", false);
    assertThat(apply(s, new AddMount(inside, false)).code())
        .as("mounts do not nest")
        .isEqualTo(StatusCode.FAILED_PRECONDITION);
    Mount above =
        new Mount(
            StrataPath.of("/a"), "s3://bkt/a", false, java.util.Map.of("s3.region", "x"), true);
    assertThat(apply(s, new AddMount(above, false)).ok()).isTrue();
    assertThat(
            apply(s, new AddMount(new Mount(StrataPath.of("/a/b"), "file:///b", false), false))
                .code())
        .isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(apply(s, new RemoveMount("/a")).ok()).isTrue();
    Mount newRoot = new Mount(StrataPath.ROOT, "file:///other", false);
    assertThat(apply(s, new AddMount(newRoot, true)).ok()).isTrue();
    assertThat(apply(s, new RemoveMount("/")).code()).isEqualTo(StatusCode.INVALID_ARGUMENT);
    assertThat(apply(s, new RemoveMount("/nope")).code()).isEqualTo(StatusCode.NOT_FOUND);
    assertThat(apply(s, new RemoveMount("/data")).ok()).isTrue();
    assertThat(s.mounts().all()).containsExactly(newRoot);
    assertThat(s.mounts().version()).as("root, /data, /a, -/a, root again, -/data").isEqualTo(6);
  }

  @Test
  void confOverrides_setUnsetAndVersion() throws Exception {
    ClusterState s = new ClusterState();
    String empty = s.conf().hash();
    apply(s, new MasterCommand.SetConf(java.util.Map.of("strata.worker.metadata.cache.ttl", "5s")));
    apply(s, new MasterCommand.SetConf(java.util.Map.of("strata.worker.metadata.cache.ttl", "5s")));
    assertThat(s.conf().version()).as("setting the same value again is no change").isEqualTo(1);
    assertThat(s.view().getConfHash()).isNotEqualTo(empty);
    apply(
        s,
        new MasterCommand.UnsetConf(
            List.of("strata.worker.metadata.cache.ttl", "strata.log.levels")));
    assertThat(s.conf().values()).isEmpty();
    assertThat(s.conf().version()).isEqualTo(2);
    assertThat(s.conf().hash()).isEqualTo(empty);
  }

  @Test
  void snapshot_restoresToTheSameDigest() throws Exception {
    ClusterState s = new ClusterState();
    for (MasterCommand c :
        List.of(
            new AddMount(ROOT, false),
            new RegisterWorker(worker(1), 1),
            new RegisterWorker(worker(5), 2),
            new WorkerLost("h:5", 3),
            new AddMount(new Mount(StrataPath.of("/x"), "file:///x", false), false),
            new MasterCommand.SetConf(
                java.util.Map.of(
                    "strata.audit.log.enabled", "true", "strata.log.levels", "a=INFO")))) {
      apply(s, c);
    }
    ClusterState restored = new ClusterState();
    restored.restore(s.snapshot());
    assertThat(restored.digest()).isEqualTo(s.digest());
    assertThat(restored.view()).isEqualTo(s.view());
    apply(restored, new WorkerBack("h:5", 4));
    assertThat(restored.digest()).isNotEqualTo(s.digest());
  }

  private static io.strata.core.proto.LoadJob loadJob(long id, String path) {
    return io.strata.core.proto.LoadJob.newBuilder()
        .setId(id)
        .setPath(path)
        .setSubmittedMs(id)
        .build();
  }

  /** Issue 54, item 7: ~520 policies of 16 KiB paths made every cluster view too large. */
  @Test
  void pathPolicies_areBoundedInBytes_notOnlyInNumber() throws Exception {
    ClusterState s = new ClusterState();
    String longFolder = "/" + "d".repeat(4000);
    int accepted = 0;
    ApplyResult last = ApplyResult.OK;
    for (int i = 0; i < 600 && last.ok(); i++) {
      last = apply(s, new SetPathPolicy(longFolder + i, true, null, ""));
      accepted += last.ok() ? 1 : 0;
    }
    assertThat(last.code()).isEqualTo(io.strata.core.status.StatusCode.RESOURCE_EXHAUSTED);
    assertThat(accepted).isLessThan(300);
    assertThat(s.view().getSerializedSize()).isLessThan(2 << 20);
    var tooLong = apply(s, new SetPathPolicy("/" + "x".repeat(5000), true, null, ""));
    assertThat(tooLong.code()).isEqualTo(io.strata.core.status.StatusCode.INVALID_ARGUMENT);
    // Room again once one goes.
    assertThat(apply(s, new SetPathPolicy(longFolder + 0, false, null, "")).ok()).isTrue();
    assertThat(apply(s, new SetPathPolicy("/short", true, null, "")).ok()).isTrue();
  }

  /**
   * Issue 78: policies were one pool for all, so one user could take every slot (with folders they
   * may write) and no one could pin a dataset after.
   */
  @Test
  void pathPolicies_areSharedOut_noUserTakesAll_usersLeaveRoomForAdmins() throws Exception {
    ClusterState s = new ClusterState();
    for (int i = 0; i < PathPolicies.MAX_PER_USER; i++) {
      assertThat(apply(s, new SetPathPolicy("/m/" + i, true, null, "mallory")).ok()).isTrue();
    }
    ApplyResult refused = apply(s, new SetPathPolicy("/m/more", true, null, "mallory"));
    assertThat(refused.code()).isEqualTo(StatusCode.RESOURCE_EXHAUSTED);
    assertThat(refused.message()).contains("mallory holds 1000", "the most one user may");
    // Changing one of hers takes no new slot; alice and admins still have theirs.
    assertThat(apply(s, new SetPathPolicy("/m/0", null, 60_000L, "alice")).ok()).isTrue();
    assertThat(apply(s, new SetPathPolicy("/alice", true, null, "alice")).ok()).isTrue();
    assertThat(apply(s, new SetPathPolicy("/datasets", true, null, "")).ok()).isTrue();

    // After a restart from a snapshot, the shares are what they were.
    ClusterState restored = new ClusterState();
    restored.restore(s.snapshot());
    assertThat(apply(restored, new SetPathPolicy("/m/more", true, null, "mallory")).code())
        .isEqualTo(StatusCode.RESOURCE_EXHAUSTED);
    // One of hers gone (alice's TTL on it too) makes room for one more.
    assertThat(apply(restored, new SetPathPolicy("/m/0", false, 0L, "mallory")).ok()).isTrue();
    assertThat(apply(restored, new SetPathPolicy("/m/more", true, null, "mallory")).ok()).isTrue();

    // Users together stop at half the cluster's policies; admins keep the other half.
    int users = PathPolicies.MAX_FOR_USERS / PathPolicies.MAX_PER_USER;
    for (int u = 1; u < users; u++) {
      for (int i = 0; i < PathPolicies.MAX_PER_USER; i++) {
        apply(restored, new SetPathPolicy("/u" + u + "/" + i, true, null, "user" + u));
      }
    }
    ApplyResult usersFull = apply(restored, new SetPathPolicy("/late", true, null, "late"));
    assertThat(usersFull.code()).isEqualTo(StatusCode.RESOURCE_EXHAUSTED);
    assertThat(usersFull.message()).contains("the most users may together");
    assertThat(apply(restored, new SetPathPolicy("/admin", true, null, "")).ok()).isTrue();
  }

  @Test
  void loadJobs_runningAtOnce_areBounded_andOneEndingMakesRoom() throws Exception {
    ClusterState s = new ClusterState();
    for (int i = 0; i < io.strata.master.state.LoadJobs.MAX_RUNNING; i++) {
      assertThat(apply(s, new MasterCommand.SubmitLoad(loadJob(100 + i, "/d" + i))).ok()).isTrue();
    }
    var refused = apply(s, new MasterCommand.SubmitLoad(loadJob(999, "/one-more")));
    assertThat(refused.code()).isEqualTo(io.strata.core.status.StatusCode.RESOURCE_EXHAUSTED);
    assertThat(refused.message()).contains("loads are running", "--stop");
    assertThat(
            apply(
                    s,
                    new MasterCommand.FinishLoad(
                        100, io.strata.core.proto.LoadState.LOAD_STOPPED, "", 5, files(0)))
                .ok())
        .isTrue();
    assertThat(apply(s, new MasterCommand.SubmitLoad(loadJob(1000, "/one-more"))).ok()).isTrue();
  }

  @Test
  void aFinishedJob_recordsItsFinalFiguresAndFailures_withItsEnd() throws Exception {
    ClusterState s = new ClusterState();
    assertThat(apply(s, new MasterCommand.SubmitLoad(loadJob(20, "/b"))).ok()).isTrue();
    var early = io.strata.core.proto.LoadFailure.newBuilder().setPath("/b/x").setReason("gone");
    assertThat(
            apply(s, new MasterCommand.LoadProgress(20, files(5), "/b/e", List.of(early.build())))
                .ok())
        .isTrue();
    var late = io.strata.core.proto.LoadFailure.newBuilder().setPath("/b/y").setReason("denied");
    assertThat(
            apply(
                    s,
                    new MasterCommand.FinishLoad(
                        20,
                        io.strata.core.proto.LoadState.LOAD_FAILED,
                        "2 of 9 files failed",
                        950,
                        files(9),
                        List.of(late.build(), early.build())))
                .ok())
        .isTrue();
    var job = s.loads().get(20).orElseThrow();
    assertThat(job.getCounters().getFiles()).isEqualTo(9);
    assertThat(job.getFinishedMs()).isEqualTo(950);
    assertThat(job.getFailuresList())
        .as("a failure a checkpoint recorded is not recorded twice")
        .extracting(io.strata.core.proto.LoadFailure::getPath)
        .containsExactly("/b/x", "/b/y");
  }

  private static io.strata.core.proto.LoadCounters files(long n) {
    return io.strata.core.proto.LoadCounters.newBuilder().setFiles(n).setBytes(n * 10).build();
  }

  @Test
  void loadJobs_oneRunningPerPath_checkpoints_capFailures_andEndOnce_acrossASnapshot()
      throws Exception {
    ClusterState s = new ClusterState();
    assertThat(apply(s, new MasterCommand.SubmitLoad(loadJob(10, "/a"))).ok()).isTrue();
    assertThat(apply(s, new MasterCommand.SubmitLoad(loadJob(11, "/a"))).message())
        .contains("job 10 is already loading /a");
    assertThat(apply(s, new MasterCommand.SubmitLoad(loadJob(10, "/b"))).code())
        .isEqualTo(StatusCode.ALREADY_EXISTS);
    List<io.strata.core.proto.LoadFailure> many = new java.util.ArrayList<>();
    for (int i = 0; i < 150; i++) {
      many.add(
          io.strata.core.proto.LoadFailure.newBuilder()
              .setPath("/a/f" + i)
              .setReason("bad")
              .build());
    }
    assertThat(apply(s, new MasterCommand.LoadProgress(10, files(500), "/a/f499", many)).ok())
        .isTrue();
    io.strata.core.proto.LoadJob job = s.loads().get(10).orElseThrow();
    assertThat(job.getCursor()).isEqualTo("/a/f499");
    assertThat(job.getFailuresCount()).isEqualTo(io.strata.master.state.LoadJobs.MAX_FAILURES);

    ClusterState restored = new ClusterState();
    restored.restore(s.snapshot());
    assertThat(restored.digest()).isEqualTo(s.digest());
    assertThat(restored.loads().runningJobs())
        .extracting(io.strata.core.proto.LoadJob::getId)
        .containsExactly(10L);

    assertThat(
            apply(
                    s,
                    new MasterCommand.FinishLoad(
                        10,
                        io.strata.core.proto.LoadState.LOAD_STOPPED,
                        "stopped",
                        900,
                        files(600)))
                .ok())
        .isTrue();
    assertThat(s.loads().get(10).orElseThrow().getCounters().getFiles()).isEqualTo(600);
    assertThat(
            apply(
                    s,
                    new MasterCommand.FinishLoad(
                        10, io.strata.core.proto.LoadState.LOAD_SUCCEEDED, "", 901, null))
                .code())
        .isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(apply(s, new MasterCommand.LoadProgress(10, files(700), "/a/z", List.of())).ok())
        .isFalse();
    assertThat(s.loads().runningJobs()).isEmpty();
    assertThat(apply(s, new MasterCommand.SubmitLoad(loadJob(12, "/a"))).ok())
        .as("a path may be loaded again")
        .isTrue();
    assertThat(s.loads().latest("/a").orElseThrow().getId()).isEqualTo(12);
  }
}
