package dev.carillon.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers the errors Jetty produces itself (a malformed request line, headers too large, a body
 * over the limit, a refused method) as {@code application/problem+json} in the API's shape ({@code
 * type, title, status, detail, problems}) instead of Jetty's HTML page, and never with a stack
 * trace.
 */
final class ProblemErrorHandler extends ErrorHandler {
  static final String PROBLEM_JSON = "application/problem+json";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final int maxHeaderBytes;
  private final long maxBodyBytes;

  ProblemErrorHandler(int maxHeaderBytes, long maxBodyBytes) {
    this.maxHeaderBytes = maxHeaderBytes;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  protected void generateResponse(
      Request request,
      Response response,
      int code,
      String message,
      Throwable cause,
      Callback callback) {
    Map<String, Object> body = problem(code, message, request);
    byte[] bytes;
    try {
      bytes = JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      bytes = ("{\"status\":" + code + "}").getBytes(StandardCharsets.UTF_8);
    }
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, PROBLEM_JSON);
    response.write(true, java.nio.ByteBuffer.wrap(bytes), callback);
  }

  private Map<String, Object> problem(int code, String message, Request request) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", "about:blank");
    body.put("title", HttpStatus.getMessage(code));
    body.put("status", code);
    String detail = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
    body.put("detail", detail);
    if (code == HttpStatus.PAYLOAD_TOO_LARGE_413) {
      long length = request == null ? -1 : request.getLength();
      body.put(
          "problems",
          List.of(
              Map.of(
                  "field",
                  "body",
                  "value",
                  length >= 0 ? length + " bytes" : "more than " + maxBodyBytes + " bytes",
                  "message",
                  "must be at most " + maxBodyBytes + " bytes")));
    } else if (code == HttpStatus.REQUEST_HEADER_FIELDS_TOO_LARGE_431) {
      body.put(
          "problems",
          List.of(
              Map.of(
                  "field",
                  "headers",
                  "value",
                  "more than " + maxHeaderBytes + " bytes",
                  "message",
                  "the request line and headers must be at most " + maxHeaderBytes + " bytes")));
    } else {
      body.put("problems", List.of());
    }
    return body;
  }
}
