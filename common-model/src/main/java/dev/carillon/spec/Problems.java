package dev.carillon.spec;

import dev.carillon.model.task.Problem;
import dev.carillon.spec.Node.Position;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/** The problems found while reading one value, each with where it was written. Not thread-safe. */
final class Problems {
  /** Values in messages are cut to this many characters. */
  static final int PREVIEW_CHARS = 80;

  /**
   * One problem and its position.
   *
   * @param problem field, value and rule
   * @param at where the value (or, for an unknown key, the key) is written
   */
  record Located(Problem problem, Position at) {}

  private final List<Located> all = new ArrayList<>();

  void add(String field, Position at, Object value, String message) {
    all.add(new Located(new Problem(field, value, message), at));
  }

  /** A problem about {@code node}'s value (or about a value missing from it). */
  void add(String field, Node node, Object value, String message) {
    add(field, node == null ? Position.NONE : node.at(), value, message);
  }

  void add(Problem problem, Node at) {
    all.add(new Located(problem, at == null ? Position.NONE : at.at()));
  }

  /**
   * Problems named by the domain (e.g. {@code after[2]}, {@code schedule.cron}), each placed at the
   * value its field path names under {@code root}, or at the nearest part of that path that exists.
   */
  void addAll(List<Problem> problems, Node root) {
    problems.forEach(p -> add(p, locate(root, p.field())));
  }

  /** The node a field path such as {@code retry.delays[1]} names, or its nearest existing part. */
  static Node locate(Node root, String path) {
    Node at = root;
    for (String segment : path.split("\\.")) {
      int bracket = segment.indexOf('[');
      String name = bracket < 0 ? segment : segment.substring(0, bracket);
      if (!(at instanceof Node.Mapping m) || !m.entries().containsKey(name)) {
        return at;
      }
      at = m.entries().get(name).value();
      while (bracket >= 0) {
        int close = segment.indexOf(']', bracket);
        int index;
        try {
          index = Integer.parseInt(segment.substring(bracket + 1, close));
        } catch (RuntimeException e) {
          return at;
        }
        if (!(at instanceof Node.Sequence s) || index < 0 || index >= s.items().size()) {
          return at;
        }
        at = s.items().get(index);
        bracket = segment.indexOf('[', close);
      }
    }
    return at;
  }

  boolean isEmpty() {
    return all.isEmpty();
  }

  int size() {
    return all.size();
  }

  List<Located> located() {
    return List.copyOf(all);
  }

  List<Problem> problems() {
    return all.stream().map(Located::problem).toList();
  }

  /**
   * The one unknown-key check: every key of {@code mapping} outside {@code known} is a problem at
   * the key, under {@code prefix} (e.g. {@code schedule.}).
   *
   * @param message the rule a key breaks, given the key (see {@link #unknownKey(Set)})
   */
  void unknownKeys(
      Node.Mapping mapping, String prefix, Set<String> known, Function<String, String> message) {
    mapping
        .entries()
        .forEach(
            (key, entry) -> {
              if (!known.contains(key)) {
                add(prefix + key, entry.keyAt(), entry.value().plain(), message.apply(key));
              }
            });
  }

  /** The usual message for an unknown key: {@code unknown key (known: a, b, c)}. */
  static Function<String, String> unknownKey(Set<String> known) {
    String text = "unknown key (known: " + String.join(", ", new TreeSet<>(known)) + ")";
    return key -> text;
  }

  static String abbreviate(String s) {
    return s == null || s.length() <= PREVIEW_CHARS ? s : s.substring(0, PREVIEW_CHARS - 3) + "...";
  }
}
