package dev.carillon.control.web;

import dev.carillon.store.InstancePosition;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Opaque page cursors: the position after a page's last row, base64url-encoded with a kind and a
 * version, so a client cannot mistake one list's cursor for another's and the format can change
 * later. A cursor carries no filter: pass the same filters with it.
 */
public final class Cursors {
  private static final Pattern INSTANCE =
      Pattern.compile("i1:(-?\\d{1,19}):(\\d{1,9}):(\\d{1,19})");
  private static final Pattern TASK = Pattern.compile("t1:([a-z0-9][a-z0-9._-]{0,63})");

  private Cursors() {}

  /** The cursor after {@code last} in an instance list. */
  public static String instanceCursor(InstancePosition last) {
    return encode(
        "i1:"
            + last.scheduledAt().getEpochSecond()
            + ":"
            + last.scheduledAt().getNano()
            + ":"
            + last.id());
  }

  /**
   * @throws ApiException 400 naming {@code cursor} and the value when it is not an instance cursor
   */
  public static InstancePosition instanceAfter(String cursor) {
    Matcher m = INSTANCE.matcher(decode(cursor));
    if (!m.matches()) {
      throw bad(cursor);
    }
    try {
      return new InstancePosition(
          Instant.ofEpochSecond(Long.parseLong(m.group(1)), Long.parseLong(m.group(2))),
          Long.parseLong(m.group(3)));
    } catch (RuntimeException e) {
      throw bad(cursor);
    }
  }

  /** The cursor after task {@code lastId} in a task list. */
  public static String taskCursor(String lastId) {
    return encode("t1:" + lastId);
  }

  /**
   * @throws ApiException 400 naming {@code cursor} and the value when it is not a task cursor
   */
  public static String taskAfter(String cursor) {
    Matcher m = TASK.matcher(decode(cursor));
    if (!m.matches()) {
      throw bad(cursor);
    }
    return m.group(1);
  }

  private static String encode(String s) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String decode(String cursor) {
    if (cursor.length() > 200) {
      throw bad(cursor.substring(0, 40) + "...");
    }
    try {
      return new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw bad(cursor);
    }
  }

  private static ApiException bad(String cursor) {
    return ApiException.badRequest(
        "cursor", cursor, "is not a cursor of this list: pass nextCursor from the previous page");
  }
}
