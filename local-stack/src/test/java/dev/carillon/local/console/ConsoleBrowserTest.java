package dev.carillon.local.console;

import static dev.carillon.store.jooq.Tables.INSTANCE_EVENT;
import static dev.carillon.store.jooq.Tables.TASK_INSTANCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The web console in headless Chromium against a real stack on devstack (the trigger serving the
 * API and the console, a worker, the retry service): log in with the keyboard, watch a task's
 * instance appear and succeed without reloading the page, run a task now and watch it succeed,
 * pause and resume, re-run DEAD instances (a group from the dead letters after a dry run, and one
 * from its page), and a viewer sees no button that changes anything. Every page is saved as a
 * screenshot at 1280 and 390 pixels wide under {@code target/console-screenshots}, and at 390 no
 * page is wider than the window.
 *
 * <p>Needs Debian's {@code chromium} and {@code chromium-driver} (what {@code .ci/run} installs);
 * without them the tests are skipped, saying so.
 */
@Timeout(600)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsoleBrowserTest {
  private static final Path SHOTS = Path.of("target", "console-screenshots");
  private static final Duration PAGE_WAIT = Duration.ofSeconds(20);

  /** An instant on a task's wall clock as the API gives it, e.g. 2026-03-08T03:30:00-04:00. */
  private static final String TASK_CLOCK =
      "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d[+-]\\d\\d:\\d\\d";

  private static final String TASKS =
      """
      tasks:
        - id: ticker
          handler: noop
          schedule: { cron: "0/2 * * * * ?", zone: Europe/Berlin, window: EVERY_FIRE }
          timeout: 30s
        - id: on-demand
          handler: sleep
          schedule: { cron: "0 0 3 1 1 ?", zone: Asia/Tokyo }
          timeout: 30s
          retry: { policy: EXPONENTIAL, initial: 1m, multiplier: 2, maxRetries: 3 }
          params: { duration: 1500ms }
        - id: doomed
          handler: sleep
          schedule: { cron: "0 0 3 1 1 ?", zone: UTC }
          timeout: 30s
          params: { duration: 10ms, failFirst: 1000 }
        - id: spring-report
          handler: noop
          schedule: { cron: "0 30 2 14 3 ?", zone: America/New_York }
      """;

  private static ConsoleStack stack;
  private static WebDriver driver;

  @BeforeAll
  static void start() throws IOException {
    Optional<Path> chromium = executable("chromium", "/usr/bin/chromium");
    Optional<Path> chromedriver = executable("chromedriver", "/usr/bin/chromedriver");
    Assumptions.assumeTrue(
        chromium.isPresent() && chromedriver.isPresent(),
        "no browser: the console's browser tests need Debian's chromium and chromium-driver"
            + " (apt-get install chromium chromium-driver); skipped");
    Files.createDirectories(SHOTS);
    stack = new ConsoleStack(TASKS);
    Path profile = Files.createTempDirectory("chromium-profile");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.get().toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--user-data-dir=" + profile.toAbsolutePath());
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(chromedriver.get().toFile())
            .usingAnyFreePort()
            .build();
    driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(PAGE_WAIT);
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
  }

  @AfterAll
  static void stop() {
    if (driver != null) {
      driver.quit();
    }
    if (stack != null) {
      stack.close();
    }
  }

  private static Optional<Path> executable(String name, String usual) {
    if (Files.isExecutable(Path.of(usual))) {
      return Optional.of(Path.of(usual));
    }
    String path = System.getenv("PATH");
    return Arrays.stream(path == null ? new String[0] : path.split(File.pathSeparator))
        .map(d -> Path.of(d, name))
        .filter(Files::isExecutable)
        .findFirst();
  }

  // ------------------------------------------------------------------ helpers

  private static JavascriptExecutor js() {
    return (JavascriptExecutor) driver;
  }

  /** Opens the console logged out. */
  private static void openLoggedOut() {
    driver.get(stack.consoleUrl());
    js().executeScript("sessionStorage.clear();");
    driver.get(stack.consoleUrl() + "#/overview");
    await("the login form")
        .atMost(PAGE_WAIT)
        .ignoreExceptions()
        .until(() -> driver.findElement(By.id("token")).isDisplayed());
  }

  private static void logIn(String token) {
    openLoggedOut();
    WebElement input = driver.findElement(By.id("token"));
    input.sendKeys(token);
    input.sendKeys(Keys.ENTER);
    await("the overview after logging in")
        .atMost(PAGE_WAIT)
        .until(() -> !driver.findElements(By.id("status-now")).isEmpty());
  }

  /** Goes to a page by its hash (no reload) and waits for {@code ready}. */
  private static void go(String hash, By ready) {
    js().executeScript("location.hash = arguments[0];", hash);
    await("page " + hash).atMost(PAGE_WAIT).until(() -> !driver.findElements(ready).isEmpty());
  }

  /** Clicks what {@code by} finds, finding it again if a refresh replaced it before the click. */
  private static void click(By by) {
    await("to click " + by)
        .atMost(PAGE_WAIT)
        .ignoreExceptionsMatching(ConsoleBrowserTest::rerendered)
        .until(
            () -> {
              driver.findElement(by).click();
              return true;
            });
  }

  private static String text(By by) {
    return retrying(() -> driver.findElement(by).getText());
  }

  private static <T> T retrying(Callable<T> read) {
    return await("a read of the page")
        .atMost(PAGE_WAIT)
        .ignoreException(StaleElementReferenceException.class)
        .until(read, v -> true);
  }

  /** A mark on the page's window object: it survives hash changes and is gone after a reload. */
  private static void markPage() {
    js().executeScript("window.__carillonMark = 'same page';");
  }

  private static void assertNotReloaded() {
    assertThat(js().executeScript("return window.__carillonMark;"))
        .as("the page was not reloaded")
        .isEqualTo("same page");
  }

  private static long newestInstanceOf(String task) {
    Long id =
        stack
            .db
            .dsl()
            .select(org.jooq.impl.DSL.max(TASK_INSTANCE.ID))
            .from(TASK_INSTANCE)
            .where(TASK_INSTANCE.TASK_ID.eq(task))
            .fetchOne(0, Long.class);
    return id == null ? 0 : id;
  }

  private static String statusOf(long id) {
    return stack
        .db
        .dsl()
        .select(TASK_INSTANCE.STATUS)
        .from(TASK_INSTANCE)
        .where(TASK_INSTANCE.ID.eq(id))
        .fetchOne(TASK_INSTANCE.STATUS);
  }

  private static void screenshot(String name) {
    for (int width : new int[] {1280, 390}) {
      driver.manage().window().setSize(new Dimension(width, width == 390 ? 844 : 900));
      await("the layout at " + width)
          .atMost(Duration.ofSeconds(5))
          .until(
              () -> ((Number) js().executeScript("return window.innerWidth;")).intValue() == width);
      if (width == 390) {
        Number scroll = (Number) js().executeScript("return document.documentElement.scrollWidth;");
        assertThat(scroll.intValue())
            .as("%s is no wider than 390 px", name)
            .isLessThanOrEqualTo(390);
      }
      // The whole page, not only the window (at most 2,400 px tall, to keep the files small).
      long height =
          Math.min(
              2400,
              ((Number) js().executeScript("return document.documentElement.scrollHeight;"))
                  .longValue());
      Map<String, Object> shot =
          ((ChromeDriver) driver)
              .executeCdpCommand(
                  "Page.captureScreenshot",
                  Map.of(
                      "format",
                      "png",
                      "captureBeyondViewport",
                      true,
                      "clip",
                      Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
      try {
        Files.write(
            SHOTS.resolve(name + "-" + width + ".png"),
            Base64.getDecoder().decode((String) shot.get("data")));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    driver.manage().window().setSize(new Dimension(1280, 900));
  }

  // ------------------------------------------------------------------ tests

  @Test
  @Order(1)
  void log_in_with_the_keyboard_and_land_on_the_live_overview() {
    openLoggedOut();
    screenshot("login");
    // Keyboard only: the token field has the focus, the skip link comes before it and the
    // Log in button after it.
    assertThat(js().executeScript("return document.activeElement.id;")).isEqualTo("token");
    driver.switchTo().activeElement().sendKeys(Keys.chord(Keys.SHIFT, Keys.TAB));
    assertThat(js().executeScript("return document.activeElement.textContent;"))
        .isEqualTo("Skip to content");
    driver.switchTo().activeElement().sendKeys(Keys.TAB);
    assertThat(js().executeScript("return document.activeElement.id;")).isEqualTo("token");
    driver.switchTo().activeElement().sendKeys(Keys.TAB);
    assertThat(js().executeScript("return document.activeElement.textContent;"))
        .isEqualTo("Log in");

    WebElement input = driver.findElement(By.id("token"));
    input.sendKeys("crl_not-a-token", Keys.ENTER);
    await("the refusal of a wrong token")
        .atMost(PAGE_WAIT)
        .until(() -> driver.findElement(By.id("login-error")).isDisplayed());
    assertThat(text(By.id("login-error"))).contains("refused");

    input.clear();
    input.sendKeys(stack.operatorToken, Keys.ENTER);
    await("the overview")
        .atMost(PAGE_WAIT)
        .until(() -> !driver.findElements(By.id("status-now")).isEmpty());
    assertThat(text(By.id("who-name"))).isEqualTo("olga (operator)");
    assertThat(driver.findElement(By.cssSelector("#nav a[aria-current=page]")).getText())
        .isEqualTo("Overview");
    markPage();
    // Live: the overview's trigger leader and the retry service's scan appear without a reload.
    await("the trigger leader and the retry scan on the overview")
        .atMost(Duration.ofSeconds(60))
        .ignoreException(StaleElementReferenceException.class)
        .untilAsserted(
            () -> {
              assertThat(text(By.id("trigger-leader"))).contains("console-trigger");
              assertThat(text(By.id("retry-scan"))).contains("console-retry (leader)");
            });
    assertNotReloaded();

    // Keyboard navigation: Tab to the Tasks link and follow it with Enter.
    WebElement tasksLink = driver.findElement(By.cssSelector("#nav a[data-page=tasks]"));
    tasksLink.sendKeys(Keys.ENTER);
    await("the tasks page")
        .atMost(PAGE_WAIT)
        .until(() -> !driver.findElements(By.cssSelector("tr[data-task=ticker]")).isEmpty());
    assertNotReloaded();
  }

  @Test
  @Order(2)
  void a_task_instance_appears_and_succeeds_without_a_reload() {
    logIn(stack.operatorToken);
    go("#/tasks/ticker", By.id("recent-windows"));
    markPage();
    long before = newestInstanceOf("ticker");
    await("a new ticker instance shown as SUCCESS on the task page")
        .atMost(Duration.ofSeconds(60))
        .ignoreException(StaleElementReferenceException.class)
        .until(
            () -> {
              for (WebElement row :
                  driver.findElements(By.cssSelector("#recent-windows tr[data-instance]"))) {
                if (Long.parseLong(row.getAttribute("data-instance")) > before
                    && "SUCCESS".equals(row.getAttribute("data-status"))) {
                  return true;
                }
              }
              return false;
            });
    assertNotReloaded();
    assertThat(text(By.id("next-fires"))).contains("Europe/Berlin");
  }

  @Test
  @Order(3)
  void run_now_creates_an_instance_whose_run_is_watched_to_success() {
    logIn(stack.operatorToken);
    go("#/tasks", By.cssSelector("tr[data-task=on-demand]"));
    markPage();
    long before = newestInstanceOf("on-demand");
    click(By.cssSelector("button[aria-label='Run on-demand now']"));
    await("the new instance's page")
        .atMost(PAGE_WAIT)
        .until(() -> driver.getCurrentUrl().matches(".*#/instances/\\d+$"));
    Matcher m = Pattern.compile("#/instances/(\\d+)$").matcher(driver.getCurrentUrl());
    assertThat(m.find()).isTrue();
    long id = Long.parseLong(m.group(1));
    assertThat(id).isGreaterThan(before);
    assertThat(newestInstanceOf("on-demand")).isEqualTo(id);
    List<String> seen = new ArrayList<>();
    await("the instance to succeed on its page")
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptionsMatching(ConsoleBrowserTest::rerendered)
        .until(
            () -> {
              String s = driver.findElement(By.id("instance-status")).getAttribute("data-status");
              if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(s)) {
                seen.add(s);
              }
              return "SUCCESS".equals(s);
            });
    assertThat(seen).as("statuses shown, in order").endsWith("SUCCESS");
    assertThat(statusOf(id)).isEqualTo("SUCCESS");
    assertThat(text(By.id("attempts")))
        .contains("console-worker")
        .contains("SUCCESS")
        .as("the start in UTC and on the task's clock")
        .containsPattern("UTC \\(" + TASK_CLOCK + "\\)");
    assertThat(text(By.id("why")))
        .contains("created PENDING by api:olga")
        .containsPattern("UTC \\(" + TASK_CLOCK + "\\)");
    assertNotReloaded();
  }

  @Test
  @Order(4)
  void pause_and_resume_from_the_tasks_page() {
    logIn(stack.operatorToken);
    go("#/tasks", By.cssSelector("tr[data-task=on-demand]"));
    By paused = By.cssSelector("tr[data-task=on-demand] .paused");
    assertThat(retrying(() -> driver.findElement(paused).getAttribute("data-paused")))
        .isEqualTo("false");
    click(By.cssSelector("button[aria-label='Pause on-demand']"));
    await("on-demand shown paused")
        .atMost(PAGE_WAIT)
        .until(
            () -> retrying(() -> driver.findElement(paused).getAttribute("data-paused")),
            "true"::equals);
    assertThat(stack.call("GET", "/api/v1/tasks/on-demand", stack.viewerToken).body())
        .contains("\"paused\":true");

    click(By.cssSelector("button[aria-label='Resume on-demand']"));
    await("on-demand shown running again")
        .atMost(PAGE_WAIT)
        .until(
            () -> retrying(() -> driver.findElement(paused).getAttribute("data-paused")),
            "false"::equals);
    assertThat(stack.call("GET", "/api/v1/tasks/on-demand", stack.viewerToken).body())
        .contains("\"paused\":false");
    assertThat(
            stack
                .db
                .dsl()
                .fetchCount(
                    dev.carillon.store.jooq.Tables.TASK_EVENT,
                    dev.carillon.store.jooq.Tables.TASK_EVENT
                        .TASK_ID
                        .eq("on-demand")
                        .and(dev.carillon.store.jooq.Tables.TASK_EVENT.ACTOR.eq("api:olga"))))
        .as("paused and resumed by olga")
        .isEqualTo(2);
  }

  /** Runs doomed now through the API and waits until the retry service declares it DEAD. */
  private static long deadDoomed() {
    HttpResponse<String> run = stack.call("POST", "/api/v1/tasks/doomed/runs", stack.operatorToken);
    assertThat(run.statusCode()).as(run.body()).isEqualTo(201);
    long id = newestInstanceOf("doomed");
    await("doomed #" + id + " to be DEAD")
        .atMost(Duration.ofSeconds(60))
        .until(() -> statusOf(id), "DEAD"::equals);
    return id;
  }

  private static int eventsBy(long id, String reasonStart) {
    return stack
        .db
        .dsl()
        .fetchCount(
            INSTANCE_EVENT,
            INSTANCE_EVENT.INSTANCE_ID.eq(id).and(INSTANCE_EVENT.REASON.startsWith(reasonStart)));
  }

  @Test
  @Order(5)
  void dead_instances_are_rerun_after_a_dry_run_and_one_from_its_page() {
    long id = deadDoomed();
    logIn(stack.operatorToken);
    go("#/dead", By.cssSelector("tr[data-task=doomed]"));
    markPage();
    assertThat(text(By.cssSelector("tr[data-task=doomed]")))
        .contains("failing attempt 1")
        .containsPattern("UTC \\(" + TASK_CLOCK + "\\)");
    click(By.cssSelector("tr[data-task=doomed] button.act"));
    await("the dry run's answer")
        .atMost(PAGE_WAIT)
        .until(() -> text(By.id("rerun-panel")).contains("Dry run: 1 DEAD instance(s) of doomed"));
    assertThat(statusOf(id)).as("a dry run moves nothing").isEqualTo("DEAD");
    screenshot("dead-letters");
    click(By.cssSelector("#rerun-panel button.act"));
    await("the re-run's answer")
        .atMost(PAGE_WAIT)
        .until(() -> text(By.id("rerun-panel")).contains("Moved 1 of 1"));
    assertThat(eventsBy(id, "bulk re-run of DEAD by api:olga")).isEqualTo(1);
    assertNotReloaded();

    // It fails again (failFirst 1000) and dies again: re-run it from its own page.
    await("doomed #" + id + " DEAD again")
        .atMost(Duration.ofSeconds(60))
        .until(() -> statusOf(id), "DEAD"::equals);
    go("#/instances/" + id, By.id("instance-status"));
    await("the Re-run button of a DEAD instance")
        .atMost(PAGE_WAIT)
        .until(
            () ->
                !driver
                    .findElements(By.cssSelector("button[aria-label='Re-run instance " + id + "']"))
                    .isEmpty());
    driver.findElement(By.id("change-reason")).sendKeys("tried from the console");
    click(By.cssSelector("button[aria-label='Re-run instance " + id + "']"));
    await("the re-run recorded with its reason")
        .atMost(PAGE_WAIT)
        .until(() -> eventsBy(id, "re-run requested by api:olga: tried from the console") == 1);
    assertNotReloaded();
  }

  @Test
  @Order(6)
  void screenshots_of_every_page_at_both_widths() {
    logIn(stack.operatorToken);
    await("a retry scan recorded")
        .atMost(PAGE_WAIT)
        .until(() -> text(By.id("retry-scan")).contains("ago"));
    screenshot("overview");
    go("#/tasks", By.cssSelector("tr[data-task=ticker]"));
    screenshot("tasks");
    go("#/tasks/spring-report", By.id("next-fires"));
    assertThat(driver.findElements(By.cssSelector("#next-fires tr.dst-row")))
        .as("the spring-forward fire is flagged")
        .isNotEmpty();
    screenshot("task-dst");
    go("#/tasks/on-demand", By.id("retry-plan"));
    assertThat(text(By.id("retry-plan"))).contains("EXPONENTIAL").contains("1m").contains("2m");
    screenshot("task");
    go("#/instances", By.cssSelector("#instances tr[data-instance]"));
    screenshot("instances");
    go("#/instances?task=doomed&status=DEAD", By.id("instances"));
    long doomed = newestInstanceOf("doomed");
    go("#/instances/" + doomed, By.id("attempts"));
    screenshot("instance");
    go("#/dead", By.id("dead-groups"));
    screenshot("dead");
    go("#/retry", By.id("config-in-force"));
    driver.findElement(By.id("p-recovery")).clear();
    driver.findElement(By.id("p-recovery")).sendKeys("2h", Keys.ENTER);
    await("the plan")
        .atMost(PAGE_WAIT)
        .until(() -> text(By.id("plan-result")).contains("retries fit in 2h"));
    screenshot("retry");
  }

  @Test
  @Order(7)
  void a_viewer_sees_every_page_and_no_button_that_changes_anything() {
    logIn(stack.viewerToken);
    assertThat(text(By.id("who-name"))).isEqualTo("vik (viewer)");
    long doomed = newestInstanceOf("doomed");
    List<String[]> pages =
        List.of(
            new String[] {"#/overview", "status-now"},
            new String[] {"#/tasks", "instances-or-tasks"},
            new String[] {"#/tasks/on-demand", "retry-plan"},
            new String[] {"#/instances", "instances"},
            new String[] {"#/instances/" + doomed, "attempts"},
            new String[] {"#/dead", "dead-groups"},
            new String[] {"#/retry", "config-in-force"});
    for (String[] p : pages) {
      By ready =
          p[1].equals("instances-or-tasks")
              ? By.cssSelector("tr[data-task=on-demand]")
              : By.id(p[1]);
      go(p[0], ready);
      assertThat(driver.findElements(By.cssSelector("button.act, [data-action]")))
          .as("buttons that change something on %s", p[0])
          .isEmpty();
      assertThat(driver.findElements(By.id("change-reason"))).isEmpty();
    }
    // The API would refuse anyway: the buttons are hidden, not the only guard.
    assertThat(stack.call("POST", "/api/v1/tasks/on-demand/pause", stack.viewerToken).statusCode())
        .isEqualTo(403);
    click(By.id("logout"));
    await("the login form after logging out")
        .atMost(PAGE_WAIT)
        .until(() -> !driver.findElements(By.id("token")).isEmpty());
    assertThat(js().executeScript("return sessionStorage.getItem('carillon.token');")).isNull();
  }

  /**
   * An element read while the page re-rendered: gone from the DOM or not there yet. One predicate,
   * because each {@code ignoreException} call of Awaitility replaces the one before it (two chained
   * calls ignored only the second kind, and a stale element failed a CI run).
   */
  private static boolean rerendered(Throwable e) {
    return e instanceof StaleElementReferenceException
        || e instanceof org.openqa.selenium.NoSuchElementException;
  }
}
