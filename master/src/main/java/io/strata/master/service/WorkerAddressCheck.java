package io.strata.master.service;

import io.strata.core.proto.WorkerAddress;
import io.strata.core.status.StrataException;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * What a worker may register as: a host name or IP address (RFC 1123 names, underscores allowed as
 * some hosts have them, at most 253 characters, or an IPv6 literal), ports that exist, a socket
 * path the kernel can bind. The membership is journaled and every client reads it whole: a name of
 * megabytes registered once would make the cluster view unreadable for good.
 */
final class WorkerAddressCheck {
  static final int MAX_HOST = 253;

  /** sun_path holds 108 bytes, the last a NUL. */
  static final int MAX_SOCKET_PATH = 107;

  private static final Pattern IPV6 = Pattern.compile("\\[?[0-9A-Fa-f:.]{2,45}\\]?");

  private WorkerAddressCheck() {}

  static void check(WorkerAddress a) {
    String host = a.getHost();
    if (host.isEmpty() || host.length() > MAX_HOST) {
      throw StrataException.invalidArgument(
          "a worker registers with a host name of 1 to " + MAX_HOST + " characters");
    }
    if (!isName(host) && !(host.contains(":") && IPV6.matcher(host).matches())) {
      throw StrataException.invalidArgument(
          "not a host name or IP address: " + host.replaceAll("[^\\x20-\\x7e]", "?"));
    }
    port("RPC", a.getRpcPort(), false);
    port("data", a.getDataPort(), true);
    port("web", a.getWebPort(), true);
    String socket = a.getDomainSocketPath();
    if (socket.getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH
        || socket.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
      throw StrataException.invalidArgument(
          "a worker's domain socket path is at most "
              + MAX_SOCKET_PATH
              + " bytes, with no control characters");
    }
  }

  /**
   * Labels of 1 to 63 letters, digits, hyphens and underscores, not at a label's ends for hyphens,
   * joined by dots (one may end the name). Checked by hand: a pattern of nested repeats would
   * backtrack for ages on a long name that almost matches.
   */
  static boolean isName(String host) {
    String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    if (name.isEmpty()) {
      return false;
    }
    int start = 0;
    while (start <= name.length()) {
      int dot = name.indexOf('.', start);
      int end = dot < 0 ? name.length() : dot;
      if (!isLabel(name, start, end)) {
        return false;
      }
      start = end + 1;
      if (dot < 0) {
        break;
      }
    }
    return true;
  }

  private static boolean isLabel(String s, int from, int to) {
    int n = to - from;
    if (n < 1 || n > 63 || s.charAt(from) == '-' || s.charAt(to - 1) == '-') {
      return false;
    }
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static void port(String which, int port, boolean mayBeNone) {
    if (port > 65535 || port < (mayBeNone ? 0 : 1)) {
      throw StrataException.invalidArgument(
          "a worker's " + which + " port is from " + (mayBeNone ? 0 : 1) + " to 65535: " + port);
    }
  }
}
