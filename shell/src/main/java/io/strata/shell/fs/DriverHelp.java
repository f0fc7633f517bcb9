package io.strata.shell.fs;

import io.strata.core.ufs.UfsFactory;
import io.strata.core.ufs.UfsOption;
import io.strata.core.ufs.UnderFileSystemProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * The under-storages {@code fs mount --help} lists, with their mount options: the drivers on the
 * shell's class path (the local one) and each driver folder of the install ({@code
 * lib/ufs/<name>/}, which masters and workers load). A folder's jars are loaded only to render the
 * help, in a class loader of their own, so that the shell's commands never carry a driver's SDK.
 */
final class DriverHelp {
  private DriverHelp() {}

  /** The help section, for the install at {@code home} (null: the class path only). */
  static String render(Path home) {
    StringBuilder out =
        new StringBuilder(String.format("%nUnder-storages, and their --option keys:%n"));
    for (UnderFileSystemProvider p : drivers(home).values()) {
      out.append(String.format("  %-6s %s%n", p.name(), p.describe()));
      for (UfsOption o : p.options()) {
        out.append(String.format("           %-26s %s%n", o.name(), o.description()));
      }
    }
    if (home != null && !Files.isDirectory(home.resolve("lib/ufs"))) {
      out.append(String.format("  (no lib/ufs/ in %s: its drivers are not listed)%n", home));
    }
    return out.toString();
  }

  /** By name: the class path's drivers first, then those of the install's driver folders. */
  static Map<String, UnderFileSystemProvider> drivers(Path home) {
    Map<String, UnderFileSystemProvider> byName = new LinkedHashMap<>();
    UfsFactory.providers().forEach(p -> byName.putIfAbsent(p.name(), p));
    Path folders = home == null ? null : home.resolve("lib/ufs");
    if (folders == null || !Files.isDirectory(folders)) {
      return byName;
    }
    try (Stream<Path> each = Files.list(folders)) {
      for (Path folder : each.filter(Files::isDirectory).sorted().toList()) {
        ClassLoader jars = new URLClassLoader(jarsOf(folder), DriverHelp.class.getClassLoader());
        for (UnderFileSystemProvider p : ServiceLoader.load(UnderFileSystemProvider.class, jars)) {
          byName.putIfAbsent(p.name(), p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("listing " + folders, e);
    }
    return byName;
  }

  private static URL[] jarsOf(Path folder) throws IOException {
    List<URL> urls = new ArrayList<>();
    try (Stream<Path> jars = Files.list(folder)) {
      for (Path jar : jars.filter(j -> j.toString().endsWith(".jar")).sorted().toList()) {
        urls.add(toUrl(jar));
      }
    }
    return urls.toArray(URL[]::new);
  }

  private static URL toUrl(Path jar) {
    try {
      return jar.toUri().toURL();
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException(jar.toString(), e);
    }
  }
}
