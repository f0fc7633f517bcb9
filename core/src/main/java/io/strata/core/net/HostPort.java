package io.strata.core.net;

import io.strata.core.status.StrataException;

/** A "host:port" address as written in configuration and shown to people. */
public record HostPort(String host, int port) {
  public static HostPort parse(String text, String what) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw StrataException.invalidArgument(what + ": expected host:port, got '" + text + "'");
    }
    try {
      int port = Integer.parseInt(text.substring(colon + 1));
      if (port < 0 || port > 65535) {
        throw new NumberFormatException();
      }
      return new HostPort(text.substring(0, colon), port);
    } catch (NumberFormatException e) {
      throw StrataException.invalidArgument(what + ": bad port in '" + text + "'");
    }
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}
