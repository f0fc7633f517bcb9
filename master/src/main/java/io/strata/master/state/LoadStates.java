package io.strata.master.state;

import io.strata.core.proto.LoadState;
import java.util.Locale;

/** Names of load-job states as people read them. */
public final class LoadStates {
  private LoadStates() {}

  public static String name(LoadState s) {
    return s.name().replace("LOAD_", "").toLowerCase(Locale.ROOT);
  }
}
