package io.strata.fuse;

import java.util.HashMap;
import java.util.Map;

/**
 * The kernel's node ids and the names they stand for. The kernel names a file by the id a LOOKUP
 * (or a create) answered, and holds it until it FORGETs as many lookups as it was given; a node
 * knows its folder and name, so a rename of a folder moves everything below it at once. Ids are
 * never reused while the mount lasts (generation 0 for all). Thread-safe: every method holds the
 * table's lock, for a few map operations.
 */
final class Nodes {
  static final long ROOT = 1;

  /** One id the kernel holds. */
  private static final class Node {
    final long id;
    Node parent;
    String name;
    long lookups;

    /** No name leads to it any more: what it was is gone, though the kernel still holds it. */
    boolean unlinked;

    Node(long id, Node parent, String name) {
      this.id = id;
      this.parent = parent;
      this.name = name;
    }
  }

  private record Name(long parent, String name) {}

  private final Map<Long, Node> byId = new HashMap<>();
  private final Map<Name, Node> byName = new HashMap<>();
  private long nextId = ROOT + 1;

  Nodes() {
    byId.put(ROOT, new Node(ROOT, null, ""));
  }

  /**
   * The mount's path of {@code id} ("/" for the root); null if the kernel holds no such id or no
   * name leads to it any more.
   */
  synchronized String path(long id) {
    Node n = byId.get(id);
    if (n == null) {
      return null;
    }
    if (n.id == ROOT) {
      return "/";
    }
    StringBuilder path = new StringBuilder();
    for (Node at = n; at.id != ROOT; at = at.parent) {
      if (at.unlinked) {
        return null;
      }
      path.insert(0, at.name).insert(0, '/');
    }
    return path.toString();
  }

  /** The path of {@code name} in the folder {@code parent}; null if the folder is unknown. */
  synchronized String child(long parent, String name) {
    String folder = path(parent);
    if (folder == null) {
      return null;
    }
    return folder.equals("/") ? "/" + name : folder + "/" + name;
  }

  /** The id of {@code name} in {@code parent}, counting one more lookup of it by the kernel. */
  synchronized long looked(long parent, String name) {
    Name key = new Name(parent, name);
    Node n = byName.get(key);
    if (n == null) {
      n = new Node(nextId++, byId.get(parent), name);
      byId.put(n.id, n);
      byName.put(key, n);
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
      if (n.parent != null) {
        byName.remove(new Name(n.parent.id, n.name), n);
      }
    }
  }

  /** {@code name} left {@code parent} (unlinked, or replaced by a rename). */
  synchronized void removed(long parent, String name) {
    unlink(new Name(parent, name));
  }

  private void unlink(Name key) {
    Node n = byName.remove(key);
    if (n != null) {
      n.unlinked = true;
    }
  }

  /** {@code name} of {@code parent} is now {@code newName} of {@code newParent}. */
  synchronized void renamed(long parent, String name, long newParent, String newName) {
    Node n = byName.remove(new Name(parent, name));
    unlink(new Name(newParent, newName));
    Node folder = byId.get(newParent);
    if (n == null || folder == null) {
      return;
    }
    n.parent = folder;
    n.name = newName;
    byName.put(new Name(newParent, newName), n);
  }

  /** Ids the kernel holds, the root included. */
  synchronized int size() {
    return byId.size();
  }
}
