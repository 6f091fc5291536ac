package dev.carillon.model.instance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.TaskDefinition;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WindowStoryTest {
  private static final Instant AT = Instant.parse("2026-03-29T08:00:00Z");

  @Test
  void each_event_is_a_line_with_its_time_instance_and_plain_words() {
    List<InstanceEvent> events =
        List.of(
            new InstanceEvent(
                1,
                7L,
                "digest",
                "2026-03-29",
                InstanceEvent.Kind.CREATED,
                null,
                InstanceStatus.PENDING,
                0,
                "trigger:a",
                "created for window 2026-03-29 (SCHEDULE)",
                AT),
            new InstanceEvent(
                2,
                7L,
                "digest",
                "2026-03-29",
                InstanceEvent.Kind.TRANSITION,
                InstanceStatus.PENDING,
                InstanceStatus.CANCELLED,
                0,
                "api:alice",
                "not today",
                AT));
    WindowStory story = WindowStory.of("digest", "2026-03-29", events, Optional.empty(), AT);
    assertThat(story.heading()).isEqualTo("Window '2026-03-29' of task 'digest':");
    assertThat(story.lines())
        .containsExactly(
            "2026-03-29T08:00:00Z  #7 created PENDING by trigger:a: created for window 2026-03-29 (SCHEDULE)",
            "2026-03-29T08:00:00Z  #7 cancelled by api:alice (was PENDING): not today");
    assertThat(story.hint()).isEmpty();
  }

  @Test
  void an_empty_story_hints_at_the_window_keys_of_the_task() {
    TaskDefinition daily =
        TaskDefinition.builder("digest")
            .handler("noop")
            .cron("0 0 8 * * ?", ZoneId.of("Europe/Berlin"), WindowKind.DAILY)
            .build();
    WindowStory story = WindowStory.of("digest", "yesterday", List.of(), Optional.of(daily), AT);
    assertThat(story.heading())
        .isEqualTo("Nothing was ever decided about window 'yesterday' of task 'digest'.");
    assertThat(story.hint())
        .contains(
            "its DAILY windows (zone Europe/Berlin) have keys like '2026-03-29' (the window of now).");
  }
}
