package io.strata.ufs.hdfs;

import io.strata.core.status.StrataException;
import io.strata.core.ufs.UfsOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * An HDFS mount's options ({@code strata fs mount /PATH hdfs://nn:8020/dir --option k=v}), checked:
 * Strata's own ({@link #USER}, {@link #CONF_DIR}, {@link #CHECKSUM}) and Hadoop settings, passed to
 * the Hadoop client as they are ({@code dfs.client.*}, {@code fs.*}, {@code ipc.*}...). Any other
 * name is refused with one line naming it.
 *
 * @param user whom the client acts as; null: the worker's own user (or HADOOP_USER_NAME)
 * @param checksum fingerprint files by their HDFS checksum as well (one more NameNode and DataNode
 *     call per look-up): catches a file rewritten with the same length in the same millisecond
 */
public record HdfsSettings(Configuration hadoop, String user, boolean checksum) {
  public static final String USER = "hdfs.user";
  public static final String CONF_DIR = "hdfs.conf.dir";
  public static final String CHECKSUM = "hdfs.fingerprint.checksum";

  /** Every option an HDFS mount takes, for help and docs. */
  public static final List<UfsOption> OPTIONS =
      List.of(
          new UfsOption(USER, "whom the client acts as (default: the worker's user)"),
          new UfsOption(CONF_DIR, "a folder with the cluster's core-site.xml and hdfs-site.xml"),
          new UfsOption(CHECKSUM, "true: fingerprint files by their HDFS checksum too (false)"),
          new UfsOption(
              "dfs.*",
              "any Hadoop client setting, passed as it is; so are fs.*, hadoop.*,"
                  + " ipc.*, io.*, ha.*, net.topology.*"));

  /** Prefixes of the Hadoop settings a mount may pass through. */
  private static final List<String> HADOOP_PREFIXES =
      List.of("dfs.", "fs.", "hadoop.", "ipc.", "io.", "ha.", "net.topology.");

  /**
   * Unless the mount says otherwise, a NameNode that does not answer fails a call within seconds
   * rather than Hadoop's minutes (10 retries, 45 on time-outs, 20 s each): a reader of the cache
   * gets an error, not a hang.
   */
  private static final Map<String, String> FAIL_FAST =
      Map.of(
          "ipc.client.connect.max.retries", "2",
          "ipc.client.connect.retry.interval", "500",
          "ipc.client.connect.timeout", "5000",
          "ipc.client.connect.max.retries.on.timeouts", "2",
          "dfs.client.failover.max.attempts", "4",
          "dfs.client.failover.sleep.max.millis", "2000");

  public static HdfsSettings of(Map<String, String> options) {
    Configuration conf = new Configuration();
    FAIL_FAST.forEach(conf::set);
    String dir = options.get(CONF_DIR);
    if (dir != null) {
      addSiteFiles(conf, Path.of(dir));
    }
    String checksum = options.getOrDefault(CHECKSUM, "false");
    if (!checksum.equals("true") && !checksum.equals("false")) {
      throw StrataException.invalidArgument(CHECKSUM + " is true or false, not '" + checksum + "'");
    }
    options.forEach(
        (name, value) -> {
          if (isHadoopSetting(name)) {
            conf.set(name, value);
          } else if (!name.equals(USER) && !name.equals(CONF_DIR) && !name.equals(CHECKSUM)) {
            throw StrataException.invalidArgument(
                "unknown HDFS mount option '"
                    + name
                    + "' (known: "
                    + USER
                    + ", "
                    + CONF_DIR
                    + ", "
                    + CHECKSUM
                    + ", and Hadoop settings under "
                    + String.join("* ", HADOOP_PREFIXES)
                    + "*)");
          }
        });
    String user = options.get(USER);
    if (user != null && user.isBlank()) {
      throw StrataException.invalidArgument(USER + " must name a user");
    }
    return new HdfsSettings(conf, user, Boolean.parseBoolean(checksum));
  }

  private static boolean isHadoopSetting(String name) {
    return HADOOP_PREFIXES.stream().anyMatch(name::startsWith);
  }

  /** core-site.xml and hdfs-site.xml of {@code dir}, as a Hadoop client's conf folder has them. */
  private static void addSiteFiles(Configuration conf, Path dir) {
    if (!Files.isDirectory(dir)) {
      throw StrataException.invalidArgument(CONF_DIR + " " + dir + " is not a folder");
    }
    boolean any = false;
    for (String name : List.of("core-site.xml", "hdfs-site.xml")) {
      Path site = dir.resolve(name);
      if (Files.isReadable(site)) {
        conf.addResource(new org.apache.hadoop.fs.Path(site.toUri()));
        any = true;
      }
    }
    if (!any) {
      throw StrataException.invalidArgument(
          CONF_DIR + " " + dir + " holds neither core-site.xml nor hdfs-site.xml");
    }
    try {
      conf.size(); // parses the files now, so that a malformed one is refused at mount time
    } catch (RuntimeException e) {
      throw StrataException.invalidArgument(
          "the Hadoop settings in " + dir + " cannot be read: " + e.getMessage());
    }
  }
}
