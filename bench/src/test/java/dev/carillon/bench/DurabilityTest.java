package dev.carillon.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import org.junit.jupiter.api.Test;

/** {@code --durable}: the server really runs with both settings on; the default with both off. */
class DurabilityTest {
  @Test
  void the_default_stack_runs_without_durability_and_says_so() throws Exception {
    DevStack stack = DevStack.shared();
    Durability.check(stack, false);
    assertThat(Durability.describe(stack))
        .startsWith("synchronous_commit=off, full_page_writes=off, max_connections=");
    assertThatThrownBy(() -> Durability.check(stack, true))
        .hasMessage(
            "PostgreSQL runs with synchronous_commit=off, full_page_writes=off, but the bench asked"
                + " for synchronous_commit=on, full_page_writes=on");
  }

  @Test
  void a_durable_stack_runs_with_both_settings_on() throws Exception {
    try (DevStack stack = DevStack.start(DevStackOptions.defaults().withDurablePostgres(true))) {
      Durability.check(stack, true);
      assertThat(Durability.describe(stack))
          .startsWith("synchronous_commit=on, full_page_writes=on, max_connections=200");
    }
  }
}
