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
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;

/**
 * The master's replicated journal: a Ratis server holding {@link MasterStateMachine} in the group
 * of all masters. Callers check {@link #isLeader()} first and send followers' callers to the
 * leader; this master then submits commands, and asks linearizable questions, to its own server. A
 * Ratis client serves the admin calls (transfer leadership, set configuration).
 *
 * <p>The group a new journal starts with decides how the master behaves: a group that holds this
 * master forms (or re-forms) the cluster; a group that does not is a running cluster this master
 * joins. A joining server waits, holding no election, until the leader adds it ({@code fsadmin
 * journal quorum add}) and sends it a snapshot and the log. A journal that exists already starts
 * from the membership it recorded.
 */
public final class MasterJournal implements AutoCloseable {
  /** One fixed group: a Strata cluster has exactly one master group. */
  static final RaftGroupId GROUP_ID =
      RaftGroupId.valueOf(
          UUID.nameUUIDFromBytes("strata-master-group".getBytes(StandardCharsets.UTF_8)));

  private static final Duration LOCAL_TIMEOUT = Duration.ofSeconds(10);
  private static final int CLIENT_ATTEMPTS = 20;
  private static final TimeDuration CLIENT_RETRY_SLEEP =
      TimeDuration.valueOf(100, TimeUnit.MILLISECONDS);

  private final MasterPeers peers;
  private final MasterStateMachine stateMachine;
  private final RaftGroup group;
  private final RaftServer server;
  private final RaftClient client;
  private final Path folder;
  private final ClientId localClientId = ClientId.randomId();
  private final AtomicLong callIds = new AtomicLong();

  public MasterJournal(Configuration conf, MasterPeers peers, MasterStateMachine stateMachine)
      throws IOException {
    this(conf, peers, peers.peers(), stateMachine, Optional.empty());
  }

  /**
   * @param tls the Raft port's and the group's client's TLS (mutual); plain when empty
   */
  public MasterJournal(
      Configuration conf,
      MasterPeers peers,
      List<MasterPeers.Peer> initialGroup,
      MasterStateMachine stateMachine,
      Optional<RaftTls> tls)
      throws IOException {
    this.peers = peers;
    this.stateMachine = stateMachine;
    List<RaftPeer> members =
        new ArrayList<>(initialGroup.stream().map(MasterJournal::peer).toList());
    if (!initialGroup.contains(peers.own())) {
      // A joiner is in its own group only as a listener: it holds no election (which the group
      // would
      // answer by shutting it down) until the leader adds it as a voting member.
      members.add(
          RaftPeer.newBuilder(peer(peers.own())).setStartupRole(RaftPeerRole.LISTENER).build());
    }
    this.group = RaftGroup.valueOf(GROUP_ID, members);
    this.folder = Path.of(conf.get(MasterKeys.JOURNAL_FOLDER));
    RaftProperties props = RaftSettings.from(conf, peers, folder);
    Parameters parameters = RaftSettings.parameters(tls);
    this.server =
        RaftServer.newBuilder()
            .setParameters(parameters)
            .setServerId(RaftPeerId.valueOf(peers.own().id()))
            .setGroup(group)
            .setStateMachine(stateMachine)
            .setProperties(props)
            .setOption(
                hasJournal(folder)
                    ? RaftStorage.StartupOption.RECOVER
                    : RaftStorage.StartupOption.FORMAT)
            .build();
    this.client =
        RaftClient.newBuilder()
            .setParameters(parameters)
            .setRaftGroup(group)
            .setProperties(props)
            .setRetryPolicy(
                RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                    CLIENT_ATTEMPTS, CLIENT_RETRY_SLEEP))
            .build();
  }

  static RaftPeer peer(MasterPeers.Peer p) {
    return RaftPeer.newBuilder().setId(p.id()).setAddress(p.journal().toString()).build();
  }

  /** Whether the folder already holds this group's journal (else it is formatted on start). */
  public static boolean hasJournal(Path folder) {
    File groupDir = folder.resolve(GROUP_ID.getUuid().toString()).toFile();
    String[] entries = groupDir.list();
    return entries != null && entries.length > 0;
  }

  public void start() throws IOException {
    Files.createDirectories(folder);
    // The journal holds the mount table's credentials and every path policy: its account's only.
    Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------"));
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

  /**
   * False once the Raft server stopped serving the group, e.g. after this master was removed from
   * it.
   */
  public boolean isAlive() {
    try {
      return server.getDivision(GROUP_ID).getInfo().isAlive();
    } catch (IOException e) {
      return false;
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
    return Optional.of(MasterPeers.rpcAddressOf(leader.toString()).toString());
  }

  public long term() {
    return info().getCurrentTerm();
  }

  /** The members of the group now (after any quorum change), as Ratis knows them. */
  public List<RaftPeer> currentPeers() {
    try {
      return List.copyOf(server.getDivision(GROUP_ID).getRaftConf().getCurrentPeers());
    } catch (IOException e) {
      throw StrataException.unavailable("the master journal is not running", e);
    }
  }

  /** Asks the group to make {@code peerId} leader; returns once it is, or fails. */
  public void transferLeadership(RaftPeerId peerId, Duration timeout) {
    admin(
        "transfer leadership to " + MasterPeers.rpcAddressOf(peerId.toString()),
        () -> client.admin().transferLeadership(peerId, timeout.toMillis()));
  }

  /** Makes {@code members} the group; new members must be running to catch up. */
  public void setMembers(List<RaftPeer> members) {
    admin("change the quorum", () -> client.admin().setConfiguration(members));
  }

  private interface AdminCall {
    RaftClientReply call() throws IOException;
  }

  private void admin(String what, AdminCall call) {
    RaftClientReply reply;
    try {
      reply = call.call();
    } catch (IOException e) {
      throw StrataException.unavailable("could not " + what + ": " + e.getMessage(), e);
    }
    if (!reply.isSuccess()) {
      throw StrataException.unavailable(
          "could not " + what + ": " + reply.getException().getMessage(), reply.getException());
    }
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
    throw StrataException.notLeader(
        "this master is not the leader; the leader is " + leader.get(), leader.get());
  }

  /** Proposes {@code command}, waits until it is applied, and returns what applying produced. */
  public ApplyResult submit(MasterCommand command) {
    RaftClientReply reply =
        local(
            RaftClientRequest.writeRequestType(),
            CommandCodec.encode(command),
            "commit the change");
    try {
      ApplyReply r = ApplyReply.parseFrom(reply.getMessage().getContent().toByteArray());
      return new ApplyResult(StatusCode.fromNumber(r.getCode()), r.getMessage());
    } catch (InvalidProtocolBufferException e) {
      throw StrataException.internal("unreadable reply from the state machine", e);
    }
  }

  /**
   * Sends a request straight to this master's Raft server: callers only propose or read after
   * checking that this master leads, so a network hop, and a Ratis client's guess at the leader
   * (often the dead one, just after a failover), would only add delay.
   */
  private RaftClientReply local(RaftClientRequest.Type type, byte[] content, String what) {
    RaftClientRequest request =
        RaftClientRequest.newBuilder()
            .setClientId(localClientId)
            .setServerId(server.getId())
            .setGroupId(GROUP_ID)
            .setCallId(callIds.incrementAndGet())
            .setMessage(Message.valueOf(ByteString.copyFrom(content)))
            .setType(type)
            .build();
    RaftClientReply reply;
    try {
      reply =
          server
              .submitClientRequestAsync(request)
              .get(LOCAL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | IOException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw StrataException.unavailable(
          "the master group could not " + what + ": " + cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw StrataException.unavailable(
          "the master group could not "
              + what
              + " within "
              + LOCAL_TIMEOUT.toSeconds()
              + " s (no quorum?)",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StrataException(StatusCode.CANCELLED, "interrupted while waiting to " + what);
    }
    if (!reply.isSuccess()) {
      if (reply.getNotLeaderException() != null) {
        requireLeader();
      }
      throw StrataException.unavailable(
          "the master group could not " + what + ": " + reply.getException(), reply.getException());
    }
    return reply;
  }

  /** The cluster view, read linearizably (after a Ratis read index). */
  public ClusterView readView() {
    StateQuery query = StateQuery.newBuilder().setClusterView(true).build();
    RaftClientReply reply =
        local(RaftClientRequest.readRequestType(), query.toByteArray(), "answer");
    try {
      return ClusterView.parseFrom(reply.getMessage().getContent().toByteArray());
    } catch (InvalidProtocolBufferException e) {
      throw StrataException.internal("unreadable reply from the state machine", e);
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
