package io.strata.fuse;

import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.security.ClusterSecret;
import io.strata.core.security.Credentials;
import io.strata.core.security.Security;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.util.Optional;

/**
 * What a mount's web port asks of its callers. Every account of the host reaches it on loopback,
 * so: a mount that holds the cluster secret (local mode: the account that started the cluster) asks
 * for tokens as the servers do, any of the cluster's for /metrics, an administrator's for /stacks.
 * A mount of a NONE cluster asks for none (every local caller is the cluster there). A mount with a
 * user's token only cannot tell tokens apart: it serves no thread dumps (they show the mount's
 * paths and callers) and stays on loopback.
 *
 * @param stacks whether /stacks serves thread dumps
 */
record WebAccess(Security security, boolean stacks) {
  static WebAccess of(Configuration conf) {
    Optional<ClusterSecret> secret = ClusterSecret.readable(conf);
    if (secret.isPresent()) {
      return new WebAccess(Security.token(secret.get()), true);
    }
    if (Credentials.of(conf).token() == null) {
      return new WebAccess(Security.none(), true);
    }
    String host = conf.get(FuseKeys.BIND_HOST);
    if (!Security.isLoopback(host)) {
      throw new StrataException(
          StatusCode.FAILED_PRECONDITION,
          "a mount without the cluster secret cannot check the tokens of its web port's callers,"
              + " so it serves it on loopback only, not "
              + host
              + ": unset "
              + FuseKeys.BIND_HOST.name()
              + " or mount with the cluster secret");
    }
    return new WebAccess(Security.none(), false);
  }
}
