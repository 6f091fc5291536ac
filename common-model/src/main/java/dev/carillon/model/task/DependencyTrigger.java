package dev.carillon.model.task;

import dev.carillon.model.schedule.WindowKind;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/**
 * A dependency trigger: a window of this task runs once the same window of every upstream
 * succeeded. The window (key, start and end) is copied from the upstreams, so their window kind
 * must equal this task's ({@link TaskGraph} checks that across tasks).
 *
 * @param upstreams the task ids waited for, in order; at least one, none twice
 * @param window the window kind, the upstreams' kind
 * @param zone the zone the task's windows are shown in
 * @throws InvalidTaskException naming {@code after[i]}, {@code schedule.window} or {@code
 *     schedule.zone} and the value
 */
public record DependencyTrigger(List<String> upstreams, WindowKind window, ZoneId zone)
    implements Trigger {
  public DependencyTrigger {
    List<Problem> problems = new ArrayList<>();
    if (TaskRules.required(problems, "after", upstreams)) {
      upstreams = new ArrayList<>(upstreams); // a copy that may hold nulls, checked next
      for (int i = 0; i < upstreams.size(); i++) {
        TaskRules.required(problems, "after[" + i + "]", upstreams.get(i));
      }
      problems.addAll(TaskRules.upstreams(null, upstreams));
    }
    TaskRules.required(problems, "schedule.window", window);
    TaskRules.required(problems, "schedule.zone", zone);
    TaskRules.throwIfAny(null, problems);
    upstreams = List.copyOf(upstreams);
  }

  @Override
  public TriggerKind kind() {
    return TriggerKind.DEPENDENCY;
  }
}
