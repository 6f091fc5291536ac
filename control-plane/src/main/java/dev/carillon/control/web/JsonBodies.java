package dev.carillon.control.web;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DatabindException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.carillon.client.model.FieldProblem;
import dev.carillon.client.model.WireJson;
import java.io.IOException;
import java.util.List;

/**
 * Reads request bodies into wire records strictly ({@link WireJson#server()}) and turns what
 * Jackson refuses into a 400 that names the field, the value and the position: malformed JSON, an
 * unknown field, a value of the wrong type.
 */
public final class JsonBodies {
  /** The one mapper of the API: strict reading, ISO instants, nulls left out. */
  public static final ObjectMapper JSON = WireJson.server();

  private JsonBodies() {}

  /**
   * @throws ApiException 400 naming the field and value at fault
   */
  public static <T> T read(byte[] body, Class<T> type) {
    try {
      T value = JSON.readValue(body, type);
      if (value == null) {
        throw ApiException.badRequest("body", "null", "must be a JSON object");
      }
      return value;
    } catch (UnrecognizedPropertyException e) {
      String field = path(e);
      throw ApiException.badRequest(
          List.of(
              problem(
                  field,
                  e.getPropertyName(),
                  "is not a field of this request; known fields: " + e.getKnownPropertyIds(),
                  e.getLocation())));
    } catch (InvalidFormatException e) {
      throw ApiException.badRequest(
          List.of(
              problem(
                  path(e),
                  String.valueOf(e.getValue()),
                  "must be " + typeName(e.getTargetType()),
                  e.getLocation())));
    } catch (MismatchedInputException e) {
      String field = path(e);
      throw ApiException.badRequest(
          List.of(
              problem(
                  field.isEmpty() ? "body" : field,
                  valueAt(body, e),
                  field.isEmpty()
                      ? "must be a JSON object"
                      : "must be " + typeName(e.getTargetType()),
                  e.getLocation())));
    } catch (DatabindException e) {
      String field = e instanceof JsonMappingException m ? path(m) : "";
      throw ApiException.badRequest(
          List.of(
              problem(
                  field.isEmpty() ? "body" : field,
                  null,
                  e.getOriginalMessage(),
                  e.getLocation())));
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest(
          List.of(
              problem(
                  "body",
                  excerpt(body),
                  "is not valid JSON: " + e.getOriginalMessage(),
                  e.getLocation())));
    } catch (IOException e) {
      throw ApiException.badRequest("body", null, "cannot be read: " + e.getMessage());
    }
  }

  private static FieldProblem problem(
      String field, String value, String message, JsonLocation where) {
    Integer line = where == null || where.getLineNr() < 1 ? null : where.getLineNr();
    Integer column = where == null || where.getColumnNr() < 1 ? null : where.getColumnNr();
    return new FieldProblem(field, value, message, line, column);
  }

  /** {@code params.x} or {@code tasks[2].timeout}, from Jackson's reference chain. */
  private static String path(JsonMappingException e) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference r : e.getPath()) {
      if (r.getFieldName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.toString();
  }

  /**
   * The value at the exception's path, read again from the body (the parser is closed by the time
   * the exception arrives): text as it is, anything else as JSON.
   */
  private static String valueAt(byte[] body, JsonMappingException e) {
    try {
      JsonNode node = JSON.readTree(body);
      for (JsonMappingException.Reference r : e.getPath()) {
        if (node == null) {
          return null;
        }
        node = r.getFieldName() != null ? node.get(r.getFieldName()) : node.get(r.getIndex());
      }
      if (node == null || node.isMissingNode()) {
        return null;
      }
      String text = node.isTextual() ? node.asText() : node.toString();
      return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    } catch (IOException | RuntimeException ignored) {
      return null;
    }
  }

  private static String typeName(Class<?> type) {
    if (type == null) {
      return "of another type";
    }
    if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
      return "a whole number";
    }
    if (type == Double.class || type == double.class) {
      return "a number";
    }
    if (type == Boolean.class || type == boolean.class) {
      return "true or false";
    }
    if (type == String.class) {
      return "a string";
    }
    if (type == java.time.Instant.class) {
      return "an instant such as 2026-03-29T08:00:00Z";
    }
    if (type.isRecord() || java.util.Map.class.isAssignableFrom(type)) {
      return "a JSON object";
    }
    return "a " + type.getSimpleName();
  }

  private static String excerpt(byte[] body) {
    String s =
        new String(body, 0, Math.min(body.length, 60), java.nio.charset.StandardCharsets.UTF_8);
    return body.length > 60 ? s + "..." : s;
  }
}
