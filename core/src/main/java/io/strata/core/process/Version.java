package io.strata.core.process;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version of this build, stamped into core's resources by Maven. */
public final class Version {
  public static final String VERSION = load();

  private Version() {}

  private static String load() {
    try (InputStream in = Version.class.getResourceAsStream("/io/strata/core/version.properties")) {
      Properties p = new Properties();
      if (in != null) {
        p.load(in);
      }
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
