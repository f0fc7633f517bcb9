package io.strata.core.security;

import io.grpc.ChannelCredentials;
import io.grpc.ServerCredentials;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.grpc.util.AdvancedTlsX509KeyManager;
import io.grpc.util.AdvancedTlsX509TrustManager;
import io.grpc.util.AdvancedTlsX509TrustManager.Verification;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.SecurityKeys;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManager;

/**
 * A process's TLS material, from {@code strata.security.tls.*}: its certificate and key (servers
 * always; clients for mutual TLS) and the authorities it trusts, each read again from its file when
 * it changes (checked every reload interval, {@link TlsFiles}), so a renewed certificate serves new
 * connections without a restart. One instance hands the same key and trust managers to every
 * transport: gRPC, the data plane's Netty pipelines, the JDK's HTTPS server and Ratis.
 *
 * <p>Peers are checked two ways: a client checks a server's certificate and that it names the host
 * it dialled; a server (and every Raft peer) checks a client's certificate only, since a client's
 * address names nothing it was issued for.
 */
public final class Tls {
  /** Reloads every process's files; daemon, so it never holds a JVM up. */
  private static final ScheduledExecutorService RELOADS =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.factory("tls-reload"));

  private final AdvancedTlsX509KeyManager keys;
  private final AdvancedTlsX509TrustManager servers;
  private final AdvancedTlsX509TrustManager clients;
  private final boolean mutual;

  /** Held for as long as this is in use: its reloading stops once it is collected. */
  @SuppressWarnings({"unused", "FieldCanBeLocal"})
  private final TlsFiles files;

  private volatile SslContext nettyServer;
  private volatile SslContext nettyClient;

  private Tls(
      AdvancedTlsX509KeyManager keys,
      AdvancedTlsX509TrustManager servers,
      AdvancedTlsX509TrustManager clients,
      boolean mutual,
      TlsFiles files) {
    this.keys = keys;
    this.servers = servers;
    this.clients = clients;
    this.mutual = mutual;
    this.files = files;
  }

  /**
   * A server process's TLS, or empty when it is off: its certificate and key are required.
   *
   * @throws StrataException FAILED_PRECONDITION, one line, if a file is missing or unreadable
   */
  public static Optional<Tls> forServer(Configuration conf) {
    return of(conf, true);
  }

  /**
   * A client's TLS, or empty when it is off: its certificate and key only if it names them (mutual
   * TLS needs them).
   */
  public static Optional<Tls> forClient(Configuration conf) {
    return of(conf, false);
  }

  private static Optional<Tls> of(Configuration conf, boolean server) {
    if (!conf.get(SecurityKeys.TLS_ENABLED)) {
      return Optional.empty();
    }
    String cert = conf.get(SecurityKeys.TLS_CERT_FILE);
    String key = conf.get(SecurityKeys.TLS_KEY_FILE);
    boolean mutual = conf.get(SecurityKeys.TLS_MUTUAL);
    if ((server || mutual) && (cert.isEmpty() || key.isEmpty())) {
      throw refused(
          (server ? "a server" : "a client of a mutual-TLS cluster")
              + " needs its certificate and key: set "
              + SecurityKeys.TLS_CERT_FILE.name()
              + " and "
              + SecurityKeys.TLS_KEY_FILE.name());
    }
    Duration every = conf.get(SecurityKeys.TLS_RELOAD_INTERVAL);
    String ca = conf.get(SecurityKeys.TLS_CA_FILE);
    boolean own = !cert.isEmpty() && !key.isEmpty();
    try {
      AdvancedTlsX509KeyManager keys = own ? new AdvancedTlsX509KeyManager() : null;
      AdvancedTlsX509TrustManager servers =
          trust(Verification.CERTIFICATE_AND_HOST_NAME_VERIFICATION);
      AdvancedTlsX509TrustManager clients = trust(Verification.CERTIFICATE_ONLY_VERIFICATION);
      TlsFiles files =
          new TlsFiles(
              own ? readable(cert, SecurityKeys.TLS_CERT_FILE.name()) : null,
              own ? readable(key, SecurityKeys.TLS_KEY_FILE.name()) : null,
              ca.isEmpty() ? null : readable(ca, SecurityKeys.TLS_CA_FILE.name()),
              keys,
              List.of(servers, clients));
      reloadEvery(files, every);
      return Optional.of(new Tls(keys, servers, clients, mutual, files));
    } catch (IOException | GeneralSecurityException e) {
      throw refused("cannot load TLS material: " + e.getMessage());
    }
  }

  private static AdvancedTlsX509TrustManager trust(Verification verification)
      throws GeneralSecurityException {
    return AdvancedTlsX509TrustManager.newBuilder().setVerification(verification).build();
  }

  /**
   * Checks {@code files} every {@code every} for as long as their {@link Tls} is in use: the task
   * holds them weakly and ends once they are gone.
   */
  // The task's end is its own: nothing waits for it.
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void reloadEvery(TlsFiles files, Duration every) {
    WeakReference<TlsFiles> ref = new WeakReference<>(files);
    RELOADS.scheduleWithFixedDelay(
        () -> {
          TlsFiles f = ref.get();
          if (f == null) {
            throw new CancellationException("TLS material no longer in use");
          }
          f.reloadIfChanged();
        },
        every.toMillis(),
        every.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  private static Path readable(String file, String key) {
    Path p = Path.of(file);
    if (!Files.isReadable(p)) {
      throw refused(
          key
              + " names "
              + file
              + ", which "
              + (Files.exists(p) ? "is unreadable" : "does not exist"));
    }
    return p;
  }

  private static StrataException refused(String why) {
    return new StrataException(StatusCode.FAILED_PRECONDITION, why);
  }

  /** Whether servers require clients' certificates. */
  public boolean mutual() {
    return mutual;
  }

  /** For gRPC servers. */
  public ServerCredentials grpcServer() {
    return TlsServerCredentials.newBuilder()
        .keyManager(keys)
        .trustManager(clients)
        .clientAuth(
            mutual ? TlsServerCredentials.ClientAuth.REQUIRE : TlsServerCredentials.ClientAuth.NONE)
        .build();
  }

  /** For gRPC channels: the server's certificate and host name checked. */
  public ChannelCredentials grpcChannel() {
    TlsChannelCredentials.Builder b = TlsChannelCredentials.newBuilder().trustManager(servers);
    if (keys != null) {
      b.keyManager(keys);
    }
    return b.build();
  }

  /** For the data plane's server pipelines (Netty). */
  public SslContext nettyServer() {
    SslContext ctx = nettyServer;
    if (ctx == null) {
      try {
        ctx =
            SslContextBuilder.forServer(keys)
                .sslProvider(provider())
                .trustManager(clients)
                .clientAuth(mutual ? ClientAuth.REQUIRE : ClientAuth.NONE)
                .build();
      } catch (SSLException e) {
        throw refused("cannot set up TLS for the data plane: " + e.getMessage());
      }
      nettyServer = ctx;
    }
    return ctx;
  }

  /**
   * For the data plane's client pipelines (Netty); a handler made with the peer's host checks it.
   */
  public SslContext nettyClient() {
    SslContext ctx = nettyClient;
    if (ctx == null) {
      try {
        SslContextBuilder b =
            SslContextBuilder.forClient().sslProvider(provider()).trustManager(servers);
        if (keys != null) {
          b.keyManager(keys);
        }
        ctx = b.endpointIdentificationAlgorithm("HTTPS").build();
      } catch (SSLException e) {
        throw refused("cannot set up TLS for data connections: " + e.getMessage());
      }
      nettyClient = ctx;
    }
    return ctx;
  }

  /**
   * BoringSSL where Netty's native library loads (Linux x86-64): it ciphers at about twice the
   * JDK's speed, which is what a data port under TLS spends its time on; else the JDK's engine.
   */
  private static SslProvider provider() {
    return OpenSsl.isAvailable() ? SslProvider.OPENSSL : SslProvider.JDK;
  }

  /** A JDK context for a server (the web port): clients' certificates checked, not their hosts. */
  public SSLContext jdkServer() {
    return jdk(clients);
  }

  /**
   * A JDK context for HTTPS clients of the web ports and other JDK sockets (the server's host is
   * checked by the caller, e.g. {@code java.net.http.HttpClient}).
   */
  public SSLContext jdkClient() {
    return jdk(servers);
  }

  private SSLContext jdk(TrustManager trust) {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(keys == null ? null : new KeyManager[] {keys}, new TrustManager[] {trust}, null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw refused("cannot set up TLS: " + e.getMessage());
    }
  }

  /** This process's certificate and key, reloaded; null for a client without one. */
  public KeyManager keyManager() {
    return keys;
  }

  /**
   * Checks a peer's certificate against the trusted authorities, not its host name: for servers
   * checking clients, and for Raft peers, which check both sides with one trust manager.
   */
  public TrustManager peerTrust() {
    return clients;
  }
}
