package io.strata.master.service;

import static org.awaitility.Awaitility.await;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.MasterKeys;
import io.strata.master.journal.MasterJournal;
import io.strata.master.journal.MasterPeers;
import io.strata.master.journal.MasterStateMachine;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;

/** A real Ratis group of one master on loopback, journaling in a test's folder, once it leads. */
final class SinglePeerJournal {
  private SinglePeerJournal() {}

  /** The configuration such a master runs with: its journal port free, its folder {@code dir}. */
  static Configuration conf(Path dir) throws IOException {
    Configuration conf = new Configuration();
    conf.set(CommonKeys.MASTER_HOSTNAME, "127.0.0.1");
    conf.set(MasterKeys.BIND_HOST, "127.0.0.1");
    conf.set(MasterKeys.JOURNAL_PORT, String.valueOf(freePort()));
    conf.set(MasterKeys.JOURNAL_FOLDER, dir.toString());
    return conf;
  }

  /** Starts the journal of {@code conf} and waits until it is the leader, ready to apply. */
  static MasterJournal start(Configuration conf) throws IOException {
    MasterJournal journal =
        new MasterJournal(conf, MasterPeers.fromConf(conf), new MasterStateMachine());
    journal.start();
    await().atMost(Duration.ofSeconds(30)).until(journal::isLeaderReady);
    return journal;
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
