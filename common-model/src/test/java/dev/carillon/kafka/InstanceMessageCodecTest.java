package dev.carillon.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class InstanceMessageCodecTest {
  private static final Instant AT = Instant.parse("2026-03-29T08:00:00.123Z");

  @Test
  void encodes_the_documented_compact_json() {
    InstanceMessage m = InstanceMessage.of(123, "daily-digest", "2026-03-29", AT);

    assertThat(new String(InstanceMessageCodec.encode(m), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"v\":1,\"id\":123,\"task\":\"daily-digest\",\"window\":\"2026-03-29\",\"at\":\"2026-03-29T08:00:00.123Z\"}");
  }

  @Test
  void decode_reverses_encode() {
    InstanceMessage m = InstanceMessage.of(Long.MAX_VALUE, "t.a_b-c", "2026-W13", AT);

    assertThat(InstanceMessageCodec.decode(InstanceMessageCodec.encode(m))).isEqualTo(m);
  }

  @Test
  void unknown_extra_fields_are_ignored() {
    InstanceMessage m =
        decode(
            "{\"v\":1,\"id\":7,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\",\"trace\":\"x\"}");

    assertThat(m.instanceId()).isEqualTo(7);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "not json at all                                                                         | not JSON",
        "''                                                                                      | expected a JSON object",
        "[1,2]                                                                                   | expected a JSON object",
        "\"text\"                                                                                | expected a JSON object",
        "{\"id\":7,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}              | missing field \"v\"",
        "{\"v\":1,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}               | missing field \"id\"",
        "{\"v\":1,\"id\":7,\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}                     | missing field \"task\"",
        "{\"v\":1,\"id\":7,\"task\":\"t\",\"at\":\"2026-03-29T08:00:00Z\"}                       | missing field \"window\"",
        "{\"v\":1,\"id\":7,\"task\":\"t\",\"window\":\"w\"}                                      | missing field \"at\"",
        "{\"v\":2,\"id\":7,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}      | field \"v\" is 2",
        "{\"v\":0,\"id\":7,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}      | field \"v\" is 0",
        "{\"v\":\"1\",\"id\":7,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}  | field \"v\" must be an integer",
        "{\"v\":1,\"id\":0,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}      | field \"id\" must be positive, was 0",
        "{\"v\":1,\"id\":-3,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}     | field \"id\" must be positive, was -3",
        "{\"v\":1,\"id\":1.5,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}    | field \"id\" must be an integer, was 1.5",
        "{\"v\":1,\"id\":99999999999999999999,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"} | field \"id\" must be an integer",
        "{\"v\":1,\"id\":7,\"task\":3,\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}          | field \"task\" must be a string, was 3",
        "{\"v\":1,\"id\":7,\"task\":\" \",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"}      | field \"task\" must not be blank",
        "{\"v\":1,\"id\":7,\"task\":\"t\",\"window\":null,\"at\":\"2026-03-29T08:00:00Z\"}       | missing field \"window\"",
        "{\"v\":1,\"id\":7,\"task\":\"t\",\"window\":\"w\",\"at\":\"yesterday\"}                 | field \"at\" must be an ISO-8601 instant such as 2026-03-29T08:00:00Z, was \"yesterday\"",
        "{\"v\":1,\"id\":7,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00\"}       | was \"2026-03-29T08:00:00\"",
        "{\"v\":1,\"id\":7,\"id\":8,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"} | not JSON",
        "{\"v\":1,\"id\":7,\"task\":\"t\",\"window\":\"w\",\"at\":\"2026-03-29T08:00:00Z\"} junk | not JSON",
      })
  void malformed_values_are_refused_with_a_reason_naming_the_field(String json, String reason) {
    assertThatThrownBy(() -> decode(json))
        .isInstanceOf(MalformedMessageException.class)
        .isInstanceOf(dev.carillon.model.CarillonException.class)
        .satisfies(e -> assertThat(((MalformedMessageException) e).reason()).contains(reason));
  }

  @Test
  void a_tombstone_is_malformed() {
    assertThatThrownBy(() -> InstanceMessageCodec.decode(null))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessageContaining("tombstone");
  }

  @Test
  void invalid_utf8_is_malformed_not_a_crash() {
    byte[] bytes = {'{', '"', 'v', '"', ':', (byte) 0xC3, (byte) 0x28, '}'};

    assertThatThrownBy(() -> InstanceMessageCodec.decode(bytes))
        .isInstanceOf(MalformedMessageException.class);
  }

  @Test
  void preview_of_a_huge_payload_is_truncated() {
    byte[] big = "x".repeat(10_000).getBytes(StandardCharsets.UTF_8);

    assertThat(InstanceMessageCodec.preview(big)).hasSizeLessThan(300).endsWith("(10000 bytes)");
  }

  @Test
  void the_record_refuses_values_the_codec_would_refuse() {
    assertThatThrownBy(() -> InstanceMessage.of(0, "t", "w", AT))
        .hasMessageContaining("instanceId must be positive, was 0");
    assertThatThrownBy(() -> InstanceMessage.of(1, "", "w", AT)).hasMessageContaining("taskId");
  }

  private static InstanceMessage decode(String json) {
    return InstanceMessageCodec.decode(json.getBytes(StandardCharsets.UTF_8));
  }
}
