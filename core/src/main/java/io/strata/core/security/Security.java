package io.strata.core.security;

import io.strata.core.conf.ConfKey;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A server process's security: its mode, and in TOKEN mode the cluster secret that checks callers'
 * tokens and signs its own. Decided once at start from the configuration and the addresses the
 * process listens on; a combination that would leave a listener open to the network without
 * authentication is refused with one line.
 */
public final class Security {
  private final SecurityMode mode;
  private final ClusterSecret secret;
  private final Tls tls;

  private Security(SecurityMode mode, ClusterSecret secret, Tls tls) {
    this.mode = mode;
    this.secret = secret;
    this.tls = tls;
  }

  /** NONE, for tests of components that are not about security. */
  public static Security none() {
    return new Security(SecurityMode.NONE, null, null);
  }

  /** TOKEN with {@code secret}. */
  public static Security token(ClusterSecret secret) {
    return new Security(SecurityMode.TOKEN, secret, null);
  }

  /** This security, its listeners and connections over {@code tls} (plain when empty). */
  public Security withTls(Optional<Tls> tls) {
    return new Security(mode, secret, tls.orElse(null));
  }

  /**
   * The security of a process whose listeners bind the hosts {@code bindKeys} name: the configured
   * mode, TOKEN unless NONE is set (NONE only when all are loopback); TLS when {@code
   * strata.security.tls.enabled}. NONE is never chosen for a start that did not ask for it: on a
   * shared host it would let any account mount and read what the worker's account can (issue 78).
   */
  public static Security forServer(Configuration conf, List<ConfKey<String>> bindKeys) {
    return modeOf(conf, bindKeys).withTls(Tls.forServer(conf));
  }

  private static Security modeOf(Configuration conf, List<ConfKey<String>> bindKeys) {
    Optional<ConfKey<String>> open =
        bindKeys.stream().filter(k -> !isLoopback(conf.get(k))).findFirst();
    String configured = conf.get(SecurityKeys.MODE);
    if (configured.equals(SecurityMode.NONE.name()) && open.isPresent()) {
      throw refused(
          SecurityKeys.MODE.name()
              + "=NONE trusts every caller, so it needs every listener on loopback, and "
              + open.get().name()
              + " is "
              + conf.get(open.get())
              + ": bind it to 127.0.0.1, or set "
              + SecurityKeys.MODE.name()
              + "=TOKEN and "
              + SecurityKeys.SECRET_FILE.name());
    }
    if (SecurityMode.valueOf(configured) == SecurityMode.NONE) {
      return none();
    }
    String file = conf.get(SecurityKeys.SECRET_FILE);
    if (file.isEmpty()) {
      throw refused(
          "security mode TOKEN"
              + (conf.isSet(SecurityKeys.MODE) ? "" : " (the default)")
              + open.map(k -> " (" + k.name() + " is " + conf.get(k) + ", not loopback)").orElse("")
              + " needs the cluster secret: set "
              + SecurityKeys.SECRET_FILE.name()
              + " (make one with: head -c 48 /dev/urandom | base64 > FILE; chmod 600 FILE)"
              + (open.isPresent()
                  ? ""
                  : ", or "
                      + SecurityKeys.MODE.name()
                      + "=NONE to trust every account of this host"));
    }
    return token(ClusterSecret.load(Path.of(file)));
  }

  /** Whether {@code host} names this machine's loopback (an unknown name does not). */
  public static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static StrataException refused(String why) {
    return new StrataException(StatusCode.FAILED_PRECONDITION, why);
  }

  public SecurityMode mode() {
    return mode;
  }

  /** The cluster secret; present in TOKEN mode only. */
  public Optional<ClusterSecret> secret() {
    return Optional.ofNullable(secret);
  }

  /** The TLS of this process's listeners and connections; empty for plain ones. */
  public Optional<Tls> tls() {
    return Optional.ofNullable(tls);
  }

  /** What this process presents with its own calls to other processes. */
  public Credentials credentials() {
    return (secret == null ? Credentials.NONE : Credentials.service(secret)).withTls(tls());
  }
}
