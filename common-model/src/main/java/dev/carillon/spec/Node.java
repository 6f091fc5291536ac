package dev.carillon.spec;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A YAML or JSON value as read, with the line and column it was written at: Jackson's tree model
 * drops token locations, and every problem the reader reports points at its value.
 */
sealed interface Node permits Node.Mapping, Node.Sequence, Node.Scalar {

  /** Where the value starts; {@link Position#NONE} when it was not read from text. */
  Position at();

  /** The value as plain Java: {@code Map}, {@code List}, {@code String}, a number, a boolean. */
  Object plain();

  /**
   * A 1-based line and column, or {@link #NONE}.
   *
   * @param line the line, from 1; 0 when unknown
   * @param column the column, from 1; 0 when unknown
   */
  record Position(int line, int column) {
    static final Position NONE = new Position(0, 0);

    boolean known() {
      return line > 0;
    }
  }

  /**
   * One key of a mapping.
   *
   * @param keyAt where the key is written (unknown keys are reported here)
   * @param value the value
   */
  record Entry(Position keyAt, Node value) {}

  /** A mapping; keys in the order written. */
  record Mapping(Map<String, Entry> entries, Position at) implements Node {
    public Mapping {
      entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    }

    /** The value of {@code key}, or null when absent or written as null. */
    Node get(String key) {
      Entry e = entries.get(key);
      return e == null || e.value().isNull() ? null : e.value();
    }

    @Override
    public Object plain() {
      Map<String, Object> out = new LinkedHashMap<>();
      entries.forEach((k, e) -> out.put(k, e.value().plain()));
      return out;
    }
  }

  /** A list. */
  record Sequence(List<Node> items, Position at) implements Node {
    public Sequence {
      items = List.copyOf(items);
    }

    @Override
    public Object plain() {
      List<Object> out = new ArrayList<>(items.size());
      items.forEach(i -> out.add(i.plain()));
      return out;
    }
  }

  /**
   * A single value.
   *
   * @param value a {@code String}, {@code Boolean}, {@code Integer}, {@code Long}, {@code
   *     BigInteger}, {@code Double} or {@code BigDecimal}; null for a null
   */
  record Scalar(Object value, Position at) implements Node {
    /** The value as text, as a user reads it ({@code 300}, {@code true}); null for a null. */
    String text() {
      return value == null ? null : String.valueOf(value);
    }

    @Override
    public Object plain() {
      return value;
    }
  }

  /** Whether this is a null scalar. */
  default boolean isNull() {
    return this instanceof Scalar s && s.value() == null;
  }

  /** What the value is, for a message: {@code a list}, {@code a mapping} or the quoted value. */
  default String describe() {
    if (this instanceof Sequence) {
      return "a list";
    }
    if (this instanceof Mapping) {
      return "a mapping";
    }
    return "'" + Problems.abbreviate(String.valueOf(plain())) + "'";
  }

  /**
   * A plain value as a node without positions, so that values built in code (tests, defaults) are
   * read by the same code as text.
   */
  static Node of(Object plain) {
    if (plain instanceof Map<?, ?> m) {
      Map<String, Entry> entries = new LinkedHashMap<>();
      m.forEach((k, v) -> entries.put(String.valueOf(k), new Entry(Position.NONE, of(v))));
      return new Mapping(entries, Position.NONE);
    }
    if (plain instanceof List<?> l) {
      return new Sequence(l.stream().map(Node::of).toList(), Position.NONE);
    }
    return new Scalar(plain, Position.NONE);
  }
}
