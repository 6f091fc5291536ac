package dev.carillon.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DbSettingsTest {
  @Test
  void a_password_parameter_in_the_url_is_masked_wherever_it_stands() {
    assertThat(DbSettings.mask("jdbc:postgresql://db:5432/carillon?password=s3cret&ssl=true"))
        .isEqualTo("jdbc:postgresql://db:5432/carillon?password=****&ssl=true");
    assertThat(DbSettings.mask("jdbc:postgresql://db/c?user=x&PASSWORD=s3cret"))
        .isEqualTo("jdbc:postgresql://db/c?user=x&PASSWORD=****");
    assertThat(DbSettings.mask("jdbc:postgresql://db/c?sslpassword=k3y&password=s3cret"))
        .isEqualTo("jdbc:postgresql://db/c?sslpassword=****&password=****");
  }

  @Test
  void a_password_in_the_user_info_is_masked_and_the_user_kept() {
    assertThat(DbSettings.mask("jdbc:postgresql://alice:s3cret@db:5432/carillon"))
        .isEqualTo("jdbc:postgresql://alice:****@db:5432/carillon");
  }

  @Test
  void a_url_without_a_password_is_unchanged() {
    String url = "jdbc:postgresql://db:5432/carillon?ssl=true&sslmode=verify-full";
    assertThat(DbSettings.mask(url)).isEqualTo(url);
  }

  @Test
  void to_string_and_the_error_for_a_wrong_scheme_never_show_the_password() {
    DbSettings s = new DbSettings("jdbc:postgresql://db/c?password=s3cret", "carillon", "p4ss", 2);
    assertThat(s.toString()).doesNotContain("s3cret").doesNotContain("p4ss").contains("db/c");
    assertThatThrownBy(() -> new DbSettings("jdbc:mysql://db/c?password=s3cret", "u", "", 2))
        .hasMessageContaining("jdbc:mysql://db/c?password=****")
        .hasMessageNotContaining("s3cret");
  }
}
