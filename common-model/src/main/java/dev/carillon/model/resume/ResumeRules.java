package dev.carillon.model.resume;

import dev.carillon.model.task.JsonSyntax;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The limits on what an agent saves for later attempts: a checkpoint's state, an effect's key and
 * its result. A rule returns what is wrong with a value, or empty; the caller names the field. The
 * plugin API states the same limits as constants ({@code Checkpoint.MAX_STATE_BYTES}, {@code
 * Effect.KEY_PATTERN}, {@code Effect.MAX_RESULT_BYTES}); the domain cannot import that module, so
 * the worker's tests hold the two to each other.
 */
public final class ResumeRules {
  /** The largest checkpoint state, in bytes of UTF-8 (64 KiB). */
  public static final int MAX_CHECKPOINT_BYTES = 65_536;

  /** What an effect key looks like: a short name without spaces. */
  public static final String EFFECT_KEY_PATTERN = "[A-Za-z0-9][A-Za-z0-9._:@/-]{0,127}";

  /** The largest effect result, in bytes of UTF-8. */
  public static final int MAX_EFFECT_RESULT_BYTES = 4096;

  private static final Pattern EFFECT_KEY = Pattern.compile(EFFECT_KEY_PATTERN);

  private ResumeRules() {}

  /**
   * What is wrong with {@code json} as a checkpoint's state: not one JSON object, or larger than
   * {@link #MAX_CHECKPOINT_BYTES}. The size is checked first, so an oversized text is not parsed.
   */
  public static Optional<String> checkpointState(String json) {
    if (json == null) {
      return Optional.of("must be a JSON object, not null");
    }
    int bytes = utf8Length(json);
    if (bytes > MAX_CHECKPOINT_BYTES) {
      return Optional.of(
          "is "
              + bytes
              + " bytes of UTF-8, more than the "
              + MAX_CHECKPOINT_BYTES
              + " a checkpoint holds; keep large state elsewhere and checkpoint a reference to it");
    }
    return JsonSyntax.objectProblem(json);
  }

  /** What is wrong with {@code key} as an effect key. */
  public static Optional<String> effectKey(String key) {
    if (key == null || !EFFECT_KEY.matcher(key).matches()) {
      return Optional.of("must match " + EFFECT_KEY_PATTERN);
    }
    return Optional.empty();
  }

  /** What is wrong with {@code result} as an effect's result; {@code null} is no result, valid. */
  public static Optional<String> effectResult(String result) {
    if (result == null) {
      return Optional.empty();
    }
    int bytes = utf8Length(result);
    return bytes > MAX_EFFECT_RESULT_BYTES
        ? Optional.of(
            "is "
                + bytes
                + " bytes of UTF-8, more than the "
                + MAX_EFFECT_RESULT_BYTES
                + " an effect's result holds")
        : Optional.empty();
  }

  /**
   * Checks a checkpoint's state where it is saved (worker, store, test kit alike).
   *
   * @throws IllegalArgumentException {@code checkpoint state <problem>} when {@link
   *     #checkpointState} finds one
   */
  public static void requireCheckpointState(String json) {
    checkpointState(json)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("checkpoint state " + p);
            });
  }

  /**
   * Checks an effect key where an effect starts.
   *
   * @throws IllegalArgumentException {@code effect key '<key>' <problem>} when {@link #effectKey}
   *     finds one
   */
  public static void requireEffectKey(String key) {
    effectKey(key)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException("effect key '" + key + "' " + p);
            });
  }

  /**
   * The error an agent gets when effect {@code key} was performed but its result broke {@link
   * #effectResult} ({@code problem}): the effect is recorded as done, without its result.
   */
  public static IllegalArgumentException resultTooLarge(String key, String problem) {
    return new IllegalArgumentException(
        "result of effect '"
            + key
            + "' "
            + problem
            + "; the effect is recorded as done without its result");
  }

  /** The UTF-8 length of {@code s}, without encoding it. */
  static int utf8Length(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else {
        // A lone surrogate is encoded as '?' (one byte) by String.getBytes; count it as three, an
        // upper bound, so that the limit is never exceeded.
        n += 3;
      }
    }
    return n;
  }
}
