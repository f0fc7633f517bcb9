package io.strata.core.process;

import org.apache.logging.log4j.jul.Log4jBridgeHandler;

/**
 * Sends what libraries log through java.util.logging (grpc-java among them) to log4j2, whose
 * configuration gives it levels, rotation and limits. Left alone, the JDK's console handler writes
 * it to the process's {@code .out} file, which nothing rotates: a client sending requests gRPC
 * cannot parse got a SEVERE stack trace there for each, so it could fill the disk.
 */
final class JulBridge {
  private JulBridge() {}

  /** Installs the bridge where log4j2 is the logging backend; does nothing elsewhere. */
  static void install() {
    if (!LogLevels.log4jCoreAvailable() || !bridgeAvailable()) {
      return;
    }
    // Replaces the root's console handler; JUL loggers take log4j's levels, so what log4j would
    // drop is not even formatted.
    Log4jBridgeHandler.install(true, null, true);
  }

  private static boolean bridgeAvailable() {
    try {
      Class.forName("org.apache.logging.log4j.jul.Log4jBridgeHandler");
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
