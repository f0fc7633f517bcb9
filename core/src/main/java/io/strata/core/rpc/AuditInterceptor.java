package io.strata.core.rpc;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.strata.core.conf.CommonKeys;
import io.strata.core.conf.Configuration;
import io.strata.core.security.Principal;
import io.strata.core.status.StatusCode;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log: with strata.audit.log.enabled, one line per operation — user, client address,
 * operation, path (and destination), outcome — through the {@code strata.audit} logger, which
 * log4j2.xml writes to its own file through an asynchronous appender, so auditing never waits on
 * the disk (refusals excepted: {@link #REFUSALS}). Internal traffic (heartbeats, status polls) is
 * left out. Reads over the data plane are not audited; their volume is in the metrics.
 */
public final class AuditInterceptor implements ServerInterceptor {
  public static final String LOGGER = "strata.audit";

  /**
   * Refusals (unauthenticated, not permitted): log4j2.xml queues them through a blocking appender,
   * so that a flood of attempts slows the attempts, never loses their lines; the other lines may be
   * dropped under a flood rather than slow the cluster's work.
   */
  public static final String REFUSALS = LOGGER + ".refusals";

  private static final Logger AUDIT = LoggerFactory.getLogger(LOGGER);
  private static final Logger REFUSED = LoggerFactory.getLogger(REFUSALS);
  private static final Set<String> REFUSAL_CODES =
      Set.of(StatusCode.PERMISSION_DENIED.name(), StatusCode.UNAUTHENTICATED.name());
  private static final Set<String> INTERNAL =
      Set.of("WorkerHeartbeat", "RegisterWorker", "GetMasterStatus", "GetClusterView", "GetConfig");

  private final Configuration conf;

  public AuditInterceptor(Configuration conf) {
    this.conf = conf;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    String method = call.getMethodDescriptor().getBareMethodName();
    if (!conf.get(CommonKeys.AUDIT_ENABLED) || INTERNAL.contains(method)) {
      return next.startCall(call, headers);
    }
    // Set by AuthInterceptor, which runs first: the token's user in TOKEN mode.
    Principal caller = Principal.current();
    String user = caller != null ? caller.user() : headers.get(CallerInterceptor.USER);
    Object remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    String[] subject = {""};
    ServerCall.Listener<Q> listener =
        next.startCall(
            new SimpleForwardingServerCall<>(call) {
              @Override
              public void close(Status status, Metadata trailers) {
                String given = trailers.get(GrpcErrors.CODE);
                String code =
                    given != null ? given : status.isOk() ? "OK" : status.getCode().name();
                (REFUSAL_CODES.contains(code) ? REFUSED : AUDIT)
                    .info(
                        "user={} ip={} op={} {} status={}",
                        user == null ? "unknown" : escaped(user),
                        remote,
                        method,
                        subject[0],
                        code);
                super.close(status, trailers);
              }
            },
            headers);
    return new SimpleForwardingServerCallListener<>(listener) {
      @Override
      public void onMessage(Q message) {
        if (subject[0].isEmpty() && message instanceof Message m) {
          subject[0] = describe(m);
        }
        super.onMessage(message);
      }
    };
  }

  /**
   * A call {@link AuthInterceptor} refused before any service saw it: audited too (an attacker's
   * attempts are what an audit log is for), under the name the caller claimed, in brackets.
   */
  void refused(ServerCall<?, ?> call, Metadata headers, StatusCode code) {
    String method = call.getMethodDescriptor().getBareMethodName();
    if (!conf.get(CommonKeys.AUDIT_ENABLED)) {
      return;
    }
    String claimed = headers.get(CallerInterceptor.USER);
    REFUSED.info(
        "user=[{}] ip={} op={} status={}",
        claimed == null ? "unknown" : escaped(claimed),
        call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR),
        method,
        code);
  }

  /** The most of one field a line shows. */
  static final int MAX_FIELD = 1024;

  /**
   * A field as one token of the line, whatever a client sent: plain when it is printable ASCII with
   * no space, quote or backslash; else quoted, with backslash escapes for quotes, backslashes and
   * every character that could end a line (control characters, NEL, the Unicode line and paragraph
   * separators), so that no path or user name can end a line or forge another field. Cut at {@value
   * #MAX_FIELD} characters.
   */
  static String escaped(String value) {
    String v = value.length() > MAX_FIELD ? value.substring(0, MAX_FIELD) + "..." : value;
    boolean plain = !v.isEmpty();
    for (int i = 0; i < v.length() && plain; i++) {
      char c = v.charAt(i);
      plain = c > ' ' && c < 0x7f && c != '"' && c != '\\';
    }
    if (plain) {
      return v;
    }
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      switch (c) {
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        default -> {
          if (c < ' ' || (c >= 0x7f && c <= 0x9f) || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** The request's paths (or worker, address, keys): {@code path=/a dst=/b}. */
  static String describe(Message m) {
    StringBuilder sb = new StringBuilder();
    for (String name : new String[] {"path", "src", "dst", "worker_id", "address"}) {
      FieldDescriptor f = m.getDescriptorForType().findFieldByName(name);
      if (f != null
          && f.getJavaType() == FieldDescriptor.JavaType.STRING
          && !m.getField(f).toString().isEmpty()) {
        sb.append(sb.length() == 0 ? "" : " ")
            .append(name)
            .append('=')
            .append(escaped(m.getField(f).toString()));
      }
    }
    FieldDescriptor header = m.getDescriptorForType().findFieldByName("header");
    if (header != null && m.hasField(header)) {
      sb.append(describe((Message) m.getField(header)));
    }
    FieldDescriptor values = m.getDescriptorForType().findFieldByName("values");
    if (values != null && values.isMapField()) {
      sb.append("values=").append(escaped(m.getField(values).toString()));
    }
    return sb.toString();
  }
}
