package io.strata.core.conf;

/** The constraint shared by every port key: 0 asks the OS for a free port (tests use it). */
final class Ports {
  static final String MESSAGE = "a port must be between 0 and 65535";

  private Ports() {}

  static boolean valid(int port) {
    return port >= 0 && port <= 65535;
  }
}
