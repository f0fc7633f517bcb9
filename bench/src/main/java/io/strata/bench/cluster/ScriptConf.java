package io.strata.bench.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A conf folder and a logs folder in a work folder of their own, for the real {@code bin/} scripts
 * (as STRATA_CONF_DIR and STRATA_LOGS_DIR): one master and one worker on free loopback ports,
 * journal, UFS root and worker state inside the work folder, so a cluster started with it never
 * touches the install's own.
 */
public record ScriptConf(Path conf, Path logs, int workerWebPort) {
  /** Writes the folders under {@code work}; {@code extra} are more {@code key=value} lines. */
  public static ScriptConf create(Path home, Path work, String... extra) throws IOException {
    Path conf = Files.createDirectories(work.resolve("conf"));
    Files.copy(home.resolve("conf/log4j2.xml"), conf.resolve("log4j2.xml"));
    int workerWebPort = FreePorts.next();
    List<String> lines =
        new ArrayList<>(
            List.of(
                "strata.master.hostname=127.0.0.1",
                "strata.master.bind.host=127.0.0.1",
                "strata.master.rpc.port=" + FreePorts.next(),
                "strata.master.embedded.journal.port=" + FreePorts.next(),
                "strata.master.web.port=" + FreePorts.next(),
                "strata.master.journal.folder=" + work.resolve("journal"),
                "strata.master.mount.table.root.ufs="
                    + Files.createDirectories(work.resolve("ufs")),
                "strata.worker.hostname=127.0.0.1",
                "strata.worker.bind.host=127.0.0.1",
                "strata.worker.rpc.port=" + FreePorts.next(),
                "strata.worker.data.port=" + FreePorts.next(),
                "strata.worker.web.port=" + workerWebPort,
                "strata.worker.state.folder=" + work.resolve("worker-state")));
    lines.addAll(List.of(extra));
    lines.add("");
    Files.writeString(conf.resolve("strata-site.properties"), String.join("\n", lines));
    return new ScriptConf(conf, work.resolve("logs"), workerWebPort);
  }
}
