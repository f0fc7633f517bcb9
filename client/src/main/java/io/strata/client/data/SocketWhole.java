package io.strata.client.data;

import io.strata.core.status.StrataException;
import io.strata.core.transport.Response;
import io.strata.core.transport.WholeRequest;

/**
 * One WHOLE over a pooled blocking connection, on the caller's thread (as {@link SocketOpen} does
 * an OPEN): the request, then the worker's END once the version is sealed whole. A mount's cold
 * open waits on it; through the event loop it paid two thread switches more. A worker's refusal
 * (RESOURCE_EXHAUSTED...) leaves the connection clean for the pool; anything else closes it.
 */
final class SocketWhole {
  private SocketWhole() {}

  /** Has {@code worker} keep {@code file} whole; throws its StrataException if it does not. */
  static void keep(
      BlockingChannels channels, Endpoint worker, long requestId, DataClient.Target file) {
    WholeRequest request =
        new WholeRequest(requestId, file.path(), file.fingerprint(), file.fileLength());
    DataConnection conn = DataConnection.take(channels, worker, file.path());
    Response.End end = null;
    try {
      try {
        end = exchange(conn, request);
      } catch (StrataException e) {
        if (!conn.staleFromPool(e)) {
          throw e;
        }
        conn.reconnect();
        end = exchange(conn, request);
      }
    } finally {
      if (end != null) {
        conn.release();
      } else {
        conn.close();
      }
    }
    if (!end.ok()) {
      throw new StrataException(end.code(), end.message());
    }
  }

  private static Response.End exchange(DataConnection conn, WholeRequest request) {
    conn.send(request.encode(DataConnection.REQUESTS));
    Response r = conn.next(request.requestId());
    if (r instanceof Response.End e) {
      return e;
    }
    throw DataConnection.protocol("unexpected " + r + " for a whole");
  }
}
