package dev.carillon.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProtocolTest {
  @Test
  void a_line_without_the_prefix_is_the_agents_own_output() {
    assertThat(Protocol.parse("hello")).isInstanceOf(ProtocolLine.Plain.class);
    assertThat(Protocol.parse("{\"type\":\"progress\",\"message\":\"x\"}"))
        .isInstanceOf(ProtocolLine.Plain.class);
    assertThat(Protocol.parse("@carillon{\"type\":\"progress\"}"))
        .isInstanceOf(ProtocolLine.Plain.class);
  }

  @Test
  void progress_and_result_lines_are_read() {
    assertThat(Protocol.parse("@carillon {\"type\":\"progress\",\"message\":\"3 of 10\"}"))
        .isEqualTo(new ProtocolLine.Progress("3 of 10"));
    assertThat(
            Protocol.parse(
                "@carillon {\"v\":1,\"type\":\"result\",\"summary\":\"ok\",\"uri\":\"s3://b/k\"}"))
        .isEqualTo(new ProtocolLine.Result("ok", "s3://b/k"));
    assertThat(Protocol.parse("@carillon {\"type\":\"result\"}"))
        .isEqualTo(new ProtocolLine.Result("", null));
  }

  @Test
  void unknown_types_and_newer_versions_are_ignored_as_unknown_not_as_errors() {
    assertThat(Protocol.parse("@carillon {\"type\":\"telemetry\",\"cpu\":3}"))
        .isEqualTo(new ProtocolLine.Unknown("telemetry"));
    assertThat(Protocol.parse("@carillon {\"v\":3,\"type\":\"progress\",\"message\":\"x\"}"))
        .isEqualTo(new ProtocolLine.Unknown("v3"));
  }

  @Test
  void checkpoint_and_effect_lines_are_read() {
    assertThat(Protocol.parse("@carillon {\"v\":2,\"type\":\"checkpoint\",\"state\":{\"next\":3}}"))
        .isEqualTo(new ProtocolLine.Checkpoint("{\"next\":3}"));
    assertThat(
            Protocol.parse("@carillon {\"type\":\"effect\",\"key\":\"post\",\"phase\":\"start\"}"))
        .isEqualTo(new ProtocolLine.Effect("post", true, null));
    assertThat(
            Protocol.parse(
                "@carillon {\"type\":\"effect\",\"key\":\"post\",\"result\":\"msg-17\"}"))
        .isEqualTo(new ProtocolLine.Effect("post", false, "msg-17"));
    assertThat(
            Protocol.parse(
                "@carillon {\"type\":\"effect\",\"key\":\"post\",\"phase\":\"done\",\"result\":null}"))
        .isEqualTo(new ProtocolLine.Effect("post", false, null));
  }

  @Test
  void malformed_checkpoint_and_effect_lines_say_what_is_wrong() {
    assertThat(Protocol.parse("@carillon {\"type\":\"checkpoint\",\"state\":[1]}"))
        .isEqualTo(
            new ProtocolLine.Malformed("a checkpoint line needs \"state\" as a JSON object"));
    assertThat(Protocol.parse("@carillon {\"type\":\"checkpoint\"}"))
        .isInstanceOf(ProtocolLine.Malformed.class);
    assertThat(Protocol.parse("@carillon {\"type\":\"effect\",\"result\":\"x\"}"))
        .isEqualTo(new ProtocolLine.Malformed("an effect line needs \"key\" as text"));
    assertThat(
            Protocol.parse("@carillon {\"type\":\"effect\",\"key\":\"post\",\"phase\":\"begin\"}"))
        .isEqualTo(
            new ProtocolLine.Malformed("an effect's \"phase\" must be \"start\" or \"done\""));
    assertThat(Protocol.parse("@carillon {\"type\":\"effect\",\"key\":\"post\",\"result\":7}"))
        .isEqualTo(new ProtocolLine.Malformed("an effect's \"result\" must be text"));
  }

  @Test
  void malformed_lines_say_what_is_wrong() {
    assertThat(Protocol.parse("@carillon not json"))
        .isInstanceOf(ProtocolLine.Malformed.class)
        .extracting(l -> ((ProtocolLine.Malformed) l).problem())
        .asString()
        .startsWith("not a JSON object");
    assertThat(Protocol.parse("@carillon [1,2]"))
        .isEqualTo(new ProtocolLine.Malformed("not a JSON object"));
    assertThat(Protocol.parse("@carillon {\"message\":\"x\"}"))
        .isEqualTo(new ProtocolLine.Malformed("no \"type\""));
    assertThat(Protocol.parse("@carillon {\"type\":\"progress\",\"message\":3}"))
        .isEqualTo(new ProtocolLine.Malformed("a progress line needs \"message\" as text"));
    assertThat(Protocol.parse("@carillon {\"type\":\"result\",\"summary\":[1]}"))
        .isEqualTo(new ProtocolLine.Malformed("a result's \"summary\" must be text"));
    assertThat(Protocol.parse("@carillon {\"v\":0,\"type\":\"progress\",\"message\":\"x\"}"))
        .isEqualTo(new ProtocolLine.Malformed("\"v\" must be a whole number from 1"));
  }
}
