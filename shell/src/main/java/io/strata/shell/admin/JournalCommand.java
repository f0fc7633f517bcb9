package io.strata.shell.admin;

import io.strata.core.net.HostPort;
import io.strata.core.proto.AddMasterRequest;
import io.strata.core.proto.ElectLeaderRequest;
import io.strata.core.proto.GetQuorumInfoRequest;
import io.strata.core.proto.QuorumInfo;
import io.strata.core.proto.RemoveMasterRequest;
import io.strata.shell.CommandTree;
import io.strata.shell.ShellContext;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code strata fsadmin journal quorum info|elect|add|remove}: the master group. */
@Command(
    name = "journal",
    mixinStandardHelpOptions = true,
    description = "Operate the masters' replicated journal.")
final class JournalCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  static CommandLine build(ShellContext ctx, List<String> words) {
    return new CommandTree()
        .group(
            QuorumGroup.class,
            rest ->
                new CommandTree()
                    .leaf(Info.class, () -> new Info(ctx))
                    .leaf(Elect.class, () -> new Elect(ctx))
                    .leaf(Add.class, () -> new Add(ctx))
                    .leaf(Remove.class, () -> new Remove(ctx))
                    .build(new QuorumGroup(), rest))
        .build(new JournalCommand(), words);
  }

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(
      name = "quorum",
      mixinStandardHelpOptions = true,
      description = "The masters of the Raft group.")
  static final class QuorumGroup implements Runnable {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getOut());
    }
  }

  /** --address, checked to be host:port before anything is sent. */
  static class Target {
    @Option(
        names = "--address",
        required = true,
        paramLabel = "HOST:PORT",
        description = "A master's RPC address (or its journal address).")
    String address;

    String checked() {
      HostPort.parse(address, "--address");
      return address;
    }
  }

  @Command(
      name = "info",
      mixinStandardHelpOptions = true,
      description =
          "Every master of the group: address, role, term, last applied index, lag behind the leader.")
  static final class Info implements Runnable {
    private final ShellContext ctx;

    Info(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      QuorumInfo info =
          ctx.master()
              .call(
                  "getQuorumInfo", s -> s.getQuorumInfo(GetQuorumInfoRequest.getDefaultInstance()));
      ctx.out().println("Leader " + info.getLeaderRpcAddress() + ", term " + info.getTerm());
      QuorumTable.print(ctx.out(), info.getMembersList());
    }
  }

  @Command(
      name = "elect",
      mixinStandardHelpOptions = true,
      description = "Make the given master the leader.")
  static final class Elect extends Target implements Runnable {
    private final ShellContext ctx;

    Elect(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      String a = checked();
      ctx.master()
          .call(
              "electLeader",
              s -> s.electLeader(ElectLeaderRequest.newBuilder().setAddress(a).build()));
      ctx.out().println(a + " is now the leader");
    }
  }

  @Command(
      name = "add",
      mixinStandardHelpOptions = true,
      description = "Add a running master (started with the new address lists) to the group.")
  static final class Add extends Target implements Runnable {
    private final ShellContext ctx;

    Add(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      String a = checked();
      ctx.master()
          .call("addMaster", s -> s.addMaster(AddMasterRequest.newBuilder().setAddress(a).build()));
      ctx.out().println("added " + a + " to the group");
    }
  }

  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = "Remove a master from the group.")
  static final class Remove extends Target implements Runnable {
    private final ShellContext ctx;

    Remove(ShellContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void run() {
      String a = checked();
      ctx.master()
          .call(
              "removeMaster",
              s -> s.removeMaster(RemoveMasterRequest.newBuilder().setAddress(a).build()));
      ctx.out().println("removed " + a + " from the group");
    }
  }
}
