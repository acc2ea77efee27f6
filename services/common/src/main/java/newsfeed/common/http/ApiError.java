package newsfeed.common.http;

/**
 * An error answer of the API: {"error":"<code>","message":"<text>","status":<status>} ({@link ErrorBody}), never a
 * stack trace. Thrown while validating a request or as a failed future's cause; {@link FailureHandler} answers it.
 */
public final class ApiError extends RuntimeException {
  private final int status;
  private final String code;

  public ApiError(int status, String code, String message) {
    super(message, null, false, false);
    this.status = status;
    this.code = code;
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
}
