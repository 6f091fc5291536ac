package dev.carillon.control.console;

import dev.carillon.http.Replies;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves the web console's static files ({@code /console/...}, from the class path's {@code
 * console/} folder) in front of the API, and hands every other request to the API's handler.
 *
 * <p>The files need no token: they hold no data, and every call the console makes goes to the API
 * with the user's token. Every console response carries a Content-Security-Policy that allows
 * scripts, styles and calls only from this origin (no inline script, no {@code eval}, no framing),
 * and a file name is accepted only when it is one plain name with a known extension, so no path can
 * leave the folder.
 */
public final class ConsoleHandler extends Handler.Wrapper {
  /** Where the console is served. */
  public static final String PREFIX = "/console/";

  /** The class path folder holding its files. */
  static final String FOLDER = "/console/";

  /** The policy on every console response. */
  public static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
          + " connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none';"
          + " frame-ancestors 'none'";

  private static final Pattern FILE =
      Pattern.compile("[a-z0-9][a-z0-9-]{0,63}\\.(html|js|css|svg|png|ico)");

  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "svg", "image/svg+xml",
          "png", "image/png",
          "ico", "image/x-icon");

  private final Map<String, Optional<byte[]>> files = new ConcurrentHashMap<>();

  /**
   * @param api answers every request outside the console
   */
  public ConsoleHandler(Handler api) {
    super(api);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = request.getHttpURI().getPath();
    if (path == null) {
      return super.handle(request, response, callback);
    }
    if (path.equals("/") || path.equals("/console")) {
      secure(response);
      response.getHeaders().put(HttpHeader.LOCATION, PREFIX);
      Replies.send(request, response, callback, 302, "text/plain; charset=utf-8", "see " + PREFIX);
      return true;
    }
    if (!path.startsWith(PREFIX)) {
      return super.handle(request, response, callback);
    }
    secure(response);
    String method = request.getMethod();
    if (!method.equals("GET") && !method.equals("HEAD")) {
      response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
      Replies.send(
          request,
          response,
          callback,
          405,
          "text/plain; charset=utf-8",
          "the console's files are read with GET\n");
      return true;
    }
    String name = path.substring(PREFIX.length());
    if (name.isEmpty()) {
      name = "index.html";
    }
    Optional<byte[]> body = FILE.matcher(name).matches() ? file(name) : Optional.empty();
    if (body.isEmpty()) {
      Replies.send(
          request,
          response,
          callback,
          404,
          "text/plain; charset=utf-8",
          "no such console file: " + name.replaceAll("[^\\x20-\\x7e]", "?") + "\n");
      return true;
    }
    String ext = name.substring(name.lastIndexOf('.') + 1);
    Replies.send(request, response, callback, 200, TYPES.get(ext), body.get());
    return true;
  }

  private static void secure(Response response) {
    response.getHeaders().put("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    response.getHeaders().put("X-Content-Type-Options", "nosniff");
    response.getHeaders().put("Referrer-Policy", "no-referrer");
    response.getHeaders().put("X-Frame-Options", "DENY");
  }

  private Optional<byte[]> file(String name) {
    return files.computeIfAbsent(name, ConsoleHandler::load);
  }

  private static Optional<byte[]> load(String name) {
    try (InputStream in = ConsoleHandler.class.getResourceAsStream(FOLDER + name)) {
      return in == null ? Optional.empty() : Optional.of(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the console's " + name, e);
    }
  }
}
