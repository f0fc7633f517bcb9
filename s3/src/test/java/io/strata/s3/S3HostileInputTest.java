package io.strata.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.S3Keys;
import io.strata.testkit.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests an attacker or a broken client sends, on raw sockets: each gets a clear S3 error or a
 * closed connection, and the endpoint goes on serving everyone else.
 */
class S3HostileInputTest {
  @TempDir static Path conf;

  private static MiniCluster cluster;
  private static S3Process endpoint;
  private static String access;
  private static String secret;

  @BeforeAll
  static void start() throws Exception {
    cluster = MiniCluster.builder().start();
    Configuration c = cluster.clientConf();
    c.set(S3Keys.IDLE_TIMEOUT, "1s");
    c.set(S3Keys.MAX_CONNECTIONS, "64");
    endpoint = TestEndpoints.start(c, conf);
    access = endpoint.firstKeyPair()[0];
    secret = endpoint.firstKeyPair()[1];
    cluster.fileSystem().mkdir("/hostile", false);
  }

  @AfterAll
  static void stop() throws Exception {
    TestEndpoints.close(endpoint, cluster);
  }

  @Test
  void aHugeHeader_closesThatConnectionOnly() throws Exception {
    String answer =
        exchange("GET /hostile HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(1 << 20) + "\r\n\r\n");
    assertThat(answer).doesNotStartWith("HTTP/1.1 200");
    assertThat(signed("GET", "/hostile?list-type=2", "")).startsWith("HTTP/1.1 200");
  }

  @Test
  void malformedXml_andBadKeys_getS3Errors() throws Exception {
    String bad = signed("POST", "/hostile?delete", "<Delete><Object><Key>a</Key></Obj");
    assertThat(bad).startsWith("HTTP/1.1 400").contains("<Code>MalformedXML</Code>");
    String entity =
        signed(
            "POST",
            "/hostile?delete",
            "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<Delete><Object><Key>&x;</Key></Object></Delete>");
    assertThat(entity).startsWith("HTTP/1.1 400").doesNotContain("root:");
    assertThat(signed("GET", "/hostile/a/../../etc/passwd", ""))
        .startsWith("HTTP/1.1 400")
        .contains("InvalidArgument");
    assertThat(signed("GET", "/hostile/" + "k".repeat(300), "")).startsWith("HTTP/1.1 400");
    assertThat(signed("GET", "/hostile/nul%00key", "")).startsWith("HTTP/1.1 400");
    assertThat(signed("GET", "/hostile/bad%zzescape", "")).startsWith("HTTP/1.1 400");
    // S3's own words and elements, which clients and conformance suites compare.
    assertThat(signed("GET", "/hostile/missing", ""))
        .startsWith("HTTP/1.1 404")
        .contains(
            "<Code>NoSuchKey</Code>",
            "<Message>The specified key does not exist.</Message>",
            "<Key>missing</Key>");
    assertThat(signed("GET", "/nowhere/missing", ""))
        .startsWith("HTTP/1.1 404")
        .contains("<Code>NoSuchBucket</Code>", "<BucketName>nowhere</BucketName>");
    // A bucket name AWS's SDKs would not even send, and a configuration cut short.
    assertThat(signed("PUT", "/Upper_Case", ""))
        .startsWith("HTTP/1.1 400")
        .contains(
            "<Code>InvalidBucketName</Code>",
            "<Message>The specified bucket is not valid.</Message>");
    assertThat(signed("PUT", "/placed", "<CreateBucketConfiguration><LocationConstraint>"))
        .startsWith("HTTP/1.1 400")
        .contains("<Code>MalformedXML</Code>");
    assertThat(signed("HEAD", "/placed", "")).startsWith("HTTP/1.1 404");
  }

  /**
   * Checksum headers S3 refuses before it reads a byte: two algorithms at once, a value that is no
   * checksum of its algorithm, an SDK that says it computed another; and a checksum that does not
   * match, in AWS's words naming the algorithm. Nothing is stored for any of them.
   */
  @Test
  void checksumHeaders_malformedOrContradictory_areRefused() throws Exception {
    String crc32OfHello = "NhCmhg=="; // CRC32 of "hello"
    assertThat(
            signed(
                "PUT",
                "/hostile/sum",
                "hello",
                "x-amz-checksum-crc32: " + crc32OfHello + "\r\nx-amz-checksum-sha1: AAAA\r\n"))
        .startsWith("HTTP/1.1 400")
        .contains("<Code>InvalidRequest</Code>", "Multiple checksum Types are not allowed.");
    assertThat(signed("PUT", "/hostile/sum", "hello", "x-amz-checksum-crc32: AAAAAAAA\r\n"))
        .startsWith("HTTP/1.1 400")
        .contains(
            "<Code>InvalidRequest</Code>",
            "<Message>Value for x-amz-checksum-crc32 header is invalid.</Message>");
    assertThat(
            signed(
                "PUT",
                "/hostile/sum",
                "hello",
                "x-amz-checksum-crc32: "
                    + crc32OfHello
                    + "\r\nx-amz-sdk-checksum-algorithm: SHA256\r\n"))
        .startsWith("HTTP/1.1 400")
        .contains("<Code>InvalidRequest</Code>", "x-amz-sdk-checksum-algorithm");
    assertThat(
            signed(
                "PUT", "/hostile/sum", "hullo", "x-amz-checksum-crc32: " + crc32OfHello + "\r\n"))
        .startsWith("HTTP/1.1 400")
        .contains(
            "<Code>BadDigest</Code>",
            "<Message>The CRC32 you specified did not match the calculated checksum.</Message>");
    assertThat(signed("PUT", "/hostile/sum", "hello", "Content-MD5: not-an-md5\r\n"))
        .startsWith("HTTP/1.1 400")
        .contains("<Code>InvalidDigest</Code>");
    assertThat(signed("GET", "/hostile/sum", "")).startsWith("HTTP/1.1 404");
    assertThat(
            signed(
                "PUT", "/hostile/sum", "hello", "x-amz-checksum-crc32: " + crc32OfHello + "\r\n"))
        .startsWith("HTTP/1.1 200");
  }

  /**
   * aws-chunked bodies S3 refuses, refused in its codes and words (what was wrong goes to the
   * endpoint's log): a chunk size that is no number, a trailer without the checksum {@code
   * x-amz-trailer} names, a decoded length that is no number; the same body well formed is taken.
   */
  @Test
  void malformedChunkedBodies_andTrailers_areRefusedAsS3RefusesThem() throws Exception {
    String crc32 = "x-amz-trailer: x-amz-checksum-crc32\r\n";
    assertThat(streaming("/hostile/chunked", "zz\r\nhello\r\n0\r\n\r\n", "5", crc32))
        .startsWith("HTTP/1.1 400")
        .contains(
            "<Code>IncompleteBody</Code>",
            "<Message>The request body terminated unexpectedly</Message>");
    assertThat(
            streaming(
                "/hostile/chunked",
                "5\r\nhello\r\n0\r\nx-amz-checksum-sha1:qvTGHdzF6KLavt4PO0gs2a6pQ00=\r\n\r\n",
                "5",
                crc32))
        .startsWith("HTTP/1.1 400")
        .contains("<Code>MalformedTrailerError</Code>");
    String good = "5\r\nhello\r\n0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n";
    assertThat(streaming("/hostile/chunked", good, "5x", crc32))
        .startsWith("HTTP/1.1 411")
        .contains("<Code>MissingContentLength</Code>");
    assertThat(signed("GET", "/hostile/chunked", "")).startsWith("HTTP/1.1 404");
    assertThat(streaming("/hostile/chunked", good, "5", crc32)).startsWith("HTTP/1.1 200");
  }

  /** A PUT of {@code body}, aws-chunked without signatures, of {@code decoded} bytes decoded. */
  private static String streaming(String uri, String body, String decoded, String extra)
      throws IOException {
    String head =
        head(
            "PUT",
            uri,
            body.getBytes(StandardCharsets.UTF_8).length,
            "Content-Encoding: aws-chunked\r\nx-amz-decoded-content-length: "
                + decoded
                + "\r\n"
                + extra,
            "STREAMING-UNSIGNED-PAYLOAD-TRAILER");
    return exchange(head + "Connection: close\r\n\r\n" + body);
  }

  /**
   * An error answered before the body was read (a bucket that does not exist) reaches a client
   * still sending its body: the endpoint reads the rest and drops it, the answer is whole, and the
   * connection carries the next request (closing with bytes unread would reset it, and the client
   * would see a broken pipe instead of NoSuchBucket).
   */
  @Test
  void anEarlyAnswer_reachesAClientStillSending_andTheConnectionGoesOn() throws Exception {
    try (Socket s = connect()) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      byte[] body = new byte[2 << 20];
      out.write(head("PUT", "/nowhere/big", body.length, "").getBytes(StandardCharsets.UTF_8));
      out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      out.write(body);
      out.flush();
      assertThat(response(s.getInputStream()))
          .startsWith("HTTP/1.1 404")
          .contains("<Code>NoSuchBucket</Code>");
      out.write((head("GET", "/", 0, "") + "\r\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertThat(response(s.getInputStream())).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void aSilentClient_isClosedAfterTheIdleTimeout() throws Exception {
    try (Socket s = connect()) {
      s.setSoTimeout(10_000);
      s.getOutputStream()
          .write("GET /hostile HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
      long started = System.nanoTime();
      // The request never ends: the endpoint closes the connection (read gives -1).
      assertThat(s.getInputStream().read()).isEqualTo(-1);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(9));
    }
  }

  @Test
  void moreConnectionsThanTheLimit_closeTheOldest_andNewOnesAreServed() throws Exception {
    List<Socket> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 200; i++) {
        idle.add(connect());
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertThat(signed("GET", "/", "")).startsWith("HTTP/1.1 200"));
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }

  private static Socket connect() throws IOException {
    Socket s = new Socket();
    s.connect(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), endpoint.port()));
    return s;
  }

  /** A request signed as SigV4 with the endpoint's key (UNSIGNED-PAYLOAD), and its answer. */
  private static String signed(String method, String uri, String body) throws IOException {
    return signed(method, uri, body, "");
  }

  /** The same, with {@code extra} header lines (each ending in CRLF) sent unsigned. */
  private static String signed(String method, String uri, String body, String extra)
      throws IOException {
    String head = head(method, uri, body.getBytes(StandardCharsets.UTF_8).length, extra);
    if (head == null) {
      // A URI this side cannot even parse: sent signed with anything, the endpoint refuses it.
      return exchange(method + " " + uri + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    }
    return exchange(head + "Connection: close\r\n\r\n" + body);
  }

  /**
   * A signed request's line and headers, each line ending in CRLF, without the blank line that ends
   * them; null if the URI cannot be parsed here.
   */
  private static String head(String method, String uri, long contentLength, String extra) {
    return head(method, uri, contentLength, extra, SigV4.UNSIGNED);
  }

  /** The same, for a body of {@code payloadHash} (STREAMING-UNSIGNED-PAYLOAD-TRAILER...). */
  private static String head(
      String method, String uri, long contentLength, String extra, String payloadHash) {
    String amzDate =
        DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC)
            .format(Instant.now());
    HttpHeaders h = new DefaultHttpHeaders();
    h.set("host", "127.0.0.1:" + endpoint.port());
    h.set("x-amz-content-sha256", payloadHash);
    h.set("x-amz-date", amzDate);
    String signedHeaders = "host;x-amz-content-sha256;x-amz-date";
    S3Request r;
    try {
      r = S3Request.parse(method, uri, h, java.util.List.of());
    } catch (S3Error e) {
      return null;
    }
    String scope = amzDate.substring(0, 8) + "/us-east-1/s3/aws4_request";
    String toSign =
        SigV4.ALGORITHM
            + "\n"
            + amzDate
            + "\n"
            + scope
            + "\n"
            + SigV4.sha256Hex(SigV4.canonicalRequest(r, signedHeaders, payloadHash, false));
    String signature =
        HexFormat.of()
            .formatHex(
                SigV4.hmac(SigV4.signingKey(secret, amzDate.substring(0, 8), "us-east-1"), toSign));
    return method
        + " "
        + uri
        + " HTTP/1.1\r\nHost: 127.0.0.1:"
        + endpoint.port()
        + "\r\nx-amz-content-sha256: "
        + payloadHash
        + "\r\nx-amz-date: "
        + amzDate
        + "\r\nAuthorization: AWS4-HMAC-SHA256 Credential="
        + access
        + "/"
        + scope
        + ", SignedHeaders="
        + signedHeaders
        + ", Signature="
        + signature
        + "\r\nContent-Length: "
        + contentLength
        + "\r\n"
        + extra;
  }

  /** One response read from {@code in}: its status line, headers and Content-Length body. */
  private static String response(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      if (c < 0) {
        break;
      }
      head.append((char) c);
    }
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  /** Sends {@code request} on a new connection; what came back before the endpoint closed it. */
  private static String exchange(String request) throws IOException {
    try (Socket s = connect()) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      try {
        out.write(request.getBytes(StandardCharsets.UTF_8));
        out.flush();
      } catch (IOException e) {
        // Closed while still sending (the huge header): what came back is the answer.
      }
      InputStream in = s.getInputStream();
      try {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return "";
      }
    }
  }
}
