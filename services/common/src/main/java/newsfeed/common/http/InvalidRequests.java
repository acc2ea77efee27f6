package newsfeed.common.http;

import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.http.HttpServerRequest;

/**
 * Requests the HTTP decoder rejects before any router sees them (a 10,000-character URL, oversized headers, a
 * garbled request line) answered in the API's JSON error shape instead of Vert.x's empty 414/431/400:
 * `server.invalidRequestHandler(InvalidRequests::handle)`. Same statuses as Vert.x's default handler, and the
 * connection is closed after the answer like there (the stream may be out of sync).
 */
public final class InvalidRequests {
  private InvalidRequests() {
  }

  public static void handle(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    int status;
    String code;
    String message;
    if (cause instanceof TooLongHttpLineException) {
      status = 414;
      code = "uri_too_long";
      message = "request URI is too long";
    } else if (cause instanceof TooLongHttpHeaderException) {
      status = 431;
      code = "headers_too_large";
      message = "request headers are too large";
    } else {
      status = 400;
      code = "bad_request";
      message = "malformed HTTP request";
    }
    ErrorBody.send(request.response().putHeader("Connection", "close"), status, code, message)
        .onComplete(ar -> request.connection().close());
  }
}
