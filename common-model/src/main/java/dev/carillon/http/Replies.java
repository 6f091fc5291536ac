package dev.carillon.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** Writing a whole response in one call on Jetty's core API. */
public final class Replies {
  private Replies() {}

  /**
   * Writes {@code body} with {@code status} and {@code contentType} and completes {@code callback};
   * a HEAD request gets the headers only.
   */
  public static void send(
      Request request,
      Response response,
      Callback callback,
      int status,
      String contentType,
      byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    if (HttpMethod.HEAD.is(request.getMethod())) {
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
      response.write(true, null, callback);
    } else {
      response.write(true, ByteBuffer.wrap(body), callback);
    }
  }

  /** {@link #send} with UTF-8 text. */
  public static void send(
      Request request,
      Response response,
      Callback callback,
      int status,
      String contentType,
      String body) {
    send(request, response, callback, status, contentType, body.getBytes(StandardCharsets.UTF_8));
  }
}
