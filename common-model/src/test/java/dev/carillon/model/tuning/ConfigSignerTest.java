package dev.carillon.model.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.model.tuning.ConfigSigner.Verdict;
import org.junit.jupiter.api.Test;

class ConfigSignerTest {
  private static final String OLD = "old-secret-0123456789-0123456789-0123456789";
  private static final String NEW = "new-secret-abcdefghij-abcdefghij-abcdefghij";
  private final ConfigSigner signer = ConfigSigner.fromSecretFile(OLD + "\n");

  @Test
  void a_signed_record_verifies_and_a_changed_key_or_value_does_not() {
    String sig = signer.sign("retry/report", "{\"policy\":\"IMMEDIATE\"}");
    assertThat(signer.verify("retry/report", "{\"policy\":\"IMMEDIATE\"}", sig))
        .isEqualTo(Verdict.VALID);
    assertThat(signer.verify("retry/other", "{\"policy\":\"IMMEDIATE\"}", sig))
        .isEqualTo(Verdict.INVALID);
    assertThat(signer.verify("retry/report", "{\"policy\":\"NONE\"}", sig))
        .isEqualTo(Verdict.INVALID);
  }

  @Test
  void a_tombstone_is_signed_as_a_tombstone_and_not_as_an_empty_value() {
    String tombstone = signer.sign("retry/report", null);
    assertThat(signer.verify("retry/report", null, tombstone)).isEqualTo(Verdict.VALID);
    assertThat(signer.verify("retry/report", "", tombstone)).isEqualTo(Verdict.INVALID);
  }

  @Test
  void the_framing_keeps_a_key_value_split_from_moving() {
    // Without lengths, "ab" + "c" and "a" + "bc" would sign the same bytes.
    assertThat(signer.verify("a", "bc", signer.sign("ab", "c"))).isEqualTo(Verdict.INVALID);
  }

  @Test
  void missing_malformed_and_foreign_signatures_are_told_apart() {
    assertThat(signer.verify("k", "v", null)).isEqualTo(Verdict.MISSING);
    assertThat(signer.verify("k", "v", "v1=***")).isEqualTo(Verdict.INVALID);
    assertThat(signer.verify("k", "v", "hmac")).isEqualTo(Verdict.INVALID);
    ConfigSigner other = ConfigSigner.fromSecretFile(NEW);
    assertThat(signer.verify("k", "v", other.sign("k", "v"))).isEqualTo(Verdict.INVALID);
  }

  @Test
  void the_first_secret_signs_and_every_secret_verifies_so_secrets_can_be_rolled() {
    ConfigSigner rolled = ConfigSigner.fromSecretFile("# new first\n" + NEW + "\n\n" + OLD + "\n");
    assertThat(rolled.verify("k", "v", signer.sign("k", "v"))).isEqualTo(Verdict.VALID);
    assertThat(rolled.sign("k", "v")).isEqualTo(ConfigSigner.fromSecretFile(NEW).sign("k", "v"));
    assertThat(signer.verify("k", "v", rolled.sign("k", "v"))).isEqualTo(Verdict.INVALID);
  }

  @Test
  void a_short_or_empty_secret_file_is_refused_without_printing_the_secret() {
    assertThatThrownBy(() -> ConfigSigner.fromSecretFile("# only a comment\n\n"))
        .hasMessageContaining("holds no secret");
    assertThatThrownBy(() -> ConfigSigner.fromSecretFile(OLD + "\nshort-one"))
        .hasMessageContaining("line 2")
        .hasMessageContaining("9 bytes")
        .hasMessageNotContaining("short-one");
  }
}
