package io.strata.hadoop;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.ConfLoader;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.KeyRegistry;
import io.strata.core.conf.UserKeys;
import io.strata.core.net.HostPort;
import io.strata.core.rpc.MasterClient;
import io.strata.core.security.Credentials;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The client configuration of a {@code strata://} FileSystem: Strata's own sources (its site file,
 * environment, system properties), then every {@code strata.*} key of the Hadoop configuration
 * (core-site.xml, {@code spark.hadoop.strata.*}), then the masters the URI names ({@code
 * strata://m1:7700,m2:7700/}); {@code strata:///} leaves them to the configuration. A client that
 * holds a token names only configured masters, unless {@code strata.user.uri.masters.any}.
 */
final class StrataConfs {
  private StrataConfs() {}

  static Configuration of(URI uri, org.apache.hadoop.conf.Configuration hadoop) {
    Configuration conf = ConfLoader.load();
    for (Map.Entry<String, String> e : hadoop) {
      if (e.getKey().startsWith("strata.")) {
        KeyRegistry.find(e.getKey()).ifPresent(key -> conf.set(key, e.getValue()));
      }
    }
    String masters = uri.getAuthority();
    if (masters != null && !masters.isEmpty()) {
      requireConfigured(conf, masters);
      conf.set(CommonKeys.MASTER_RPC_ADDRESSES, masters);
    }
    return conf;
  }

  /**
   * A URI is data a job is handed (a path in a table's metadata, a notebook's cell): one that names
   * other masters than the configured ones must not make the client send them its token.
   */
  private static void requireConfigured(Configuration conf, String masters) {
    if (conf.get(UserKeys.URI_MASTERS_ANY)) {
      return;
    }
    List<HostPort> configured = MasterClient.addresses(conf);
    List<HostPort> named =
        Arrays.stream(masters.split(","))
            .map(a -> HostPort.parse(a.strip(), "the masters of strata://" + masters + "/"))
            .toList();
    if (configured.containsAll(named) || Credentials.of(conf).token() == null) {
      return;
    }
    throw new StrataException(
        StatusCode.PERMISSION_DENIED,
        "strata://"
            + masters
            + "/ names masters this client is not configured for ("
            + CommonKeys.MASTER_RPC_ADDRESSES.name()
            + ": "
            + configured.stream().map(HostPort::toString).collect(Collectors.joining(","))
            + "), and its token goes only to those: add them there, or set "
            + UserKeys.URI_MASTERS_ANY.name()
            + "=true");
  }
}
