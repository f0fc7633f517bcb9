package io.strata.master.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import org.junit.jupiter.api.Test;

class MasterPeersTest {
  private static Configuration conf(String host, int journalPort, String journals, String rpcs) {
    Configuration c = new Configuration();
    c.set(CommonKeys.MASTER_HOSTNAME, host);
    c.set(MasterKeys.JOURNAL_PORT, String.valueOf(journalPort));
    c.set(MasterKeys.JOURNAL_ADDRESSES, journals);
    c.set(CommonKeys.MASTER_RPC_ADDRESSES, rpcs);
    return c;
  }

  @Test
  void singleMaster_byDefault() {
    MasterPeers peers = MasterPeers.fromConf(new Configuration());
    assertThat(peers.peers()).hasSize(1);
    assertThat(peers.own().journal().toString()).isEqualTo("localhost:7701");
    assertThat(peers.own().rpc().toString()).isEqualTo("localhost:7700");
  }

  @Test
  void group_pairsAddressesByPosition_andFindsItself() {
    MasterPeers peers =
        MasterPeers.fromConf(
            conf("m2", 7701, "m1:7701,m2:7701,m3:7701", "m1:7700,m2:7700,m3:7700"));
    assertThat(peers.self()).isEqualTo(1);
    assertThat(peers.own().rpc().toString()).isEqualTo("m2:7700");
  }

  @Test
  void listsThatDisagree_areRefused() {
    assertThatThrownBy(() -> MasterPeers.fromConf(conf("m1", 7701, "m1:7701,m2:7701", "m1:7700")))
        .hasMessageContaining("lists 2 masters but")
        .hasMessageContaining("lists 1");
    assertThatThrownBy(
            () -> MasterPeers.fromConf(conf("m9", 7701, "m1:7701,m2:7701", "m1:7700,m2:7700")))
        .hasMessageContaining("this master (m9:7701")
        .hasMessageContaining("is not in");
    assertThatThrownBy(
            () -> MasterPeers.fromConf(conf("m1", 7701, "m1:7701,m1:7701", "m1:7700,m2:7700")))
        .hasMessageContaining("twice");
  }
}
