package dev.carillon.worker.exec;

/**
 * What an exec agent's exit code means. The rule, for agents in any language:
 *
 * <table>
 *   <caption>exit codes</caption>
 *   <tr><th>code</th><th>meaning</th><th>outcome</th></tr>
 *   <tr><td>0</td><td>done</td><td>SUCCESS</td></tr>
 *   <tr><td>75 ({@code EX_TEMPFAIL})</td><td>try again later</td><td>FAILED, retryable</td></tr>
 *   <tr><td>64-78 except 75 (sysexits.h: usage, data, input, config ... errors)</td><td>the
 *       agent's verdict that running it again cannot help</td><td>FAILED, non-retryable</td></tr>
 *   <tr><td>anything else (1, 2, a signal)</td><td>a crash</td><td>FAILED, retryable</td></tr>
 * </table>
 *
 * <p>Why: an uncaught exception exits 1 in Python, Node and the JVM, and a crash is what a Java
 * plugin's exception is, retryable as far as the task's policy allows. An agent that knows its
 * input or configuration is wrong says so with the code its language already names for it ({@code
 * os.EX_DATAERR}, {@code os.EX_CONFIG}, {@code process.exit(65)}), and {@code EX_TEMPFAIL}, the one
 * sysexits code that means "later", stays retryable. No retry happens either way unless the task's
 * retry policy allows one.
 */
enum ExitCodes {
  SUCCESS,
  RETRYABLE,
  NON_RETRYABLE;

  /** sysexits.h's {@code EX_TEMPFAIL}. */
  static final int TEMPFAIL = 75;

  /** The first and last sysexits.h codes. */
  static final int SYSEXITS_FIRST = 64;

  static final int SYSEXITS_LAST = 78;

  /** What {@code code} means. */
  static ExitCodes of(int code) {
    if (code == 0) {
      return SUCCESS;
    }
    if (code != TEMPFAIL && code >= SYSEXITS_FIRST && code <= SYSEXITS_LAST) {
      return NON_RETRYABLE;
    }
    return RETRYABLE;
  }

  /**
   * The exit in words for a failure reason, e.g. {@code exit 65 (EX_DATAERR, non-retryable)} or
   * {@code killed by signal 9 (SIGKILL)}. The JVM reports a process killed by signal {@code n} as
   * exit {@code 128 + n}.
   */
  static String describe(int code) {
    String name = name(code);
    if (code > 128 && code < 160 && name == null) {
      int signal = code - 128;
      return "exit " + code + " (killed by signal " + signal + signalName(signal) + "; retryable)";
    }
    return "exit "
        + code
        + " ("
        + (name == null ? "" : name + ", ")
        + (of(code) == NON_RETRYABLE ? "non-retryable" : "retryable")
        + ")";
  }

  private static String name(int code) {
    return switch (code) {
      case 64 -> "EX_USAGE";
      case 65 -> "EX_DATAERR";
      case 66 -> "EX_NOINPUT";
      case 67 -> "EX_NOUSER";
      case 68 -> "EX_NOHOST";
      case 69 -> "EX_UNAVAILABLE";
      case 70 -> "EX_SOFTWARE";
      case 71 -> "EX_OSERR";
      case 72 -> "EX_OSFILE";
      case 73 -> "EX_CANTCREAT";
      case 74 -> "EX_IOERR";
      case 75 -> "EX_TEMPFAIL";
      case 76 -> "EX_PROTOCOL";
      case 77 -> "EX_NOPERM";
      case 78 -> "EX_CONFIG";
      default -> null;
    };
  }

  private static String signalName(int signal) {
    return switch (signal) {
      case 1 -> ", SIGHUP";
      case 2 -> ", SIGINT";
      case 6 -> ", SIGABRT";
      case 9 -> ", SIGKILL";
      case 11 -> ", SIGSEGV";
      case 15 -> ", SIGTERM";
      default -> "";
    };
  }
}
