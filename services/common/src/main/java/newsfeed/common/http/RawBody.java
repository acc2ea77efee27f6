package newsfeed.common.http;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;

/**
 * A create route's body handler: the body's bytes up to a limit, nothing else. Vert.x's BodyHandler also runs
 * its form decoder over every body labelled as a form, and curl labels every {@code -d} body so: a JSON post whose
 * story says "50% off" (a {@code %} that is no escape) was refused by that decoder before the service saw it.
 * {@link RequestBody} reads the bytes by their Content-Type instead. Like BodyHandler: a body over the limit is a
 * 413 (at once when Content-Length says so), {@code Expect: 100-continue} is answered, any other expectation is a
 * 417; no file is ever written.
 */
public final class RawBody implements Handler<RoutingContext> {
  private static final String KEY = RawBody.class.getName();

  private final long limit;

  private RawBody(long limit) {
    this.limit = limit;
  }

  /** A handler that takes bodies of up to {@code maxBytes} (HTTP_MAX_BODY_BYTES). */
  public static RawBody limit(long maxBytes) {
    return new RawBody(maxBytes);
  }

  /** The body a RawBody handler of this route read; empty when none ran or there was no body. */
  public static Buffer of(RoutingContext ctx) {
    Buffer body = ctx.get(KEY);
    return body == null ? Buffer.buffer() : body;
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    if (declaredLength(request) > limit) {
      ctx.fail(413);
      return;
    }
    String expect = request.getHeader(HttpHeaders.EXPECT);
    if (expect != null) {
      if (!expect.equalsIgnoreCase("100-continue")) {
        ctx.fail(417);
        return;
      }
      if (request.version() != HttpVersion.HTTP_1_0) {
        request.response().writeContinue();
      }
    }
    if (request.isEnded()) {
      ctx.next();
      return;
    }
    Buffer body = Buffer.buffer();
    boolean[] failed = {false};
    request.handler(chunk -> {
      if (failed[0]) {
        return;
      }
      if (body.length() + (long) chunk.length() > limit) {
        failed[0] = true;
        ctx.fail(413);
        return;
      }
      body.appendBuffer(chunk);
    });
    request.exceptionHandler(err -> {
      if (!failed[0]) {
        failed[0] = true;
        ctx.fail(400, err);
      }
    });
    request.endHandler(v -> {
      if (!failed[0]) {
        ctx.put(KEY, body);
        ctx.next();
      }
    });
    // a handler before this one may have paused it
    request.resume();
  }

  /** Content-Length, or -1 without one (chunked); the HTTP decoder already refused a malformed one. */
  private static long declaredLength(HttpServerRequest request) {
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    try {
      return length == null ? -1 : Long.parseLong(length.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
