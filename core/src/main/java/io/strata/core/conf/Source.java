package io.strata.core.conf;

/** Where a value came from, lowest precedence first: a later source overrides an earlier one. */
public enum Source {
  DEFAULT("default"),
  SITE_PROPERTIES("strata-site.properties"),
  ENVIRONMENT("environment"),
  SYSTEM_PROPERTY("-D system property"),
  CLUSTER("cluster override"),
  RUNTIME("set at runtime");

  private final String label;

  Source(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
