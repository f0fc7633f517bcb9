package io.strata.hadoop;

import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.ConfLoader;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.KeyRegistry;
import java.net.URI;
import java.util.Map;

/**
 * The client configuration of a {@code strata://} FileSystem: Strata's own sources (its site file,
 * environment, system properties), then every {@code strata.*} key of the Hadoop configuration
 * (core-site.xml, {@code spark.hadoop.strata.*}), then the masters the URI names ({@code
 * strata://m1:7700,m2:7700/}); {@code strata:///} leaves them to the configuration.
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
      conf.set(CommonKeys.MASTER_RPC_ADDRESSES, masters);
    }
    return conf;
  }
}
