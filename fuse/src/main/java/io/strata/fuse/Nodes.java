package io.strata.fuse;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The kernel's node ids and the names they stand for. The kernel names a file by the id a LOOKUP
 * (or a create) answered, and holds it until it FORGETs as many lookups as it was given. A node
 * knows its folders and names, so a rename of a folder moves everything below it at once; the names
 * of a file with hard links (a link count above 1) share one node, as they share one inode, so the
 * kernel sees a change through one name under all of them. Ids are never reused while the mount
 * lasts (generation 0 for all). Thread-safe: every method holds the table's lock, for a few map
 * operations.
 */
final class Nodes {
  static final long ROOT = 1;

  private record Name(long parent, String name) {}

  /** One id the kernel holds. */
  private static final class Node {
    final long id;

    /** Its names, the newest first; empty once none leads to it any more. */
    final List<Name> names = new ArrayList<>(1);

    /** The under-storage's inode number, for a file whose names are shared; 0 otherwise. */
    long ino;

    long lookups;

    Node(long id) {
      this.id = id;
    }
  }

  private final Map<Long, Node> byId = new HashMap<>();
  private final Map<Name, Node> byName = new HashMap<>();
  private final Map<Long, Node> byIno = new HashMap<>();
  private long nextId = ROOT + 1;

  Nodes() {
    byId.put(ROOT, new Node(ROOT));
  }

  /**
   * The mount's path of {@code id} ("/" for the root), by its newest name that leads to it; null if
   * the kernel holds no such id or no name leads to it any more.
   */
  synchronized String path(long id) {
    return path(id, 0);
  }

  private String path(long id, int depth) {
    if (id == ROOT) {
      return "/";
    }
    Node n = byId.get(id);
    if (n == null || depth > 4096) {
      return null;
    }
    for (Name name : n.names) {
      String folder = path(name.parent(), depth + 1);
      if (folder != null) {
        return folder.equals("/") ? "/" + name.name() : folder + "/" + name.name();
      }
    }
    return null;
  }

  /** The path of {@code name} in the folder {@code parent}; null if the folder is unknown. */
  synchronized String child(long parent, String name) {
    String folder = path(parent);
    if (folder == null) {
      return null;
    }
    return folder.equals("/") ? "/" + name : folder + "/" + name;
  }

  /**
   * The id of {@code name} in {@code parent}, counting one more lookup of it by the kernel. A file
   * with more than one link ({@code links}) joins the node of its inode {@code ino} if the kernel
   * holds one.
   */
  synchronized long looked(long parent, String name, long ino, long links, boolean folder) {
    Name key = new Name(parent, name);
    Node n = byName.get(key);
    if (n == null) {
      boolean shared = !folder && links > 1 && ino != 0;
      n = shared ? byIno.get(ino) : null;
      if (n == null) {
        n = new Node(nextId++);
        byId.put(n.id, n);
        if (shared) {
          n.ino = ino;
          byIno.put(ino, n);
        }
      }
      n.names.add(0, key);
      byName.put(key, n);
    }
    n.lookups++;
    return n.id;
  }

  /**
   * {@code name} in {@code parent} is a new hard link of the node {@code id} (inode {@code ino}):
   * one more lookup of that node, which every name of the inode shares from now on.
   */
  synchronized long linked(long id, long parent, String name, long ino) {
    Node n = byId.get(id);
    if (n == null) {
      return looked(parent, name, ino, 2, false);
    }
    Name key = new Name(parent, name);
    Node old = byName.put(key, n);
    if (old != null && old != n) {
      old.names.remove(key);
    }
    n.names.remove(key);
    n.names.add(0, key);
    if (n.ino == 0 && ino != 0 && !byIno.containsKey(ino)) {
      n.ino = ino;
      byIno.put(ino, n);
    }
    n.lookups++;
    return n.id;
  }

  /** The kernel forgot {@code count} lookups of {@code id}. */
  synchronized void forget(long id, long count) {
    Node n = byId.get(id);
    if (n == null || id == ROOT) {
      return;
    }
    n.lookups -= count;
    if (n.lookups <= 0) {
      byId.remove(id);
      n.names.forEach(name -> byName.remove(name, n));
      n.names.clear();
      if (n.ino != 0) {
        byIno.remove(n.ino, n);
      }
    }
  }

  /** {@code name} left {@code parent} (unlinked, gone, or replaced by a rename). */
  synchronized void removed(long parent, String name) {
    Name key = new Name(parent, name);
    Node n = byName.remove(key);
    if (n == null) {
      return;
    }
    n.names.remove(key);
    if (n.names.isEmpty() && n.ino != 0) {
      // Its inode number may be given to a new file: it must not join this one.
      byIno.remove(n.ino, n);
    }
  }

  /** {@code name} of {@code parent} is now {@code newName} of {@code newParent}. */
  synchronized void renamed(long parent, String name, long newParent, String newName) {
    removed(newParent, newName);
    Name from = new Name(parent, name);
    Node n = byName.remove(from);
    if (n == null || !byId.containsKey(newParent)) {
      return;
    }
    Name to = new Name(newParent, newName);
    n.names.set(n.names.indexOf(from), to);
    byName.put(to, n);
  }

  /** A name the kernel may hold: its folder's id, the name, and its node's id (0: none known). */
  record Place(long parent, String name, long node) {}

  /**
   * Where the mount's {@code path} is among the names the kernel holds: null when a folder on its
   * way is not held (the kernel holds nothing below it either); the root is (0, "", ROOT).
   */
  synchronized Place find(String path) {
    if (path.equals("/")) {
      return new Place(0, "", ROOT);
    }
    long at = ROOT;
    String[] parts = path.substring(1).split("/", -1);
    for (int i = 0; i < parts.length; i++) {
      Node n = byName.get(new Name(at, parts[i]));
      if (i == parts.length - 1) {
        return new Place(at, parts[i], n == null ? 0 : n.id);
      }
      if (n == null) {
        return null;
      }
      at = n.id;
    }
    return null;
  }

  /** Every name the kernel may hold. */
  synchronized java.util.List<Place> all() {
    java.util.List<Place> all = new ArrayList<>(byName.size());
    byName.forEach((name, node) -> all.add(new Place(name.parent(), name.name(), node.id)));
    return all;
  }

  /** Ids the kernel holds, the root included. */
  synchronized int size() {
    return byId.size();
  }
}
