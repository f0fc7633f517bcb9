package io.strata.shell;

import io.strata.client.FileSystem;
import io.strata.core.conf.ClusterConf;
import io.strata.core.conf.ConfLoader;
import io.strata.core.conf.Configuration;
import io.strata.core.conf.UserKeys;
import io.strata.core.proto.ConfigView;
import io.strata.core.proto.GetConfigRequest;
import io.strata.core.rpc.MasterClient;
import io.strata.core.status.StatusCode;
import io.strata.core.status.StrataException;
import java.io.InputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * What commands share: output streams, and the configuration and clients, each created on first use
 * so that a command needing none of them starts no threads and opens no connection.
 */
public final class ShellContext implements AutoCloseable {
  private final InputStream in;
  private final PrintStream out;
  private final PrintStream err;
  private static final Duration OVERRIDE_BUDGET = Duration.ofSeconds(2);

  private final Supplier<Configuration> confSource;
  private Configuration conf;
  private FileSystem fs;
  private MasterClient master;

  public ShellContext(PrintStream out, PrintStream err, Supplier<Configuration> confSource) {
    this(InputStream.nullInputStream(), out, err, confSource);
  }

  public ShellContext(
      InputStream in, PrintStream out, PrintStream err, Supplier<Configuration> confSource) {
    this.in = in;
    this.out = out;
    this.err = err;
    this.confSource = confSource;
  }

  /** The context of a real shell: System streams and configuration from the environment. */
  public static ShellContext fromEnvironment() {
    return new ShellContext(System.in, System.out, System.err, ConfLoader::load);
  }

  /** Where answers to questions (a confirmation) come from. */
  public InputStream in() {
    return in;
  }

  public PrintStream out() {
    return out;
  }

  public PrintStream err() {
    return err;
  }

  public Configuration conf() {
    if (conf == null) {
      conf = confSource.get();
    }
    return conf;
  }

  /**
   * This shell's configuration with the cluster's overrides applied, as a client sees it; when no
   * master answers within {@link #OVERRIDE_BUDGET}, the local configuration alone (and a note on
   * stderr).
   */
  public Configuration effectiveConf() {
    Configuration effective = conf().copy();
    try {
      ConfigView view =
          master()
              .call(
                  "getConfig",
                  OVERRIDE_BUDGET,
                  stub -> stub.getConfig(GetConfigRequest.getDefaultInstance()));
      ClusterConf.apply(effective, view.getOverridesMap(), view.getVersion());
    } catch (StrataException e) {
      if (e.code() != StatusCode.UNAVAILABLE) {
        throw e;
      }
      err.println(
          "strata: note: no master answered; showing this host's configuration without cluster overrides");
    }
    return effective;
  }

  /**
   * The file system client, without a metadata cache and without a configuration-sync thread: a
   * command asks for each status or listing once and ends, so both would only add their set-up.
   */
  public FileSystem fs() {
    if (fs == null) {
      Configuration forOneCommand = conf().copy();
      forOneCommand.set(UserKeys.METADATA_CACHE_TTL, "0s");
      forOneCommand.set(UserKeys.CONF_SYNC_INTERVAL, "0s");
      fs = FileSystem.create(forOneCommand);
    }
    return fs;
  }

  public MasterClient master() {
    if (master == null) {
      master = new MasterClient(conf());
    }
    return master;
  }

  @Override
  public void close() {
    if (fs != null) {
      fs.close();
    }
    if (master != null) {
      master.close();
    }
  }
}
