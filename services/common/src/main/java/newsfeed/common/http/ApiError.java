package newsfeed.common.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An error answer of the API: {"error":"<code>","message":"<text>","status":<status>} ({@link ErrorBody}), never a
 * stack trace. Thrown while validating a request or as a failed future's cause; {@link FailureHandler} answers it,
 * with the response headers the error carries (a 401's {@code WWW-Authenticate}).
 */
public final class ApiError extends RuntimeException {
  private final int status;
  private final String code;
  private final Map<String, String> headers;

  public ApiError(int status, String code, String message) {
    this(status, code, message, Map.of());
  }

  private ApiError(int status, String code, String message, Map<String, String> headers) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }

  /** The same error answered with one more response header. */
  public ApiError withHeader(String name, String value) {
    Map<String, String> more = new LinkedHashMap<>(headers);
    more.put(name, value);
    return new ApiError(status, code, getMessage(), Map.copyOf(more));
  }

  /** 404 participant_not_found: social-graph has no participant with this id. */
  public static ApiError participantNotFound(long id) {
    return new ApiError(404, "participant_not_found", "no participant with id " + id);
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** Response headers of the answer (none for most errors). */
  public Map<String, String> headers() {
    return headers;
  }
}
