package newsfeed.outbound;

import newsfeed.common.ApiError;
import newsfeed.common.Links;
import newsfeed.common.http.JsonBody;

import io.vertx.core.json.JsonObject;

/**
 * The validated body of `POST /participant/:id/outbound`: classic {"from","subject","story"}. from is optional
 * but, when given, must name the participant of the path; occurred (and any other field) is ignored because the
 * server sets the time.
 */
public record PostRequest(long participantId, String subject, String story) {
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
        JsonBody.requiredString(body, "subject", MAX_SUBJECT),
        JsonBody.requiredString(body, "story", MAX_STORY));
  }
}
