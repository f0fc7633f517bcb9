package io.strata.core.conf;

import java.util.Set;

/** Keys of authentication: the security mode, the cluster secret and users' tokens. */
public final class SecurityKeys {
  private SecurityKeys() {}

  public static final ConfKey<String> MODE =
      ConfKey.string("strata.security.mode")
          .defaultValue("")
          .scope(Scope.ALL)
          .check(v -> Set.of("", "NONE", "TOKEN").contains(v), "must be NONE or TOKEN")
          .description(
              "NONE trusts every caller and is allowed only when every listener is on loopback; TOKEN"
                  + " authenticates every call with the cluster secret or a user's token. Empty: NONE"
                  + " when every listener is on loopback, else TOKEN.")
          .build();

  public static final ConfKey<String> SECRET_FILE =
      ConfKey.string("strata.security.secret.file")
          .defaultValue("")
          .scope(Scope.ALL)
          .description(
              "File holding the cluster secret (at least 32 bytes, readable by its owner only) that"
                  + " masters, workers and FUSE processes share in TOKEN mode; make one with"
                  + " 'head -c 48 /dev/urandom | base64 > FILE; chmod 600 FILE'.")
          .build();

  public static final ConfKey<String> TOKEN_FILE =
      ConfKey.string("strata.security.token.file")
          .defaultValue("")
          .scope(Scope.CLIENT)
          .description(
              "File holding the user's token (from 'strata fsadmin token create'); STRATA_TOKEN wins"
                  + " over it. Empty: ~/.strata/token if it exists.")
          .build();

  public static final ConfKey<Boolean> PERMISSION_CHECK =
      ConfKey.bool("strata.security.permission.check.enabled")
          .defaultValue("true")
          .scope(Scope.WORKER)
          .dynamic()
          .description(
              "In TOKEN mode, check the under-storage's permission bits, owner and group for each"
                  + " user's read, list, write, delete, rename and attribute change, as HDFS does;"
                  + " false for a single-tenant cluster. Admins and the cluster's own processes are"
                  + " never checked.")
          .build();

  public static final ConfKey<String> SUPERUSER_GROUP =
      ConfKey.string("strata.security.superuser.group")
          .defaultValue("")
          .scope(Scope.WORKER)
          .dynamic()
          .description(
              "Users in this group (as the worker's host knows its users' groups) bypass permission"
                  + " checks; empty for none.")
          .build();
}
