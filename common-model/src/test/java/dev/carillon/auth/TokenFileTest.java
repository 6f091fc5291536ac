package dev.carillon.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TokenFileTest {
  @Test
  void minted_tokens_are_random_prefixed_and_found_by_their_hash_only() {
    String alice = Tokens.mint();
    String bob = Tokens.mint();
    assertThat(alice).startsWith("crl_").hasSize(4 + 43).isNotEqualTo(bob);
    String file =
        "# principal role hash\n\n"
            + TokenFile.line(new Principal("alice", Role.OPERATOR), alice)
            + "\n"
            + TokenFile.line(new Principal("ci.bot@example", Role.VIEWER), bob)
            + "\n";
    assertThat(file).doesNotContain(alice).doesNotContain(bob);
    TokenFile tokens = TokenFile.parse(file, "tokens");
    assertThat(tokens.size()).isEqualTo(2);
    assertThat(tokens.lookup(alice)).contains(new Principal("alice", Role.OPERATOR));
    assertThat(tokens.lookup(bob)).contains(new Principal("ci.bot@example", Role.VIEWER));
    assertThat(tokens.lookup(Tokens.mint())).isEmpty();
    assertThat(tokens.lookup("")).isEmpty();
    assertThat(tokens.lookup(null)).isEmpty();
  }

  @Test
  void the_hash_is_sha256_of_the_token_text() {
    assertThat(Tokens.hash("test"))
        .isEqualTo("sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08");
  }

  @Test
  void every_bad_line_is_named_with_its_number_and_no_secret_is_repeated() {
    String token = Tokens.mint();
    String text =
        "alice operator\n"
            + "bob superuser "
            + Tokens.hash("x")
            + "\n"
            + "carol admin "
            + token
            + "\n"
            + "dave viewer "
            + Tokens.hash("y")
            + "\n"
            + "erin viewer "
            + Tokens.hash("y")
            + "\n"
            + "f/g viewer "
            + Tokens.hash("z")
            + "\n";
    assertThatThrownBy(() -> TokenFile.parse(text, "/run/secrets/tokens"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "/run/secrets/tokens line 1: expected '<principal> <role> sha256:<hex>'")
        .hasMessageContaining("line 2: role 'superuser' must be one of viewer, operator, admin")
        .hasMessageContaining("line 3: the token hash must be sha256:")
        .hasMessageContaining("line 5: the same token hash appears on an earlier line")
        .hasMessageContaining("line 6: principal 'f/g' must match")
        .hasMessageNotContaining(token);
  }

  @Test
  void roles_include_the_ones_below() {
    assertThat(Role.ADMIN.allows(Role.OPERATOR)).isTrue();
    assertThat(Role.OPERATOR.allows(Role.VIEWER)).isTrue();
    assertThat(Role.VIEWER.allows(Role.OPERATOR)).isFalse();
    assertThat(Role.OPERATOR.allows(Role.ADMIN)).isFalse();
    assertThat(Role.parse("Operator")).isEqualTo(Role.OPERATOR);
    assertThat(new Principal("alice", Role.ADMIN).actor()).isEqualTo("api:alice");
  }
}
