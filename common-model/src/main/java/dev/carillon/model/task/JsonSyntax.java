package dev.carillon.model.task;

import java.util.Optional;

/**
 * Checks that a text is exactly one JSON object (RFC 8259), without building it.
 *
 * <p>The domain keeps its own rule that params are a JSON object, rather than trusting every edge
 * that builds a definition (the spec reader, the store's rows, code) to have checked: a definition
 * is valid by construction, whoever constructs it. A parser library would pull IO-shaped
 * dependencies into the pure core, and the domain needs only a yes or no, so this is a recognizer
 * of about a hundred lines: no tree, no numbers converted, nothing allocated but the nesting stack.
 * The edges still parse with Jackson where they need the values or their line and column; {@code
 * JsonSyntaxAgreesWithJacksonTest} keeps the two in step.
 *
 * <p>Stricter than Jackson's defaults in one way: text after the object is refused, as a half-read
 * input must not become a value.
 */
public final class JsonSyntax {
  /** Deeper nesting is refused, like Jackson's default read constraint. */
  static final int MAX_DEPTH = 1000;

  private final String text;
  private int at;

  private JsonSyntax(String text) {
    this.text = text;
  }

  /**
   * What is wrong with {@code text} as one JSON object, or empty when it is one.
   *
   * @return "must be a JSON object" for other JSON values and blank text, or "is not JSON: ..."
   *     naming the offset of the first error
   */
  public static Optional<String> objectProblem(String text) {
    JsonSyntax s = new JsonSyntax(text);
    s.skipSpace();
    if (s.at == text.length()) {
      return Optional.of("must be a JSON object");
    }
    boolean object = s.peek() == '{';
    try {
      s.value();
      s.skipSpace();
      if (s.at != text.length()) {
        throw s.error("text after the end of the value");
      }
    } catch (Malformed e) {
      return Optional.of("is not JSON: " + e.getMessage());
    }
    return object ? Optional.empty() : Optional.of("must be a JSON object");
  }

  /** Reads one value iteratively; {@code open} holds the kinds of the containers not yet closed. */
  private void value() {
    char[] open = new char[MAX_DEPTH];
    int depth = 0;
    while (true) {
      skipSpace();
      char c = peek();
      if (c == '{' || c == '[') {
        if (depth == MAX_DEPTH) {
          throw error("nested more than " + MAX_DEPTH + " levels deep");
        }
        open[depth++] = c;
        at++;
        skipSpace();
        if (peek() == (c == '{' ? '}' : ']')) {
          at++;
          depth--;
        } else {
          if (c == '{') {
            key();
          }
          continue;
        }
      } else {
        scalar(c);
      }
      // After a value: close containers, or move to the next element.
      while (true) {
        if (depth == 0) {
          return;
        }
        skipSpace();
        char kind = open[depth - 1];
        char next = peek();
        if (next == ',') {
          at++;
          if (kind == '{') {
            skipSpace();
            key();
          }
          break;
        }
        if (next == (kind == '{' ? '}' : ']')) {
          at++;
          depth--;
          continue;
        }
        throw error("expected ',' or '" + (kind == '{' ? '}' : ']') + "'");
      }
    }
  }

  private void key() {
    if (peek() != '"') {
      throw error("expected a field name in double quotes");
    }
    string();
    skipSpace();
    if (peek() != ':') {
      throw error("expected ':' after a field name");
    }
    at++;
  }

  private void scalar(char c) {
    switch (c) {
      case '"' -> string();
      case 't' -> literal("true");
      case 'f' -> literal("false");
      case 'n' -> literal("null");
      default -> {
        if (c == '-' || (c >= '0' && c <= '9')) {
          number();
        } else {
          throw error(c == 0 && at >= text.length() ? "unexpected end" : "unexpected character");
        }
      }
    }
  }

  private void literal(String word) {
    if (!text.startsWith(word, at)) {
      throw error("unexpected character");
    }
    at += word.length();
  }

  private void string() {
    at++; // the opening quote
    while (at < text.length()) {
      char c = text.charAt(at++);
      if (c == '"') {
        return;
      }
      if (c < 0x20) {
        throw error("control character in a string");
      }
      if (c == '\\') {
        char e = at < text.length() ? text.charAt(at++) : 0;
        if (e == 'u') {
          for (int i = 0; i < 4; i++) {
            if (at >= text.length() || Character.digit(text.charAt(at++), 16) < 0) {
              throw error("bad \\u escape");
            }
          }
        } else if ("\"\\/bfnrt".indexOf(e) < 0 || e == 0) {
          throw error("bad escape");
        }
      }
    }
    throw error("unterminated string");
  }

  private void number() {
    if (peek() == '-') {
      at++;
    }
    if (peek() == '0') {
      at++;
    } else if (!digits()) {
      throw error("bad number");
    }
    if (peek() == '.') {
      at++;
      if (!digits()) {
        throw error("bad number");
      }
    }
    if (peek() == 'e' || peek() == 'E') {
      at++;
      if (peek() == '+' || peek() == '-') {
        at++;
      }
      if (!digits()) {
        throw error("bad number");
      }
    }
  }

  private boolean digits() {
    int start = at;
    while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
      at++;
    }
    return at > start;
  }

  private void skipSpace() {
    while (at < text.length()) {
      char c = text.charAt(at);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      at++;
    }
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : 0;
  }

  private Malformed error(String what) {
    return new Malformed(what + " at offset " + Math.min(at, text.length()));
  }

  /** Control flow inside the recognizer only; never escapes {@link #objectProblem}. */
  private static final class Malformed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message, null, false, false);
    }
  }
}
