package io.strata.shell.admin;

import io.strata.core.proto.CreateTokenResponse;
import io.strata.core.security.S3AccessKeys;
import io.strata.shell.CommandTree;
import io.strata.shell.ShellContext;
import java.time.Instant;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code strata fsadmin s3 credentials create USER [--ttl D]}: S3 access keys of a TOKEN-mode
 * cluster's user, derived from a token the master signs for them ({@link S3AccessKeys}): the S3
 * endpoint acts as that user for requests signed with them, until they expire.
 */
@Command(
    name = "s3",
    mixinStandardHelpOptions = true,
    description = "The S3 endpoint's access keys of users (strata.security.mode=TOKEN).")
final class S3CredentialsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static CommandLine build(ShellContext ctx, List<String> words) {
    return new CommandTree()
        .group(
            Credentials.class,
            rest ->
                new CommandTree()
                    .leaf(Create.class, () -> new Create(ctx))
                    .build(new Credentials(), rest))
        .build(new S3CredentialsCommand(), words);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "credentials",
      mixinStandardHelpOptions = true,
      description = "Access keys bound to a user, derived from the cluster secret (none kept).")
  static final class Credentials implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getOut());
    }
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Print an access key and secret key for USER, in ~/.aws/credentials' form: the S3"
              + " endpoint acts as USER for requests they sign, with USER's rights. Needs an"
              + " admin token, or the cluster secret.")
  static final class Create implements Runnable {
    private final ShellContext ctx;

    @Parameters(index = "0", paramLabel = "USER", description = "Letters, digits, ._@- (≤ 64).")
    String user;

    @Option(
        names = "--ttl",
        paramLabel = "DURATION",
        description = "How long they are valid, e.g. 12h, 30d (default 7d, at most 366d).")
    String ttl;

    Create(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      CreateTokenResponse made = TokenCommand.issue(ctx, user, ttl, false);
      S3AccessKeys.Pair keys = S3AccessKeys.of(made.getToken());
      ctx.out().println("aws_access_key_id = " + keys.accessKey());
      ctx.out().println("aws_secret_access_key = " + keys.secretKey());
      ctx.err()
          .println(
              "S3 access keys of "
                  + user
                  + " valid until "
                  + Instant.ofEpochMilli(made.getExpiresEpochMs()));
    }
  }
}
