package io.strata.master.journal;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.security.Security;
import io.strata.core.security.SecurityMode;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.net.ssl.KeyManager;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * What the Raft port's mutual TLS presents and trusts: the cluster's certificates when it has TLS
 * (only the masters' where {@code strata.security.tls.raft.peers} names them, {@link
 * RaftPeerTrust}); in TOKEN mode without TLS (loopback only, as RaftSettings requires), a key pair
 * kept beside the cluster secret ({@link RaftKeyStore}); nothing in NONE mode, whose callers are
 * all trusted.
 */
public record RaftTls(KeyManager keys, TrustManager trust) {
  public static Optional<RaftTls> of(Configuration conf, Security security) {
    if (security.tls().isPresent()) {
      List<String> masters = conf.get(SecurityKeys.TLS_RAFT_PEERS);
      return security
          .tls()
          .map(
              t ->
                  new RaftTls(
                      t.keyManager(),
                      masters.isEmpty()
                          ? t.peerTrust()
                          : new RaftPeerTrust(
                              (X509ExtendedTrustManager) t.peerTrust(), Set.copyOf(masters))));
    }
    if (security.mode() != SecurityMode.TOKEN) {
      return Optional.empty();
    }
    return Optional.of(
        RaftKeyStore.loadOrCreate(
            Path.of(conf.get(SecurityKeys.SECRET_FILE)), security.secret().orElseThrow()));
  }
}
