package dev.carillon.worker.exec;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ExitCodesTest {
  @Test
  void zero_is_success_tempfail_and_crashes_are_retryable_other_sysexits_are_not() {
    assertThat(ExitCodes.of(0)).isEqualTo(ExitCodes.SUCCESS);
    assertThat(ExitCodes.of(75)).isEqualTo(ExitCodes.RETRYABLE);
    for (int code = 64; code <= 78; code++) {
      if (code != 75) {
        assertThat(ExitCodes.of(code)).as("exit %d", code).isEqualTo(ExitCodes.NON_RETRYABLE);
      }
    }
    for (int code : new int[] {1, 2, 3, 63, 79, 126, 127, 137, 143, 255}) {
      assertThat(ExitCodes.of(code)).as("exit %d", code).isEqualTo(ExitCodes.RETRYABLE);
    }
  }

  @Test
  void the_description_names_the_code_and_what_follows() {
    assertThat(ExitCodes.describe(65)).isEqualTo("exit 65 (EX_DATAERR, non-retryable)");
    assertThat(ExitCodes.describe(75)).isEqualTo("exit 75 (EX_TEMPFAIL, retryable)");
    assertThat(ExitCodes.describe(1)).isEqualTo("exit 1 (retryable)");
    assertThat(ExitCodes.describe(137))
        .isEqualTo("exit 137 (killed by signal 9, SIGKILL; retryable)");
  }
}
