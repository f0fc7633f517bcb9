package io.strata.master.journal;

import com.google.protobuf.InvalidProtocolBufferException;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.journal.ApplyReply;
import io.strata.core.proto.journal.ClusterStateSnapshot;
import io.strata.core.proto.journal.StateQuery;
import io.strata.core.status.StatusCode;
import io.strata.master.state.ApplyResult;
import io.strata.master.state.ClusterState;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.LifeCycle;

/**
 * The master's replicated state machine. Each log entry is one {@link MasterCommand}, applied by
 * the exhaustive {@link Applier} to the {@link ClusterState} this class owns; a refused command
 * changes nothing and is refused identically on every master. Read-only questions are answered by
 * {@link #query} (after Ratis' read index, so they are linearizable).
 *
 * <p>Snapshots hold the whole state, in a file named by term and index with an MD5 beside it (see
 * {@link SnapshotFiles}).
 */
public final class MasterStateMachine extends BaseStateMachine {
  private final SimpleStateMachineStorage storage = new VerifiedSnapshotStorage();
  private final ClusterState state = new ClusterState();
  private final MasterCommand.Handler<ApplyResult> applier = new Applier(state);

  @Override
  public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage)
      throws IOException {
    super.initialize(server, groupId, raftStorage);
    getLifeCycle()
        .startAndTransition(
            () -> {
              storage.init(raftStorage);
              loadLatestSnapshot();
            });
  }

  /**
   * Ratis pauses the state machine before installing a snapshot sent by the leader (a follower that
   * fell behind the purged log, or a master just added) and calls {@link #reinitialize()} after;
   * the lifecycle must say PAUSED in between.
   */
  @Override
  public void pause() {
    if (getLifeCycleState() == LifeCycle.State.RUNNING) {
      getLifeCycle().transition(LifeCycle.State.PAUSING);
      getLifeCycle().transition(LifeCycle.State.PAUSED);
    }
  }

  @Override
  public void reinitialize() throws IOException {
    loadLatestSnapshot();
    if (getLifeCycleState() == LifeCycle.State.PAUSED) {
      getLifeCycle().transition(LifeCycle.State.STARTING);
      getLifeCycle().transition(LifeCycle.State.RUNNING);
    }
  }

  private void loadLatestSnapshot() throws IOException {
    // Scan the folder again: after an install the newest snapshot is one this process did not
    // write.
    SingleFileSnapshotInfo latest = storage.loadLatestSnapshot();
    if (latest != null) {
      ClusterStateSnapshot snapshot = SnapshotFiles.read(latest);
      synchronized (state) {
        state.restore(snapshot);
        updateLastAppliedTermIndex(latest.getTermIndex());
      }
    }
  }

  @Override
  public StateMachineStorage getStateMachineStorage() {
    return storage;
  }

  @Override
  public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
    LogEntryProto entry = trx.getLogEntry();
    ApplyResult result;
    try {
      MasterCommand command =
          CommandCodec.decode(entry.getStateMachineLogEntry().getLogData().toByteArray());
      synchronized (state) {
        result = apply(command);
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      }
    } catch (InvalidProtocolBufferException e) {
      // Every master reads the same bytes, so every master skips the entry alike.
      LOG.error("skipping unreadable journal entry {}", TermIndex.valueOf(entry), e);
      synchronized (state) {
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
      }
      result = ApplyResult.refused(StatusCode.INTERNAL, "unreadable journal entry");
    }
    ApplyReply reply =
        ApplyReply.newBuilder()
            .setCode(result.code().number())
            .setMessage(result.message())
            .build();
    return CompletableFuture.completedFuture(
        Message.valueOf(ByteString.copyFrom(reply.toByteArray())));
  }

  /** Applies one command; each case calls one method of the state. */
  ApplyResult apply(MasterCommand command) {
    return command.accept(applier);
  }

  @Override
  public CompletableFuture<Message> query(Message request) {
    try {
      StateQuery q = StateQuery.parseFrom(request.getContent().toByteArray());
      ClusterView view =
          switch (q.getQueryCase()) {
            case CLUSTER_VIEW -> read(ClusterState::view);
            case QUERY_NOT_SET -> throw new InvalidProtocolBufferException("empty query");
          };
      return CompletableFuture.completedFuture(
          Message.valueOf(ByteString.copyFrom(view.toByteArray())));
    } catch (InvalidProtocolBufferException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Tells {@code observer} of the cluster configuration now and after every change (on this
   * master).
   */
  public void observeConf(java.util.function.Consumer<io.strata.core.proto.ConfigView> observer) {
    synchronized (state) {
      state.conf().observe(observer);
    }
  }

  /** Reads the local state directly (no read index): for leader-local decisions and reports. */
  public <T> T read(Function<ClusterState, T> reader) {
    synchronized (state) {
      return reader.apply(state);
    }
  }

  @Override
  public long takeSnapshot() throws IOException {
    ClusterStateSnapshot snapshot;
    TermIndex last;
    synchronized (state) {
      snapshot = state.snapshot();
      last = getLastAppliedTermIndex();
    }
    if (last == null || last.getIndex() < 0) {
      return -1;
    }
    storage.updateLatestSnapshot(SnapshotFiles.write(storage, last, snapshot));
    return last.getIndex();
  }
}
