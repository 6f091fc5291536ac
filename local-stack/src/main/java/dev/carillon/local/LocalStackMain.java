package dev.carillon.local;

import java.nio.file.Files;
import java.util.concurrent.CountDownLatch;

/** {@code ./carillon-local}: runs the local stack until Ctrl-C. */
public final class LocalStackMain {
  private LocalStackMain() {}

  public static void main(String[] args) throws InterruptedException {
    // Set before the first logger exists: every service module ships its own logback.xml.
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", "carillon-local-logback.xml");
    }
    LocalStackOptions options;
    try {
      options = LocalStackOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    if (!Files.isRegularFile(options.tasksFile())) {
      System.err.println("task file not found: " + options.tasksFile().toAbsolutePath());
      System.exit(2);
      return;
    }
    LocalStack stack;
    try {
      stack = LocalStack.start(options, System.out);
      System.out.println(
          "full log: " + System.getProperty("carillon.log.file", ".carillon/carillon.log"));
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  System.out.println("stopping Carillon...");
                  stack.close();
                  System.out.println("stopped; data kept in " + options.dataDir());
                  stopped.countDown();
                },
                "carillon-local-stop"));
    stopped.await();
  }
}
