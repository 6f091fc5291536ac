package dev.carillon.model.task;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The domain's JSON-object check must say what Jackson (which the edges parse with) says: an input
 * one accepts and the other refuses would be a params value that is valid on one side only.
 */
class JsonSyntaxAgreesWithJacksonTest {
  private static final ObjectMapper JACKSON =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  static List<String> texts() {
    return List.of(
        "{}",
        " {} ",
        "\n\t{\r\n}\n",
        "{\"a\":1}",
        "{\"a\":{\"b\":[1,2,{\"c\":null}]},\"d\":[]}",
        "{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00\"}",
        "{\"n\":[0,-0,1.5,-2.25e10,3E-2,4e+3,123456789012345678901234567890]}",
        "{\"t\":true,\"f\":false,\"z\":null}",
        "{\"dup\":1,\"dup\":2}",
        "{\"unicode\":\"日本語 ✓\"}",
        // not objects
        "[1,2]",
        "null",
        "\"x\"",
        "42",
        "true",
        // not JSON
        "{",
        "}",
        "{not json",
        "{\"a\":}",
        "{\"a\" 1}",
        "{\"a\":1,}",
        "{,}",
        "[1,]",
        "{\"a\":01}",
        "{\"a\":1.}",
        "{\"a\":.5}",
        "{\"a\":+1}",
        "{\"a\":1e}",
        "{\"a\":-}",
        "{\"a\":tru}",
        "{\"a\":True}",
        "{\"a\":NaN}",
        "{'a':1}",
        "{a:1}",
        "{\"a\":\"\\x\"}",
        "{\"a\":\"\\u12\"}",
        "{\"a\":\"tab\there\"}",
        "{\"a\":\"unterminated}",
        "{\"a\":1} x",
        "{} {}",
        "{\"a\":[1,2}",
        "{\"a\":{\"b\":1]}",
        "{/* comment */}");
  }

  @ParameterizedTest
  @MethodSource("texts")
  void the_check_accepts_exactly_the_json_objects_jackson_reads(String text) {
    boolean jacksonObject;
    try {
      JsonNode node = JACKSON.readTree(text);
      jacksonObject = node != null && node.isObject();
    } catch (JsonProcessingException e) {
      jacksonObject = false;
    }
    assertThat(JsonSyntax.objectProblem(text).isEmpty()).as(text).isEqualTo(jacksonObject);
  }

  @ParameterizedTest
  @MethodSource("texts")
  void a_refusal_says_whether_the_text_is_json_at_all(String text) {
    JsonNode node;
    try {
      node = JACKSON.readTree(text);
    } catch (JsonProcessingException e) {
      node = null;
    }
    if (node == null) {
      assertThat(JsonSyntax.objectProblem(text))
          .as(text)
          .hasValueSatisfying(
              p -> assertThat(p).startsWith("is not JSON: ").contains(" at offset "));
    } else if (!node.isObject()) {
      assertThat(JsonSyntax.objectProblem(text)).as(text).contains("must be a JSON object");
    }
  }

  @Test
  void nesting_deeper_than_the_limit_is_refused_without_a_stack_overflow() {
    String deep =
        "{\"a\":"
            + "[".repeat(JsonSyntax.MAX_DEPTH + 10)
            + "]".repeat(JsonSyntax.MAX_DEPTH + 10)
            + "}";
    assertThat(JsonSyntax.objectProblem(deep))
        .hasValueSatisfying(p -> assertThat(p).contains("deep"));
    String fine = "{\"a\":" + "[".repeat(100) + "]".repeat(100) + "}";
    assertThat(JsonSyntax.objectProblem(fine)).isEmpty();
  }
}
