package dev.carillon.worker.exec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Reading a child's output within bounds. Stateless helpers; each call owns its stream. */
final class Streams {
  private Streams() {}

  /** How a stdout read went, for the log. */
  record LinesRead(long lines, long cutLines, long unreadBytes) {}

  /**
   * Reads {@code in} to its end, handing each line (UTF-8, without its line end, at most {@code
   * maxLineBytes} bytes: longer lines are cut there and flagged) to {@code line}. After {@code
   * maxBytes} bytes the rest is drained unread, so that the child never blocks on a full pipe.
   */
  static LinesRead lines(InputStream in, int maxLineBytes, long maxBytes, LineConsumer line)
      throws IOException {
    byte[] buf = new byte[8192];
    byte[] current = new byte[maxLineBytes];
    int len = 0;
    boolean cut = false;
    long total = 0;
    long lines = 0;
    long cutLines = 0;
    long unread = 0;
    int n;
    while ((n = in.read(buf)) > 0) {
      for (int i = 0; i < n; i++) {
        if (total >= maxBytes) {
          unread += n - i;
          break;
        }
        total++;
        byte b = buf[i];
        if (b == '\n') {
          lines++;
          if (cut) {
            cutLines++;
          }
          line.accept(text(current, len), cut);
          len = 0;
          cut = false;
        } else if (len < maxLineBytes) {
          current[len++] = b;
        } else {
          cut = true;
        }
      }
    }
    if (len > 0 && unread == 0) {
      lines++;
      if (cut) {
        cutLines++;
      }
      line.accept(text(current, len), cut);
    }
    return new LinesRead(lines, cutLines, unread);
  }

  /** Reads {@code in} to its end and returns its last {@code tailBytes} bytes as text. */
  static String tail(InputStream in, int tailBytes) throws IOException {
    byte[] ring = new byte[tailBytes];
    long total = 0;
    byte[] buf = new byte[4096];
    int n;
    while ((n = in.read(buf)) > 0) {
      for (int i = 0; i < n; i++) {
        ring[(int) (total++ % tailBytes)] = buf[i];
      }
    }
    if (total <= tailBytes) {
      return new String(ring, 0, (int) total, StandardCharsets.UTF_8);
    }
    int start = (int) (total % tailBytes);
    byte[] ordered = new byte[tailBytes];
    System.arraycopy(ring, start, ordered, 0, tailBytes - start);
    System.arraycopy(ring, 0, ordered, tailBytes - start, start);
    // The cut may fall inside a character; the decoder replaces the broken start.
    return new String(ordered, StandardCharsets.UTF_8);
  }

  private static String text(byte[] bytes, int len) {
    int end = len > 0 && bytes[len - 1] == '\r' ? len - 1 : len;
    return new String(bytes, 0, end, StandardCharsets.UTF_8);
  }

  /** Takes one line and whether it was cut. */
  interface LineConsumer {
    void accept(String line, boolean cut);
  }
}
