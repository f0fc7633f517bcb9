package io.strata.s3;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.strata.core.status.StrataException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the endpoint does with a request once its headers arrived: checks its signature, routes it
 * to the operation its method, bucket, key and sub-resource name, and answers errors as S3's error
 * documents. Runs on the endpoint's worker threads ({@link S3Channel} hands requests over).
 */
final class S3Endpoint implements S3Channel.Exchanges {
  private static final HexFormat REQUEST_ID_HEX = HexFormat.of().withUpperCase();

  private static final Logger LOG = LoggerFactory.getLogger(S3Endpoint.class);

  /** Sub-resources of features Strata does not have: NotImplemented, never a wrong answer. */
  private static final Set<String> UNSUPPORTED =
      Set.of(
          "acl",
          "policy",
          "policyStatus",
          "versioning",
          "versions",
          "versionId",
          "tagging",
          "lifecycle",
          "website",
          "cors",
          "encryption",
          "object-lock",
          "retention",
          "legal-hold",
          "replication",
          "logging",
          "notification",
          "ownershipControls",
          "publicAccessBlock",
          "accelerate",
          "requestPayment",
          "analytics",
          "inventory",
          "metrics",
          "intelligent-tiering",
          "restore",
          "select",
          "torrent",
          "attributes");

  private final S3Callers callers;
  private final List<String> domains;
  private final Clock clock;
  private final Duration writeWait;
  private final AtomicLong requests = new AtomicLong();
  private final long idBase = System.nanoTime() & 0xffffffL;

  /** With {@code domains} taken for virtual-hosted requests ({@code strata.s3.domains}). */
  S3Endpoint(S3Callers callers, Clock clock, Duration writeWait, List<String> domains) {
    this.domains = List.copyOf(domains);
    this.callers = callers;
    this.clock = clock;
    this.writeWait = writeWait;
  }

  @Override
  public Runnable exchange(
      ChannelHandlerContext ctx, HttpRequest request, BodyStream body, S3Channel.Done done) {
    return () -> {
      // Sixteen hex digits: the endpoint's 24 bits, then the request's count (String.format
      // parsed its pattern and boxed its arguments on every request).
      String id =
          REQUEST_ID_HEX.toHexDigits(
              (idBase << 40) | (requests.incrementAndGet() & 0xFF_FFFF_FFFFL));
      boolean head = request.method().equals(HttpMethod.HEAD);
      S3Response out = new S3Response(ctx, head, writeWait, id);
      String resource = request.uri();
      try {
        S3Request r =
            S3Request.parse(request.method().name(), request.uri(), request.headers(), domains);
        resource = r.resource();
        // Unsigned: only reads of a bucket opened to anyone (S3Callers.anonymous), which never
        // look at a signature (route passes it to uploads' bodies only).
        SigV4Signed signed = SigV4.signs(r) ? SigV4.verify(r, callers, clock.instant()) : null;
        try (S3Callers.Lease caller =
            signed != null ? callers.lease(signed.accessKey()) : callers.anonymous(r)) {
          route(r, signed, body, out, caller.ops());
        }
      } catch (S3Error e) {
        out.error(e, resource);
      } catch (StrataException e) {
        out.error(S3Error.of(e, resource), resource);
      } catch (IOException e) {
        // The client went away or broke its body off: nothing more to say on this connection.
        LOG.info("S3 request {} {} broken off: {}", request.method(), resource, e.toString());
        out.breakOff();
        if (!out.started()) {
          out.error(new S3Error(400, "IncompleteBody", e.getMessage()), resource);
        }
      } catch (RuntimeException e) {
        LOG.warn("S3 request {} {} failed", request.method(), request.uri(), e);
        out.error(new S3Error(500, "InternalError", "We encountered an internal error"), resource);
      } finally {
        body.close();
        done.answered(out.reusable());
      }
    };
  }

  private static void route(
      S3Request r, SigV4Signed signed, BodyStream body, S3Response out, S3Operations ops)
      throws IOException {
    for (var p : r.query()) {
      if (UNSUPPORTED.contains(p.getKey())) {
        throw S3Error.notImplemented("the '" + p.getKey() + "' sub-resource");
      }
    }
    String method = r.method();
    if (r.bucket().isEmpty()) {
      if (method.equals("GET")) {
        ops.buckets().listBuckets(r, out);
        return;
      }
      throw methodNotAllowed(method);
    }
    if (r.key().isEmpty()) {
      switch (method) {
        case "GET" -> {
          if (r.has("location")) {
            ops.buckets().location(r, out);
          } else if (r.has("uploads")) {
            ops.multipart().listUploads(r, out);
          } else {
            ops.buckets().list(r, out, "2".equals(r.param("list-type")));
          }
        }
        case "HEAD" -> ops.buckets().head(r, out);
        case "PUT" -> ops.buckets().create(r, VerifiedBody.of(r, signed, body), out);
        case "DELETE" -> ops.buckets().delete(r, out);
        case "POST" -> {
          if (!r.has("delete")) {
            throw methodNotAllowed(method);
          }
          ops.deletes().run(r, VerifiedBody.of(r, signed, body), out);
        }
        default -> throw methodNotAllowed(method);
      }
      return;
    }
    if (r.has("uploadId") || r.has("uploads")) {
      routeMultipart(r, signed, body, out, ops.multipart());
      return;
    }
    switch (method) {
      case "GET" -> ops.reads().get(r, out, false);
      case "HEAD" -> ops.reads().get(r, out, true);
      case "PUT" -> {
        if (r.header("x-amz-copy-source") != null) {
          ops.writes().copy(r, out);
        } else {
          ops.writes().put(r, VerifiedBody.of(r, signed, body), out);
        }
      }
      case "DELETE" -> ops.writes().delete(r, out);
      default -> throw methodNotAllowed(method);
    }
  }

  private static void routeMultipart(
      S3Request r, SigV4Signed signed, BodyStream body, S3Response out, MultipartOps multipart)
      throws IOException {
    String method = r.method();
    if (r.has("uploads")) {
      if (!method.equals("POST")) {
        throw methodNotAllowed(method);
      }
      multipart.create(r, out);
      return;
    }
    switch (method) {
      case "PUT" -> {
        if (r.header("x-amz-copy-source") != null) {
          multipart.uploadPartCopy(r, out);
        } else {
          multipart.uploadPart(r, VerifiedBody.of(r, signed, body), out);
        }
      }
      case "POST" -> multipart.complete(r, VerifiedBody.ofCompletion(r, signed, body), out);
      case "DELETE" -> multipart.abort(r, out);
      case "GET" -> multipart.listParts(r, out);
      default -> throw methodNotAllowed(method);
    }
  }

  private static S3Error methodNotAllowed(String method) {
    return new S3Error(
        405,
        "MethodNotAllowed",
        "The specified method is not allowed against this resource: " + method);
  }
}
