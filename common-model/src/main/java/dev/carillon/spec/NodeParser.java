package dev.carillon.spec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.carillon.spec.Node.Position;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Turns YAML or JSON text into a {@link Node} tree with positions, through Jackson's streaming
 * parser. Duplicate keys and a second value (a second YAML document, text after the JSON) are
 * refused: half-read input must not become a definition. Thread-safe.
 */
final class NodeParser {
  /**
   * The longest text and the longest single string parsed. SnakeYAML's scanner is quadratic in the
   * length of one scalar, so the callers refuse larger texts before they get here.
   */
  static final int MAX_TEXT_CHARS = 2 * 1024 * 1024;

  private static final JsonFactory YAML = yamlFactory();
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .streamReadConstraints(limits())
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .disable(JsonReadFeature.ALLOW_JAVA_COMMENTS)
          .build();

  private NodeParser() {}

  /**
   * Text that is not YAML or JSON (or has a duplicate key, or a second value).
   *
   * @param message what the parser found, without Jackson's appended source excerpt
   * @param at where, or {@link Position#NONE}
   */
  record SyntaxError(String message, Position at) {}

  /** The outcome: a tree (empty for empty text), or the syntax error. */
  record Parsed(Optional<Node> root, Optional<SyntaxError> error) {}

  static Parsed parse(String text, Format format) {
    try (JsonParser p = (format == Format.JSON ? JSON : YAML).createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        return new Parsed(Optional.empty(), Optional.empty());
      }
      Node root = read(p, first);
      JsonToken more = p.nextToken();
      if (more != null) {
        return failed(
            (format == Format.YAML
                    ? "a second document or more text after the first value"
                    : "text after the end of the value")
                + " (found "
                + describe(more)
                + ")",
            position(p.currentTokenLocation()));
      }
      return new Parsed(Optional.of(root), Optional.empty());
    } catch (JsonProcessingException e) {
      return failed(message(e), position(e.getLocation()));
    } catch (IOException e) {
      // Reading a String does no IO; SnakeYAML's own errors arrive as JsonProcessingException.
      return failed(e.toString(), Position.NONE);
    }
  }

  /**
   * The parser's own words, without the source excerpts SnakeYAML and Jackson append (the position
   * is reported separately).
   */
  private static String message(JsonProcessingException e) {
    if (e.getCause() instanceof MarkedYAMLException y) {
      return (y.getContext() == null ? "" : y.getContext() + ": ") + y.getProblem();
    }
    String m = e.getOriginalMessage();
    return m == null ? e.toString() : m.strip().replace('\n', ' ');
  }

  private static Parsed failed(String message, Position at) {
    return new Parsed(Optional.empty(), Optional.of(new SyntaxError(message, at)));
  }

  private static Node read(JsonParser p, JsonToken t) throws IOException {
    Position at = position(p.currentTokenLocation());
    switch (t) {
      case START_OBJECT -> {
        Map<String, Node.Entry> entries = new LinkedHashMap<>();
        for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
          String name = p.currentName();
          Position keyAt = position(p.currentTokenLocation());
          entries.put(name, new Node.Entry(keyAt, read(p, p.nextToken())));
        }
        return new Node.Mapping(entries, at);
      }
      case START_ARRAY -> {
        List<Node> items = new ArrayList<>();
        for (JsonToken i = p.nextToken(); i != JsonToken.END_ARRAY; i = p.nextToken()) {
          items.add(read(p, i));
        }
        return new Node.Sequence(items, at);
      }
      case VALUE_STRING -> {
        return new Node.Scalar(p.getText(), at);
      }
      case VALUE_NUMBER_INT -> {
        return new Node.Scalar(p.getNumberValue(), at);
      }
      case VALUE_NUMBER_FLOAT -> {
        // As Jackson's tree model reads it by default, so params keep their canonical JSON.
        return new Node.Scalar(p.getDoubleValue(), at);
      }
      case VALUE_TRUE, VALUE_FALSE -> {
        return new Node.Scalar(t == JsonToken.VALUE_TRUE, at);
      }
      case VALUE_NULL -> {
        return new Node.Scalar(null, at);
      }
      default -> {
        // VALUE_EMBEDDED_OBJECT: a YAML !!binary scalar and the like; kept as its text.
        return new Node.Scalar(p.getText(), at);
      }
    }
  }

  private static Position position(JsonLocation loc) {
    return loc == null || loc.getLineNr() < 1
        ? Position.NONE
        : new Position(loc.getLineNr(), Math.max(1, loc.getColumnNr()));
  }

  private static String describe(JsonToken t) {
    return switch (t) {
      case START_OBJECT -> "a mapping";
      case START_ARRAY -> "a list";
      default -> "a value";
    };
  }

  private static StreamReadConstraints limits() {
    return StreamReadConstraints.builder().maxStringLength(MAX_TEXT_CHARS).build();
  }

  private static JsonFactory yamlFactory() {
    LoaderOptions loader = new LoaderOptions();
    // SnakeYAML stops at 3 MB by default; let texts up to the callers' cap through to the
    // per-field rules, which name the task and field (a large params blob is "params is larger
    // than 64 KiB", not a parse error).
    loader.setCodePointLimit(MAX_TEXT_CHARS);
    return YAMLFactory.builder()
        .loaderOptions(loader)
        .streamReadConstraints(limits())
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build();
  }
}
