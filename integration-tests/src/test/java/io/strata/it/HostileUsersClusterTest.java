package io.strata.it;

import static io.strata.it.HostileUsers.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.robothy.s3.rest.LocalS3;
import com.robothy.s3.rest.bootstrap.LocalS3Mode;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.net.HostPort;
import io.strata.core.proto.MountPoint;
import io.strata.core.proto.MountRequest;
import io.strata.core.proto.UnmountRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.core.security.Role;
import io.strata.core.security.SecretFiles;
import io.strata.core.security.Tls;
import io.strata.master.journal.CommandCodec;
import io.strata.master.journal.MasterCommand;
import io.strata.testkit.MiniCluster;
import io.strata.testkit.TestCa;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.TimeDuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Attacks on the cluster itself (issues 54 and 78): journal entries sent to the Raft port without
 * the cluster's key or with another certificate of its authority, credentials in the cluster view.
 * The cluster: {@link HostileUsers}.
 */
@ExtendWith(HostileUsers.class)
class HostileUsersClusterTest {
  /**
   * Item 10: in TOKEN mode on loopback without TLS (local mode), any account of the host could send
   * the Raft port a journal entry of its own, as a Ratis client needs no token. With TLS, as this
   * class's cluster runs, and without, as local mode runs.
   */
  @Test
  void theRaftPort_takesNoEntryFromAClientWithoutTheClustersKey() throws Exception {
    assertRaftTakesNoEntry(cluster);
    Path file = SecretFiles.write(dir.resolve("plain-cluster"), SecretFiles.CLUSTER);
    try (MiniCluster plain =
        MiniCluster.builder()
            .workers(0)
            .property(SecurityKeys.MODE, "TOKEN")
            .property(SecurityKeys.SECRET_FILE, file.toString())
            .start()) {
      assertRaftTakesNoEntry(plain);
    }
  }

  /**
   * Medium: any certificate of the cluster's authority (a user's, for mutual TLS) was taken on the
   * Raft port; with strata.security.tls.raft.peers only the masters' are.
   */
  @Test
  void theRaftPort_takesNoEntryFromAnotherCertificateOfTheClustersAuthority() throws Exception {
    TestCa.Issued mallorys = ca.issue("mallory");
    Configuration conf = new Configuration();
    conf.set(SecurityKeys.TLS_ENABLED, "true");
    conf.set(SecurityKeys.TLS_CERT_FILE, mallorys.cert().toString());
    conf.set(SecurityKeys.TLS_KEY_FILE, mallorys.key().toString());
    conf.set(SecurityKeys.TLS_CA_FILE, ca.cert().toString());
    Tls tls = Tls.forClient(conf).orElseThrow();
    Parameters p = new Parameters();
    GrpcTlsConfig mutual = new GrpcTlsConfig(tls.keyManager(), tls.peerTrust(), true);
    GrpcConfigKeys.TLS.setConf(p, mutual);
    GrpcConfigKeys.Client.setTlsConf(p, mutual);
    GrpcConfigKeys.Admin.setTlsConf(p, mutual);
    assertRaftTakesNoEntry(cluster, p);
  }

  private static void assertRaftTakesNoEntry(MiniCluster cluster) throws Exception {
    assertRaftTakesNoEntry(cluster, new Parameters());
  }

  private static void assertRaftTakesNoEntry(MiniCluster cluster, Parameters tls) throws Exception {
    HostPort rpc =
        HostPort.parse(cluster.clientConf().get(CommonKeys.MASTER_RPC_ADDRESSES).get(0), "master");
    RaftPeer master =
        RaftPeer.newBuilder()
            .setId(rpc.host() + "_" + rpc.port())
            .setAddress("127.0.0.1:" + cluster.journalPort(0))
            .build();
    RaftGroupId group =
        RaftGroupId.valueOf(
            UUID.nameUUIDFromBytes("strata-master-group".getBytes(StandardCharsets.UTF_8)));
    RaftProperties props = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(props, TimeDuration.valueOf(3, TimeUnit.SECONDS));
    byte[] pin = CommandCodec.encode(new MasterCommand.SetPathPolicy("/data", true, null, ""));
    try (RaftClient raft =
        RaftClient.newBuilder()
            .setRaftGroup(RaftGroup.valueOf(group, master))
            .setProperties(props)
            .setParameters(tls)
            .setRetryPolicy(RetryPolicies.noRetry())
            .build()) {
      assertThatThrownBy(() -> raft.io().send(Message.valueOf(ByteString.copyFrom(pin))))
          .isInstanceOf(Exception.class);
    }
    assertThat(view(cluster.clientConf()).getPoliciesList())
        .as("the journal took no entry")
        .noneMatch(p -> p.getPath().equals("/data"));
  }

  /** Item 4: every user's cluster view carried the mounts' S3 credentials. */
  @Test
  void aUsersOrAdminsClusterView_carriesNoCredentials() throws Exception {
    String secretKey = "s3-secret-of-the-cluster";
    int port = io.strata.testkit.FreePorts.next();
    LocalS3 s3 = LocalS3.builder().port(port).mode(LocalS3Mode.IN_MEMORY).build();
    s3.start();
    try (S3Client store =
            S3Client.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + port))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(
                    StaticCredentialsProvider.create(AwsBasicCredentials.create("AK", secretKey)))
                .build();
        MasterClient master = new MasterClient(cluster.clientConf())) {
      store.createBucket(r -> r.bucket("data"));
      master.call(
          "mount",
          m ->
              m.mount(
                  MountRequest.newBuilder()
                      .setMount(
                          MountPoint.newBuilder()
                              .setPath("/s3")
                              .setUfsUri("s3://data")
                              .putOptions("s3.endpoint", "http://127.0.0.1:" + port)
                              .putOptions("s3.path.style.access", "true")
                              .putOptions("s3.access.key", "AK")
                              .putOptions("s3.secret.key", secretKey))
                      .build()));
      try {
        assertThat(view(as(MALLORY)).toString()).contains("s3.endpoint").doesNotContain(secretKey);
        assertThat(view(as("ops", Role.ADMIN)).toString())
            .as("nor an admin's: a token to run the cluster is not the store's key")
            .contains("s3.endpoint")
            .doesNotContain(secretKey);
        assertThat(view(cluster.clientConf()).toString())
            .as("the cluster's own processes still get them")
            .contains(secretKey);
      } finally {
        master.call("unmount", m -> m.unmount(UnmountRequest.newBuilder().setPath("/s3").build()));
      }
    } finally {
      s3.shutdown();
    }
  }
}
