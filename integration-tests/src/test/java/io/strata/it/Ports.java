package io.strata.it;

import io.strata.bench.cluster.FreePorts;

/**
 * Free loopback ports for servers whose address must be known before they start (Raft peers list
 * each other). Other servers bind port 0 and report the port they got.
 */
final class Ports {
  private Ports() {}

  static int free() {
    return FreePorts.next();
  }
}
