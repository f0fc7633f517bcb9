package io.strata.core.conf;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/** Keys of security: the mode, the cluster secret, users' tokens, permission checks and TLS. */
public final class SecurityKeys {
  private SecurityKeys() {}

  public static final ConfKey<String> MODE =
      ConfKey.string("strata.security.mode")
          .defaultValue("TOKEN")
          .scope(Scope.ALL)
          .check(v -> Set.of("NONE", "TOKEN").contains(v), "must be NONE or TOKEN")
          .description(
              "TOKEN (the default) authenticates every call with the cluster secret"
                  + " (strata.security.secret.file) or a user's token. NONE trusts every caller,"
                  + " every account of the host included, and is allowed only when every listener"
                  + " is on loopback: set it only on a host whose every account may act as root.")
          .build();

  public static final ConfKey<String> SECRET_FILE =
      ConfKey.string("strata.security.secret.file")
          .defaultValue("")
          .scope(Scope.ALL)
          .description(
              "File holding the cluster secret (at least 32 bytes, readable by its owner only) that"
                  + " masters, workers and FUSE processes share in TOKEN mode; make one with"
                  + " 'head -c 48 /dev/urandom | base64 > FILE; chmod 600 FILE'.")
          .build();

  public static final ConfKey<String> TOKEN_FILE =
      ConfKey.string("strata.security.token.file")
          .defaultValue("")
          .scope(Scope.CLIENT)
          .description(
              "File holding the user's token (from 'strata fsadmin token create'); STRATA_TOKEN wins"
                  + " over it. Empty: ~/.strata/token if it exists.")
          .build();

  public static final ConfKey<Boolean> PERMISSION_CHECK =
      ConfKey.bool("strata.security.permission.check.enabled")
          .defaultValue("true")
          .scope(Scope.WORKER)
          .dynamic()
          .description(
              "In TOKEN mode, check the under-storage's permission bits, owner and group for each"
                  + " user's read, list, write, delete, rename and attribute change, as HDFS does;"
                  + " false for a single-tenant cluster. Admins and the cluster's own processes are"
                  + " never checked.")
          .build();

  public static final ConfKey<String> SUPERUSER_GROUP =
      ConfKey.string("strata.security.superuser.group")
          .defaultValue("")
          .scope(Scope.WORKER)
          .dynamic()
          .description(
              "Users in this group (as the worker's host knows its users' groups) bypass permission"
                  + " checks; empty for none.")
          .build();

  public static final ConfKey<Boolean> TLS_ENABLED =
      ConfKey.bool("strata.security.tls.enabled")
          .defaultValue("false")
          .scope(Scope.ALL)
          .description(
              "Encrypt gRPC, the data plane's TCP connections, the web port and Raft with TLS;"
                  + " servers present strata.security.tls.cert.file, everyone checks peers against"
                  + " strata.security.tls.ca.file. Domain sockets stay plain (they are local and"
                  + " owner-only).")
          .build();

  public static final ConfKey<String> TLS_CERT_FILE =
      ConfKey.string("strata.security.tls.cert.file")
          .defaultValue("")
          .scope(Scope.ALL)
          .description(
              "PEM certificate chain of this process: needed by masters, workers and FUSE"
                  + " processes, and by clients when strata.security.tls.mutual is true. Its"
                  + " subject alternative names must hold the host names others reach it by.")
          .build();

  public static final ConfKey<String> TLS_KEY_FILE =
      ConfKey.string("strata.security.tls.key.file")
          .defaultValue("")
          .scope(Scope.ALL)
          .description(
              "PEM private key (PKCS#8, unencrypted, readable by its owner only) of"
                  + " strata.security.tls.cert.file.")
          .build();

  public static final ConfKey<String> TLS_CA_FILE =
      ConfKey.string("strata.security.tls.ca.file")
          .defaultValue("")
          .scope(Scope.ALL)
          .description(
              "PEM certificates of the authorities whose certificates this process trusts, for"
                  + " servers and, with mutual TLS and on the Raft port, for clients. Empty: the"
                  + " JDK's default trust store (for servers only).")
          .build();

  public static final ConfKey<List<String>> TLS_RAFT_PEERS =
      ConfKey.list("strata.security.tls.raft.peers")
          .defaultValue("")
          .scope(Scope.MASTER)
          .description(
              "With TLS, the names the Raft port takes a certificate of (its subject's common name or"
                  + " a DNS name of its alternative names): the masters'. Empty: any certificate of"
                  + " the cluster's authorities, a worker's or a user's included, may append to the"
                  + " journal; set it wherever the authority signs certificates for more than the"
                  + " masters. Applies at start.")
          .build();

  public static final ConfKey<Boolean> TLS_MUTUAL =
      ConfKey.bool("strata.security.tls.mutual")
          .defaultValue("false")
          .scope(Scope.ALL)
          .description(
              "Servers also require a certificate from their clients (gRPC, data plane, web port),"
                  + " signed by an authority of strata.security.tls.ca.file. Raft peers always"
                  + " require one another's when TLS is on.")
          .build();

  public static final ConfKey<Duration> TLS_RELOAD_INTERVAL =
      ConfKey.duration("strata.security.tls.reload.interval")
          .defaultValue("1min")
          .scope(Scope.ALL)
          .check(d -> d.toSeconds() >= 1, "must be at least 1s")
          .description(
              "How often a process reads its certificate, key and authorities again: a renewed"
                  + " certificate is used for new connections without a restart.")
          .build();
}
