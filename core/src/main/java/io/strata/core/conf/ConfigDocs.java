package io.strata.core.conf;

import java.util.List;

/** Renders docs/configuration.md from the key registry: the one place keys are described. */
public final class ConfigDocs {
  private static final List<Scope> ORDER =
      List.of(Scope.ALL, Scope.MASTER, Scope.WORKER, Scope.CLIENT);

  private ConfigDocs() {}

  public static String render() {
    StringBuilder md = new StringBuilder();
    md.append("# Configuration\n\n")
        .append(
            "<!-- Generated from the key registry (io.strata.core.conf); do not edit. Regenerate with\n")
        .append("     mvn -q -pl core test -Dtest=ConfigurationDocsTest -DupdateDocs=true -->\n\n")
        .append(
            "Every process reads, lowest precedence first: the defaults below, `strata-site.properties` in\n")
        .append(
            "`$STRATA_CONF_DIR` (default `conf/`), `STRATA_*` environment variables (the key in upper case,\n")
        .append(
            "dots as underscores: `STRATA_WORKER_PAGE_SIZE`), `-D` system properties, and the cluster's\n")
        .append(
            "overrides (`strata conf updateConf KEY=VALUE`, dynamic keys only, replicated by the masters).\n")
        .append("Unknown keys and malformed values are refused with a message naming the key.\n\n")
        .append(
            "Sizes take `B`, `KiB`/`KB`, `MiB`/`MB`, `GiB`/`GB`, `TiB`/`TB` (all powers of 1024); durations take\n")
        .append(
            "`ms`, `s`, `min`, `h`, `d` (a bare number is milliseconds). A value may refer to another key as\n")
        .append(
            "`${strata.home}`. Dynamic keys take effect while processes run; the others need a restart.\n");
    for (Scope scope : ORDER) {
      md.append("\n## ")
          .append(title(scope))
          .append("\n\n")
          .append("| key | type | default | dynamic | description |\n")
          .append("|---|---|---|---|---|\n");
      for (ConfKey<?> key : KeyRegistry.all()) {
        if (key.scope() == scope) {
          md.append("| `")
              .append(key.name())
              .append("` | ")
              .append(key.type().name())
              .append(" | ")
              .append(key.defaultValue().isEmpty() ? "(empty)" : "`" + key.defaultValue() + "`")
              .append(" | ")
              .append(key.isDynamic() ? "yes" : "no")
              .append(" | ")
              .append(key.description().replace("|", "\\|"))
              .append(" |\n");
        }
      }
    }
    return md.toString();
  }

  private static String title(Scope scope) {
    return switch (scope) {
      case ALL -> "Every process";
      case MASTER -> "Masters";
      case WORKER -> "Workers";
      case CLIENT -> "Clients (shell, FUSE, Java API)";
    };
  }
}
