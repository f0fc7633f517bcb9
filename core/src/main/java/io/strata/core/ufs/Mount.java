package io.strata.core.ufs;

import io.strata.core.path.StrataPath;
import io.strata.core.proto.MountPoint;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * An under-storage attached at a Strata path, with its options (e.g. {@code s3.endpoint}); {@code
 * shared} mounts are open to every user.
 */
public record Mount(
    StrataPath path, String ufsUri, boolean readOnly, Map<String, String> options, boolean shared) {
  /** Option names whose values are credentials: never shown, logged or measured. */
  private static final Pattern SECRET =
      Pattern.compile(".*(secret|password|passwd|access\\.key|token|credential).*");

  public static final String REDACTED = "<redacted>";

  public Mount {
    options = Map.copyOf(options);
  }

  public Mount(StrataPath path, String ufsUri, boolean readOnly) {
    this(path, ufsUri, readOnly, Map.of(), false);
  }

  public static boolean isSecret(String option) {
    return SECRET.matcher(option).matches();
  }

  public static Mount fromProto(MountPoint p) {
    return new Mount(
        StrataPath.of(p.getPath()),
        p.getUfsUri(),
        p.getReadOnly(),
        p.getOptionsMap(),
        p.getShared());
  }

  public MountPoint toProto() {
    return MountPoint.newBuilder()
        .setPath(path.toString())
        .setUfsUri(ufsUri)
        .setReadOnly(readOnly)
        .putAllOptions(options)
        .setShared(shared)
        .build();
  }

  /** As shown to people: credentials replaced by {@link #REDACTED}. */
  public MountPoint toRedactedProto() {
    return MountPoint.newBuilder(toProto()).clearOptions().putAllOptions(redactedOptions()).build();
  }

  /** The options, credentials replaced by {@link #REDACTED}, in name order. */
  public Map<String, String> redactedOptions() {
    Map<String, String> shown = new TreeMap<>();
    options.forEach((k, v) -> shown.put(k, isSecret(k) ? REDACTED : v));
    return shown;
  }

  @Override
  public String toString() {
    // A record's own toString would print credentials into logs.
    return "Mount["
        + path
        + " -> "
        + ufsUri
        + (readOnly ? ", read-only" : "")
        + (shared ? ", shared" : "")
        + ", options="
        + redactedOptions()
        + "]";
  }
}
