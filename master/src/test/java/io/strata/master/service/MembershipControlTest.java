package io.strata.master.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.proto.RegisterWorkerRequest;
import io.strata.core.proto.WorkerAddress;
import io.strata.core.proto.WorkerHeartbeatRequest;
import io.strata.core.proto.WorkerHeartbeatResponse;
import io.strata.core.proto.WorkerInfo;
import io.strata.core.proto.WorkerState;
import io.strata.core.security.Security;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.journal.MasterCommand;
import io.strata.master.journal.MasterJournal;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Registration, heartbeats and removal on a real single-peer group, with a clock of the test's. */
class MembershipControlTest {
  private static final WorkerAddress W1 =
      WorkerAddress.newBuilder().setHost("127.0.0.1").setRpcPort(7001).setDataPort(7002).build();

  @TempDir Path folder;
  private final AtomicLong nanos = new AtomicLong(1);
  private final WorkerLiveness liveness = new WorkerLiveness(nanos::get);
  private MasterJournal journal;
  private MembershipControl membership;

  @BeforeEach
  void start() throws IOException {
    Configuration conf = SinglePeerJournal.conf(folder);
    conf.set(MasterKeys.WORKER_TIMEOUT, "30s");
    journal = SinglePeerJournal.start(conf);
    membership = new MembershipControl(journal, liveness, Clock.systemUTC(), conf, Security.none());
  }

  @AfterEach
  void stop() throws IOException {
    journal.close();
  }

  @Test
  void aLiveWorkerRegisteringAgainAtItsAddress_changesNothingInTheJournal() {
    String id =
        membership.register(RegisterWorkerRequest.newBuilder().setAddress(W1).build(), null);
    long version = membershipVersion();

    assertThat(membership.register(RegisterWorkerRequest.newBuilder().setAddress(W1).build(), null))
        .isEqualTo(id);

    assertThat(membershipVersion()).isEqualTo(version);
    assertThat(state(id)).isEqualTo(WorkerState.LIVE);
  }

  @Test
  void aHeartbeat_fromAnUnknownWorker_asksItToRegister_andFromALostOne_bringsItBack() {
    WorkerHeartbeatResponse unknown =
        membership.heartbeat(WorkerHeartbeatRequest.newBuilder().setWorkerId("nobody:1").build());
    assertThat(unknown.getCommand()).isEqualTo(WorkerHeartbeatResponse.Command.REGISTER);

    String id =
        membership.register(RegisterWorkerRequest.newBuilder().setAddress(W1).build(), null);
    journal.submit(new MasterCommand.WorkerLost(id, 1)).orThrow();
    WorkerHeartbeatResponse back =
        membership.heartbeat(WorkerHeartbeatRequest.newBuilder().setWorkerId(id).build());

    assertThat(back.getCommand()).isNotEqualTo(WorkerHeartbeatResponse.Command.REGISTER);
    assertThat(back.getMembershipVersion()).isEqualTo(membershipVersion());
    assertThat(state(id)).isEqualTo(WorkerState.LIVE);
  }

  @Test
  void aDecommissionedWorkerThatStillReports_isNotRemoved_untilItFallsSilent() {
    String id =
        membership.register(RegisterWorkerRequest.newBuilder().setAddress(W1).build(), null);
    membership.decommission(id);
    membership.heartbeat(WorkerHeartbeatRequest.newBuilder().setWorkerId(id).build());

    StrataException refused =
        catchThrowableOfType(StrataException.class, () -> membership.remove(id));
    assertThat(refused.code()).isEqualTo(StatusCode.FAILED_PRECONDITION);
    assertThat(refused).hasMessageContaining("stop its process first");

    nanos.addAndGet(TimeUnit.SECONDS.toNanos(31));
    membership.remove(id);
    java.util.Optional<WorkerInfo> gone = journal.stateMachine().read(s -> s.membership().get(id));
    assertThat(gone).isEmpty();
    assertThat(membership.report(WorkerInfo.newBuilder().setId(id).build()).getLastHeartbeatAgeMs())
        .as("forgotten by liveness too")
        .isEqualTo(-1);
  }

  private long membershipVersion() {
    return journal.stateMachine().read(s -> s.membership().version());
  }

  private WorkerState state(String id) {
    return journal.stateMachine().read(s -> s.membership().get(id)).orElseThrow().getState();
  }
}
