package io.strata.fuse;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.strata.client.FileSystem;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.FuseKeys;
import io.strata.core.conf.UserKeys;
import io.strata.core.metrics.Metrics;
import io.strata.core.metrics.WebServer;
import io.strata.core.process.ProcessMain;
import io.strata.core.process.Service;
import io.strata.core.security.Security;
import io.strata.core.security.Tls;
import io.strata.core.status.StrataException;
import io.strata.core.util.DaemonThreads;
import io.strata.core.util.HostMounts;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The FUSE process: mounts a Strata folder on a local folder and serves it until stopped (SIGTERM,
 * {@code bin/strata-stop.sh fuse}); stopping unmounts, and readers still inside get an error.
 * Usage: {@code MOUNT_POINT [STRATA_FOLDER] [--read-only]}.
 */
public final class FuseProcess implements Service {
  private static final Logger LOG = LoggerFactory.getLogger(FuseProcess.class);
  static final String USAGE = "MOUNT_POINT [STRATA_FOLDER] [--read-only] [-o OPTION[,OPTION...]]";

  private final Configuration conf;
  private final MountPoint mountPoint;
  private final String folder;
  private final boolean readOnly;
  private final MountOptions.Parsed options;
  private final ExecutorService webExecutor =
      Executors.newSingleThreadExecutor(DaemonThreads.factory("fuse-web"));
  private PrometheusMeterRegistry registry;
  private WebServer webServer;
  private FileSystem fs;
  private StrataFuse fuse;
  private volatile boolean closed;

  /** Whether the process ends when its mount does (when it is a process of its own: main). */
  private volatile boolean exitWhenUnmounted;

  /** Where files changed in place through the mount are copied while open. */
  private final Path spillDir;

  public FuseProcess(Configuration conf, Path mountPoint, String folder, boolean readOnly) {
    this(conf, mountPoint, folder, readOnly, "");
  }

  /**
   * @param mountOptions as {@code -o} takes them ({@link MountOptions}), applied to a copy of
   *     {@code conf}
   */
  public FuseProcess(
      Configuration conf, Path mountPoint, String folder, boolean readOnly, String mountOptions) {
    this.conf = conf.copy();
    this.options = MountOptions.apply(mountOptions, this.conf);
    if (options.allowOther() && !othersMayMount()) {
      throw StrataException.invalidArgument(
          "allow_other needs root, or user_allow_other in /etc/fuse.conf");
    }
    this.mountPoint = new MountPoint(mountPoint);
    this.folder = folder;
    this.readOnly = readOnly || options.readOnly();
    this.spillDir = spillDirOf(this.conf);
  }

  static FuseProcess fromArgs(Configuration conf, List<String> args) {
    List<String> operands = new ArrayList<>();
    List<String> mountOptions = new ArrayList<>();
    boolean readOnly = false;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--read-only")) {
        readOnly = true;
      } else if (a.equals("-o") && i + 1 < args.size()) {
        mountOptions.add(args.get(++i));
      } else if (a.startsWith("-o") && a.length() > 2) {
        mountOptions.add(a.substring(2));
      } else if (a.startsWith("-")) {
        throw StrataException.invalidArgument(
            "unknown flag " + a + "; usage: strata-fuse " + USAGE);
      } else {
        operands.add(a);
      }
    }
    if (operands.isEmpty() || operands.size() > 2) {
      throw StrataException.invalidArgument("usage: strata-fuse " + USAGE);
    }
    FuseProcess process =
        new FuseProcess(
            conf,
            Path.of(operands.get(0)),
            operands.size() > 1 ? operands.get(1) : "/",
            readOnly,
            String.join(",", mountOptions));
    process.exitWhenUnmounted = true;
    return process;
  }

  /**
   * The mount's serving threads ended without a close: it was unmounted from outside, or its
   * connection aborted (a new mount on the folder took the place of one that did not answer). A
   * process of its own (main) has nothing left to serve and ends; one inside another (tests) is
   * left to its owner.
   */
  private void mountEnded() {
    if (closed || !exitWhenUnmounted) {
      return;
    }
    LOG.warn(
        "{} is no longer mounted (unmounted from outside, or its FUSE connection aborted); this"
            + " process ends",
        mountPoint.path());
    System.exit(0);
  }

  @Override
  public void start() {
    mountPoint.prepare();
    fs = FileSystem.create(clientConf(conf));
    if (!fs.getStatus(folder).directory()) {
      throw StrataException.invalidArgument(folder + " is a file; mount a folder");
    }
    registry = Metrics.newProcessRegistry("fuse");
    fuse =
        FuseLibrary.load(
            () ->
                new StrataFuse(
                    fs,
                    folder,
                    new Identities(conf.get(FuseKeys.USER), conf.get(FuseKeys.GROUP)),
                    readOnly,
                    new KernelView(
                        Collections.max(
                            List.of(
                                conf.get(FuseKeys.ATTR_TIMEOUT), conf.get(FuseKeys.ENTRY_TIMEOUT))),
                        conf.get(FuseKeys.KERNEL_CACHE)),
                    new FuseMetrics(registry),
                    spillDir,
                    conf.get(FuseKeys.XATTR)));
    webServer = startWebServer();
    int threads = FuseLoop.threads(conf.get(FuseKeys.THREADS));
    if (ownLoop()) {
      KernelLoop.start(
          fuse,
          mountPoint.path(),
          new KernelLoop.Spec(
              folder,
              readOnly,
              othersMayMount(),
              options.kernel(),
              conf.get(FuseKeys.ENTRY_TIMEOUT),
              conf.get(FuseKeys.ATTR_TIMEOUT),
              conf.get(FuseKeys.PASSTHROUGH_FETCH_MAX)),
          threads,
          this::mountEnded);
    } else {
      FuseLoop.start(
          fuse, mountPoint.path(), String.join(",", options()), threads, this::mountEnded);
    }
  }

  /** Whether Strata's own FUSE loop serves the mount: when asked for, and it can mount. */
  private boolean ownLoop() {
    if (!conf.get(FuseKeys.ENGINE).equals("strata")) {
      return false;
    }
    if (!KernelLoop.canMount()) {
      LOG.warn(
          "Strata's own FUSE loop (strata.fuse.engine=strata, the default) mounts as root only;"
              + " serving with jnr-fuse (libfuse 2)");
      return false;
    }
    return true;
  }

  /**
   * The mount keeps statuses as long as the workers would, told of their drops, unless told not.
   */
  private static Configuration clientConf(Configuration conf) {
    Configuration c = conf.copy();
    if (conf.get(FuseKeys.METADATA_CACHE)) {
      c.set(UserKeys.METADATA_CACHE_WATCH, "true");
    }
    return c;
  }

  /**
   * A folder of this process's own, so that two mounts never share a spill file's name, and no
   * other account can guess it ({@link SpillFolder}).
   */
  private static Path spillDirOf(Configuration conf) {
    String dir = conf.get(FuseKeys.SPILL_DIR);
    Path base = Path.of(dir.isEmpty() ? System.getProperty("java.io.tmpdir") : dir);
    return SpillFolder.under(base);
  }

  /** On the configured port, or on a free one if a mount started earlier holds it. */
  private WebServer startWebServer() {
    String host = conf.get(FuseKeys.BIND_HOST);
    int port = conf.get(FuseKeys.WEB_PORT);
    WebAccess access = WebAccess.of(conf);
    // HTTPS when TLS is on and this mount has a certificate of its own to serve with.
    Security web =
        access.security().withTls(Tls.forClient(conf).filter(t -> t.keyManager() != null));
    try {
      try {
        return new WebServer(
            host, port, registry, this::notReadyReason, webExecutor, web, access.stacks());
      } catch (BindException e) {
        WebServer free =
            new WebServer(
                host, 0, registry, this::notReadyReason, webExecutor, web, access.stacks());
        LOG.warn(
            "port {} is taken (another mount on this host?); metrics of {} are on port {}",
            port,
            mountPoint.path(),
            free.port());
        return free;
      }
    } catch (IOException e) {
      throw StrataException.unavailable(
          "cannot serve metrics on " + host + ": " + e.getMessage(), e);
    }
  }

  /** The port of /metrics, /health and /stacks. */
  public int webPort() {
    return webServer.port();
  }

  private List<String> options() {
    List<String> o =
        new ArrayList<>(
            List.of(
                "fsname=strata:" + folder,
                "subtype=strata",
                "default_permissions",
                // The under-storage's inode numbers: a file's hard links show as one file.
                "use_ino",
                // O_TRUNC arrives with the open, so the file is written anew, not first emptied
                // then opened.
                "atomic_o_trunc",
                "big_writes",
                "max_read=1048576",
                "attr_timeout=" + seconds(conf.get(FuseKeys.ATTR_TIMEOUT)),
                "entry_timeout=" + seconds(conf.get(FuseKeys.ENTRY_TIMEOUT)),
                "negative_timeout=" + seconds(conf.get(FuseKeys.ENTRY_TIMEOUT))));
    if (readOnly) {
      o.add("ro");
    }
    if (othersMayMount()) {
      o.add("allow_other");
    }
    o.addAll(options.kernel());
    return o;
  }

  /**
   * allow_other lets every local user in (the kernel still checks permissions); fuse allows it to
   * root or by fuse.conf.
   */
  private static boolean othersMayMount() {
    try {
      return "root".equals(System.getProperty("user.name"))
          || Files.readAllLines(Path.of("/etc/fuse.conf")).stream()
              .anyMatch(l -> l.trim().equals("user_allow_other"));
    } catch (java.io.IOException e) {
      return false;
    }
  }

  private static String seconds(java.time.Duration d) {
    return String.valueOf(d.toMillis() / 1000.0);
  }

  @Override
  public Optional<String> notReadyReason() {
    return mountPoint.mounted() ? Optional.empty() : Optional.of("mounting " + mountPoint.path());
  }

  @Override
  public String describe() {
    return "strata:"
        + folder
        + " mounted on "
        + mountPoint.path()
        + (readOnly ? " (read-only)" : "")
        + (webServer == null ? "" : "; web " + webServer.port());
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (fuse != null) {
      fuse.closeAll();
      try {
        fuse.umount();
      } catch (RuntimeException e) {
        LOG.warn("unmounting {}: {}", mountPoint.path(), e.toString());
      }
      detachIfStillMounted();
    }
    if (fs != null) {
      fs.close();
    }
    try {
      Files.deleteIfExists(spillDir);
    } catch (IOException e) {
      LOG.warn("cannot remove {}: {}", spillDir, e.toString());
    }
    if (webServer != null) {
      webServer.close();
    }
    webExecutor.shutdownNow();
    if (registry != null) {
      registry.close();
    }
  }

  /**
   * A mount still busy (a reader inside) is detached: the reader's next call fails instead of
   * hanging.
   */
  private void detachIfStillMounted() {
    for (int i = 0; i < 20 && mountPoint.mounted(); i++) {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    if (mountPoint.mounted()) {
      try {
        HostMounts.unmount(mountPoint.path(), true);
      } catch (StrataException e) {
        if (mountPoint.mounted()) {
          throw e;
        }
      }
    }
  }

  public static void main(String[] args) {
    ProcessMain.run("fuse", args, USAGE, FuseProcess::fromArgs);
  }
}
