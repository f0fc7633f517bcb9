package io.strata.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The subcommands of a command, of which only the one a command line names is built: picocli
 * reflects over every command it is given, and its classes (compiled for Java 5) can neither be
 * shared between JVMs nor verified quickly, so building the whole tree was a third of a shell
 * command's start. When the words name no subcommand (help, a typo) every one is built, so that
 * usage and suggestions list them all.
 */
public final class CommandTree {
  private record Branch(List<String> names, Function<List<String>, Object> build) {}

  private final List<Branch> branches = new ArrayList<>();

  /** A command without subcommands; its names come from its {@code @Command} annotation. */
  public CommandTree leaf(Class<?> type, Supplier<?> make) {
    branches.add(new Branch(names(type), rest -> make.get()));
    return this;
  }

  /** A command without subcommands, whose command line {@code make} sets up (help of its own). */
  public CommandTree leafLine(Class<?> type, Supplier<CommandLine> make) {
    branches.add(new Branch(names(type), rest -> make.get()));
    return this;
  }

  /** A command with subcommands of its own, built from the words after its name. */
  public CommandTree group(Class<?> type, Function<List<String>, CommandLine> build) {
    branches.add(new Branch(names(type), build::apply));
    return this;
  }

  /** {@code command} with the subcommands {@code words} (the words after its name) need. */
  public CommandLine build(Object command, List<String> words) {
    CommandLine line = new CommandLine(command);
    String first = words.isEmpty() ? "" : words.get(0);
    boolean named = branches.stream().anyMatch(b -> b.names().contains(first));
    List<String> rest = named ? words.subList(1, words.size()) : List.of();
    for (Branch b : branches) {
      if (!named || b.names().contains(first)) {
        line.addSubcommand(b.names().get(0), b.build().apply(rest), aliases(b));
      }
    }
    return line;
  }

  private static String[] aliases(Branch b) {
    return b.names().subList(1, b.names().size()).toArray(String[]::new);
  }

  private static List<String> names(Class<?> type) {
    Command c = type.getAnnotation(Command.class);
    if (c == null || c.name().isEmpty()) {
      throw new IllegalArgumentException(type + " has no @Command name");
    }
    List<String> names = new ArrayList<>(List.of(c.name()));
    names.addAll(List.of(c.aliases()));
    return names;
  }
}
