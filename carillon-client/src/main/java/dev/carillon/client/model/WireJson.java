package dev.carillon.client.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.carillon.api.Stability;

/**
 * The two ways the wire records are read: strictly by the server (an unknown or duplicated field, a
 * number where text belongs, or a missing primitive is an error) and leniently by clients (fields a
 * newer server adds are ignored). Both write instants as ISO-8601 text and leave out null fields.
 */
@Stability.Evolving
public final class WireJson {
  private WireJson() {}

  /** For servers: refuses what a request may not contain. */
  public static ObjectMapper server() {
    return base()
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .enable(com.fasterxml.jackson.core.JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
        .disable(com.fasterxml.jackson.databind.MapperFeature.ALLOW_COERCION_OF_SCALARS)
        .build();
  }

  /** For clients: tolerates fields a newer server adds. */
  public static ObjectMapper client() {
    return base().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();
  }

  private static JsonMapper.Builder base() {
    return JsonMapper.builder()
        .addModule(new JavaTimeModule())
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
        .serializationInclusion(JsonInclude.Include.NON_NULL);
  }
}
