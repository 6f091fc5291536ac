package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.control.ApiFixture.Response;
import dev.carillon.control.console.ConsoleHandler;
import dev.carillon.devstack.DevStackExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The web console's files on the API's server: served without a token (they hold no data), each
 * with the Content-Security-Policy, only plain names of the console's folder, read-only; the API
 * beside them still refuses calls without a token. The sources keep the rules the policy relies on:
 * no inline script, and no API data through innerHTML.
 */
@ExtendWith(DevStackExtension.class)
class ConsoleFilesTest {
  private static final Path SOURCES = Path.of("src/main/resources/console");
  private static ApiFixture api;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_console");
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  @Test
  void the_console_is_served_without_a_token_with_its_security_headers() {
    Response index = api.call("GET", "/console/", null);
    assertThat(index.status()).isEqualTo(200);
    assertThat(index.contentType()).isEqualTo("text/html; charset=utf-8");
    assertThat(index.body()).contains("<script type=\"module\" src=\"app.js\"></script>");
    assertThat(index.headers().firstValue("Content-Security-Policy"))
        .hasValue(ConsoleHandler.CONTENT_SECURITY_POLICY);
    assertThat(ConsoleHandler.CONTENT_SECURITY_POLICY)
        .contains("script-src 'self'")
        .contains("frame-ancestors 'none'")
        .doesNotContain("unsafe-inline")
        .doesNotContain("unsafe-eval");
    assertThat(index.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");

    Response js = api.call("GET", "/console/app.js", null);
    assertThat(js.status()).isEqualTo(200);
    assertThat(js.contentType()).isEqualTo("text/javascript; charset=utf-8");
    assertThat(api.call("GET", "/console/style.css", null).contentType())
        .isEqualTo("text/css; charset=utf-8");

    Response root = api.call("GET", "/", null);
    assertThat(root.status()).isEqualTo(302);
    assertThat(root.headers().firstValue("Location")).hasValue("/console/");

    // The API itself is not opened by the console.
    assertThat(api.call("GET", "/api/v1/tasks", null).status()).isEqualTo(401);
  }

  @Test
  void only_plain_names_of_the_console_folder_are_served_and_only_read() {
    for (String path :
        List.of(
            "/console/../openapi.json",
            "/console/%2e%2e/openapi.json",
            "/console/nothing.js",
            "/console/app.js.bak",
            "/console/sub/app.js",
            "/console/.hidden.js",
            "/console/APP.JS")) {
      Response r = api.call("GET", path, null);
      assertThat(r.status()).as(path).isIn(400, 404);
      assertThat(r.body()).as(path).doesNotContain("\"openapi\"");
    }
    Response post = api.call("POST", "/console/app.js", null, "{}");
    assertThat(post.status()).isEqualTo(405);
    assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
  }

  @Test
  void the_sources_have_no_inline_script_and_render_no_api_data_as_markup() throws IOException {
    String html = Files.readString(SOURCES.resolve("index.html"), StandardCharsets.UTF_8);
    Matcher scripts =
        Pattern.compile("<script([^>]*)>(.*?)</script>", Pattern.DOTALL).matcher(html);
    int found = 0;
    while (scripts.find()) {
      found++;
      assertThat(scripts.group(1)).contains("src=");
      assertThat(scripts.group(2)).isBlank();
    }
    assertThat(found).isEqualTo(1);
    assertThat(html).doesNotContainPattern("\\son[a-z]+=").doesNotContain("style=");
    try (Stream<Path> files = Files.list(SOURCES)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".js")).toList()) {
        String js = Files.readString(f, StandardCharsets.UTF_8);
        assertThat(js)
            .as(f.getFileName().toString())
            .doesNotContain("innerHTML")
            .doesNotContain("outerHTML")
            .doesNotContain("insertAdjacentHTML")
            .doesNotContain("document.write")
            .doesNotContain("eval(")
            .doesNotContain("new Function");
      }
    }
  }
}
