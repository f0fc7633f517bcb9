package io.strata.master.journal;

import com.google.protobuf.InvalidProtocolBufferException;
import io.strata.core.proto.journal.DecommissionWorkerEntry;
import io.strata.core.proto.journal.FinishLoadEntry;
import io.strata.core.proto.journal.JournalEntry;
import io.strata.core.proto.journal.LoadProgressEntry;
import io.strata.core.proto.journal.MountEntry;
import io.strata.core.proto.journal.RecommissionWorkerEntry;
import io.strata.core.proto.journal.RegisterWorkerEntry;
import io.strata.core.proto.journal.RemoveWorkerEntry;
import io.strata.core.proto.journal.SetConfEntry;
import io.strata.core.proto.journal.SetPathPolicyEntry;
import io.strata.core.proto.journal.SubmitLoadEntry;
import io.strata.core.proto.journal.UnmountEntry;
import io.strata.core.proto.journal.UnsetConfEntry;
import io.strata.core.proto.journal.WorkerBackEntry;
import io.strata.core.proto.journal.WorkerLostEntry;
import io.strata.core.ufs.Mount;
import io.strata.master.journal.MasterCommand.AddMount;
import io.strata.master.journal.MasterCommand.DecommissionWorker;
import io.strata.master.journal.MasterCommand.RecommissionWorker;
import io.strata.master.journal.MasterCommand.RegisterWorker;
import io.strata.master.journal.MasterCommand.RemoveMount;
import io.strata.master.journal.MasterCommand.RemoveWorker;
import io.strata.master.journal.MasterCommand.SetConf;
import io.strata.master.journal.MasterCommand.UnsetConf;
import io.strata.master.journal.MasterCommand.WorkerBack;
import io.strata.master.journal.MasterCommand.WorkerLost;
import java.util.List;
import java.util.Map;

/** Commands to and from their journal form (protobuf {@link JournalEntry}). */
public final class CommandCodec {
  private CommandCodec() {}

  public static byte[] encode(MasterCommand command) {
    JournalEntry.Builder b = JournalEntry.newBuilder();
    command.accept(
        new MasterCommand.Handler<JournalEntry.Builder>() {
          @Override
          public JournalEntry.Builder registerWorker(RegisterWorker c) {
            return b.setRegisterWorker(
                RegisterWorkerEntry.newBuilder().setAddress(c.address()).setTimeMs(c.timeMs()));
          }

          @Override
          public JournalEntry.Builder workerLost(WorkerLost c) {
            return b.setWorkerLost(
                WorkerLostEntry.newBuilder().setWorkerId(c.workerId()).setTimeMs(c.timeMs()));
          }

          @Override
          public JournalEntry.Builder workerBack(WorkerBack c) {
            return b.setWorkerBack(
                WorkerBackEntry.newBuilder().setWorkerId(c.workerId()).setTimeMs(c.timeMs()));
          }

          @Override
          public JournalEntry.Builder decommissionWorker(DecommissionWorker c) {
            return b.setDecommissionWorker(
                DecommissionWorkerEntry.newBuilder()
                    .setWorkerId(c.workerId())
                    .setTimeMs(c.timeMs()));
          }

          @Override
          public JournalEntry.Builder recommissionWorker(RecommissionWorker c) {
            return b.setRecommissionWorker(
                RecommissionWorkerEntry.newBuilder()
                    .setWorkerId(c.workerId())
                    .setTimeMs(c.timeMs()));
          }

          @Override
          public JournalEntry.Builder removeWorker(RemoveWorker c) {
            return b.setRemoveWorker(RemoveWorkerEntry.newBuilder().setWorkerId(c.workerId()));
          }

          @Override
          public JournalEntry.Builder setConf(SetConf c) {
            return b.setSetConf(SetConfEntry.newBuilder().putAllValues(c.values()));
          }

          @Override
          public JournalEntry.Builder unsetConf(UnsetConf c) {
            return b.setUnsetConf(UnsetConfEntry.newBuilder().addAllKeys(c.keys()));
          }

          @Override
          public JournalEntry.Builder addMount(AddMount c) {
            return b.setMount(
                MountEntry.newBuilder().setMount(c.mount().toProto()).setReplace(c.replace()));
          }

          @Override
          public JournalEntry.Builder removeMount(RemoveMount c) {
            return b.setUnmount(UnmountEntry.newBuilder().setPath(c.path()));
          }

          @Override
          public JournalEntry.Builder submitLoad(MasterCommand.SubmitLoad c) {
            return b.setSubmitLoad(SubmitLoadEntry.newBuilder().setJob(c.job()));
          }

          @Override
          public JournalEntry.Builder loadProgress(MasterCommand.LoadProgress c) {
            return b.setLoadProgress(
                LoadProgressEntry.newBuilder()
                    .setId(c.id())
                    .setCounters(c.counters())
                    .setCursor(c.cursor())
                    .addAllFailures(c.failures()));
          }

          @Override
          public JournalEntry.Builder finishLoad(MasterCommand.FinishLoad c) {
            FinishLoadEntry.Builder f =
                FinishLoadEntry.newBuilder()
                    .setId(c.id())
                    .setState(c.state())
                    .setMessage(c.message())
                    .setTimeMs(c.timeMs());
            if (c.counters() != null) {
              f.setCounters(c.counters());
            }
            return b.setFinishLoad(f.addAllFailures(c.failures()));
          }

          @Override
          public JournalEntry.Builder setPathPolicy(MasterCommand.SetPathPolicy c) {
            SetPathPolicyEntry.Builder p =
                SetPathPolicyEntry.newBuilder().setPath(c.path()).setOwner(c.owner());
            if (c.pinned() != null) {
              p.setPinned(c.pinned());
            }
            if (c.ttlMs() != null) {
              p.setTtlMs(c.ttlMs());
            }
            return b.setSetPathPolicy(p);
          }
        });
    return b.build().toByteArray();
  }

  public static MasterCommand decode(byte[] bytes) throws InvalidProtocolBufferException {
    JournalEntry e = JournalEntry.parseFrom(bytes);
    return switch (e.getCommandCase()) {
      case REGISTER_WORKER ->
          new RegisterWorker(e.getRegisterWorker().getAddress(), e.getRegisterWorker().getTimeMs());
      case WORKER_LOST ->
          new WorkerLost(e.getWorkerLost().getWorkerId(), e.getWorkerLost().getTimeMs());
      case WORKER_BACK ->
          new WorkerBack(e.getWorkerBack().getWorkerId(), e.getWorkerBack().getTimeMs());
      case DECOMMISSION_WORKER ->
          new DecommissionWorker(
              e.getDecommissionWorker().getWorkerId(), e.getDecommissionWorker().getTimeMs());
      case RECOMMISSION_WORKER ->
          new RecommissionWorker(
              e.getRecommissionWorker().getWorkerId(), e.getRecommissionWorker().getTimeMs());
      case REMOVE_WORKER -> new RemoveWorker(e.getRemoveWorker().getWorkerId());
      case SET_CONF -> new SetConf(Map.copyOf(e.getSetConf().getValuesMap()));
      case UNSET_CONF -> new UnsetConf(List.copyOf(e.getUnsetConf().getKeysList()));
      case MOUNT ->
          new AddMount(Mount.fromProto(e.getMount().getMount()), e.getMount().getReplace());
      case UNMOUNT -> new RemoveMount(e.getUnmount().getPath());
      case SUBMIT_LOAD -> new MasterCommand.SubmitLoad(e.getSubmitLoad().getJob());
      case LOAD_PROGRESS ->
          new MasterCommand.LoadProgress(
              e.getLoadProgress().getId(),
              e.getLoadProgress().getCounters(),
              e.getLoadProgress().getCursor(),
              List.copyOf(e.getLoadProgress().getFailuresList()));
      case FINISH_LOAD ->
          new MasterCommand.FinishLoad(
              e.getFinishLoad().getId(),
              e.getFinishLoad().getState(),
              e.getFinishLoad().getMessage(),
              e.getFinishLoad().getTimeMs(),
              e.getFinishLoad().hasCounters() ? e.getFinishLoad().getCounters() : null,
              List.copyOf(e.getFinishLoad().getFailuresList()));
      case SET_PATH_POLICY -> {
        SetPathPolicyEntry p = e.getSetPathPolicy();
        yield new MasterCommand.SetPathPolicy(
            p.getPath(),
            p.hasPinned() ? p.getPinned() : null,
            p.hasTtlMs() ? p.getTtlMs() : null,
            p.getOwner());
      }
      case COMMAND_NOT_SET ->
          throw new InvalidProtocolBufferException("journal entry without a command");
    };
  }
}
