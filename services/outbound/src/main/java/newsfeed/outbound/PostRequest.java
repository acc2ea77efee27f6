package newsfeed.outbound;

import newsfeed.common.http.ApiError;
import newsfeed.common.model.Links;
import newsfeed.common.http.JsonBody;

import io.vertx.core.json.JsonObject;

/**
 * The validated body of `POST /participant/:id/outbound`: classic {"from","occurred","subject","story"}, as JSON
 * or as a form. from is optional but, when given, must name the participant of the path. occurred is optional: a
 * day (`yyyy-MM-dd`, what classic clients send) or an RFC 3339 date-time, kept as given; null when absent (the
 * server's time then shows). Any other field is ignored.
 */
public record PostRequest(long participantId, String occurred, String subject, String story) {
  static final int MAX_SUBJECT = 500;
  static final int MAX_STORY = 10_000;

  /** @throws ApiError 400 naming the offending field. */
  public static PostRequest parse(long participantId, JsonObject body) {
    Long from = JsonBody.optionalParticipant(body, "from");
    if (from != null && from != participantId) {
      throw new ApiError(400, "invalid_field",
          "from must be the participant of the path, " + Links.participant(participantId));
    }
    return new PostRequest(participantId,
        JsonBody.optionalOccurred(body, "occurred"),
        JsonBody.requiredString(body, "subject", MAX_SUBJECT),
        JsonBody.requiredString(body, "story", MAX_STORY));
  }
}
