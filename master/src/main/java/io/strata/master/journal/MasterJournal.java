package io.strata.master.journal;

import com.google.protobuf.InvalidProtocolBufferException;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.core.proto.ClusterView;
import io.strata.core.proto.journal.ApplyReply;
import io.strata.core.proto.journal.StateQuery;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.master.state.ApplyResult;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;

/**
 * The master's replicated journal: a Ratis server holding {@link MasterStateMachine} in the group
 * of all masters, and a Ratis client through which this master proposes commands and asks
 * linearizable questions. Callers check {@link #isLeader()} first and send followers' callers to
 * the leader; the client only covers the moment when leadership moves mid-call.
 */
public final class MasterJournal implements AutoCloseable {
  /** One fixed group: a Strata cluster has exactly one master group. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(UUID.nameUUIDFromBytes("strata-master-group".getBytes(StandardCharsets.UTF_8)));
  private static final int CLIENT_ATTEMPTS = 20;
  private static final TimeDuration CLIENT_RETRY_SLEEP = TimeDuration.valueOf(100, TimeUnit.MILLISECONDS);

  private final MasterPeers peers;
  private final MasterStateMachine stateMachine;
  private final RaftGroup group;
  private final RaftServer server;
  private final RaftClient client;
  private final Path folder;

  public MasterJournal(Configuration conf, MasterPeers peers, MasterStateMachine stateMachine) throws IOException {
    this.peers = peers;
    this.stateMachine = stateMachine;
    this.group = RaftGroup.valueOf(GROUP_ID, peers.peers().stream()
        .map(p -> RaftPeer.newBuilder().setId(p.id()).setAddress(p.journal().toString()).build())
        .toList());
    this.folder = Path.of(conf.get(MasterKeys.JOURNAL_FOLDER));
    RaftProperties props = properties(conf, folder);
    this.server = RaftServer.newBuilder()
        .setServerId(RaftPeerId.valueOf(peers.own().id()))
        .setGroup(group)
        .setStateMachine(stateMachine)
        .setProperties(props)
        .setOption(hasJournal(folder) ? RaftStorage.StartupOption.RECOVER : RaftStorage.StartupOption.FORMAT)
        .build();
    this.client = RaftClient.newBuilder()
        .setRaftGroup(group)
        .setProperties(props)
        .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(CLIENT_ATTEMPTS, CLIENT_RETRY_SLEEP))
        .build();
  }

  private RaftProperties properties(Configuration conf, Path folder) {
    RaftProperties props = new RaftProperties();
    RaftServerConfigKeys.setStorageDir(props, List.of(folder.toFile()));
    GrpcConfigKeys.Server.setHost(props, conf.get(MasterKeys.BIND_HOST));
    GrpcConfigKeys.Server.setPort(props, peers.own().journal().port());
    RaftServerConfigKeys.Read.setOption(props, RaftServerConfigKeys.Read.Option.LINEARIZABLE);
    RaftServerConfigKeys.Snapshot.setAutoTriggerEnabled(props, true);
    RaftServerConfigKeys.Snapshot.setAutoTriggerThreshold(props, conf.get(MasterKeys.CHECKPOINT_PERIOD_ENTRIES));
    RaftServerConfigKeys.Snapshot.setRetentionFileNum(props, 2);
    RaftServerConfigKeys.Log.setPurgeUptoSnapshotIndex(props, true);
    // Entries are tiny; small segments let purging actually free space.
    RaftServerConfigKeys.Log.setSegmentSizeMax(props, SizeInBytes.valueOf("4MB"));
    return props;
  }

  /** Whether the folder already holds this group's journal (else it is formatted on start). */
  private static boolean hasJournal(Path folder) {
    File groupDir = folder.resolve(GROUP_ID.getUuid().toString()).toFile();
    String[] entries = groupDir.list();
    return entries != null && entries.length > 0;
  }

  public void start() throws IOException {
    Files.createDirectories(folder);
    server.start();
  }

  public MasterStateMachine stateMachine() {
    return stateMachine;
  }

  public MasterPeers peers() {
    return peers;
  }

  private DivisionInfo info() {
    try {
      return server.getDivision(GROUP_ID).getInfo();
    } catch (IOException e) {
      throw StrataException.unavailable("the master journal is not running", e);
    }
  }

  public boolean isLeader() {
    return info().isLeader();
  }

  /** Leader, and has applied every entry of earlier terms: its state is current. */
  public boolean isLeaderReady() {
    return info().isLeaderReady();
  }

  /** The RPC address of the master this one believes leads, if any. */
  public Optional<String> leaderRpcAddress() {
    RaftPeerId leader = info().getLeaderId();
    if (leader == null) {
      return Optional.empty();
    }
    return peers.peers().stream().filter(p -> p.id().equals(leader.toString()))
        .map(p -> p.rpc().toString()).findFirst();
  }

  public String role() {
    return info().getCurrentRole().name();
  }

  public long lastAppliedIndex() {
    return info().getLastAppliedIndex();
  }

  /** Throws NOT_LEADER (with the leader's address) unless this master leads. */
  public void requireLeader() {
    if (isLeader()) {
      return;
    }
    Optional<String> leader = leaderRpcAddress();
    if (leader.isEmpty()) {
      throw new StrataException(StatusCode.UNAVAILABLE, "the master group has no leader yet");
    }
    throw StrataException.notLeader("this master is not the leader; the leader is " + leader.get(), leader.get());
  }

  /** Proposes {@code command}, waits until it is applied, and returns what applying produced. */
  public ApplyResult submit(MasterCommand command) {
    RaftClientReply reply;
    try {
      reply = client.io().send(Message.valueOf(ByteString.copyFrom(CommandCodec.encode(command))));
    } catch (IOException e) {
      throw StrataException.unavailable("the master group could not commit the change: " + e.getMessage(), e);
    }
    if (!reply.isSuccess()) {
      throw StrataException.unavailable("the master group could not commit the change: " + reply.getException(),
          reply.getException());
    }
    try {
      ApplyReply r = ApplyReply.parseFrom(reply.getMessage().getContent().toByteArray());
      return new ApplyResult(StatusCode.fromNumber(r.getCode()), r.getMessage());
    } catch (InvalidProtocolBufferException e) {
      throw StrataException.internal("unreadable reply from the state machine", e);
    }
  }

  /** The cluster view, read linearizably (after a Ratis read index). */
  public ClusterView readView() {
    StateQuery query = StateQuery.newBuilder().setClusterView(true).build();
    try {
      RaftClientReply reply = client.io().sendReadOnly(Message.valueOf(ByteString.copyFrom(query.toByteArray())));
      if (!reply.isSuccess()) {
        throw StrataException.unavailable("the master group could not answer: " + reply.getException(),
            reply.getException());
      }
      return ClusterView.parseFrom(reply.getMessage().getContent().toByteArray());
    } catch (IOException e) {
      throw StrataException.unavailable("the master group could not answer: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() throws IOException {
    try {
      client.close();
    } finally {
      server.close();
    }
  }
}
