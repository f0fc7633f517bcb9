package io.strata.shell.admin;

import io.strata.core.proto.CreateTokenRequest;
import io.strata.core.proto.CreateTokenResponse;
import io.strata.core.status.StrataException;
import io.strata.shell.CommandTree;
import io.strata.shell.DurationArg;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code strata fsadmin token create USER [--ttl D] [--admin]}: users' tokens (TOKEN mode). */
@Command(
    name = "token",
    mixinStandardHelpOptions = true,
    description = "Users' tokens, signed with the cluster secret (strata.security.mode=TOKEN).")
final class TokenCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static CommandLine build(ShellContext ctx, List<String> words) {
    return new CommandTree()
        .leaf(Create.class, () -> new Create(ctx))
        .build(new TokenCommand(), words);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * A token for {@code user} the master signs ({@code ttl} as --ttl gave it, or null for the
   * default); the master checks that the caller may ask.
   */
  static CreateTokenResponse issue(ShellContext ctx, String user, String ttl, boolean admin) {
    long ttlMs = ttl == null ? 0 : DurationArg.millis(ttl);
    if (ttl != null && ttlMs <= 0) {
      throw StrataException.invalidArgument("--ttl is above 0: " + ttl);
    }
    CreateTokenRequest req =
        CreateTokenRequest.newBuilder().setUser(user).setTtlMs(ttlMs).setAdmin(admin).build();
    return ctx.master().call("createToken", s -> s.createToken(req));
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Print a token for USER: give it to them as STRATA_TOKEN or in ~/.strata/token (mode 600)."
              + " Needs an admin token, or the cluster secret.")
  static final class Create implements Runnable {
    private final ShellContext ctx;

    @Parameters(index = "0", paramLabel = "USER", description = "Letters, digits, ._@- (≤ 64).")
    String user;

    @Option(
        names = "--ttl",
        paramLabel = "DURATION",
        description = "How long it is valid, e.g. 12h, 30d (default 7d, at most 366d).")
    String ttl;

    @Option(names = "--admin", description = "The token may also administer the cluster.")
    boolean admin;

    Create(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      CreateTokenResponse made = issue(ctx, user, ttl, admin);
      ctx.out().println(made.getToken());
      ctx.err()
          .println(
              "token of "
                  + user
                  + (admin ? " (admin)" : "")
                  + " valid until "
                  + java.time.Instant.ofEpochMilli(made.getExpiresEpochMs()));
    }
  }
}
