package io.strata.master.state;

import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;

/** The outcome of applying one command: OK, or a refusal that every master reaches alike. */
public record ApplyResult(StatusCode code, String message) {
  public static final ApplyResult OK = new ApplyResult(StatusCode.OK, "");

  public static ApplyResult refused(StatusCode code, String message) {
    return new ApplyResult(code, message);
  }

  public boolean ok() {
    return code == StatusCode.OK;
  }

  /** Throws the refusal as an exception; does nothing for OK. */
  public void orThrow() {
    if (!ok()) {
      throw new StrataException(code, message);
    }
  }
}
