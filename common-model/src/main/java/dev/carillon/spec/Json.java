package dev.carillon.spec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Writes plain values ({@code Map}, {@code List}, scalars) as compact JSON. Thread-safe. */
final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static String write(Object plain) {
    try {
      return MAPPER.writeValueAsString(plain);
    } catch (JsonProcessingException e) {
      // Plain maps, lists, strings, numbers and booleans always serialize.
      throw new IllegalStateException("cannot write " + plain.getClass() + " as JSON", e);
    }
  }

  /** The JSON text of a node, e.g. {@code "5"} for a string: how a value in JSON input looked. */
  static String of(Node node) {
    return write(node.plain());
  }
}
