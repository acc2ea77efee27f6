package newsfeed.common.auth;

import newsfeed.common.http.ApiError;
import newsfeed.common.model.Links;

/**
 * Who a write runs as: the verified subject (`sub`) of its bearer token, or {@link #ANYONE} while authentication
 * is off. A subject is a participant id ("42"; the link "/participant/42" is read the same) and may write as that
 * participant only; any verified caller may create a participant.
 */
public record Caller(String subject) {
  /** Authentication is off: every write is allowed, as before there were tokens. */
  public static final Caller ANYONE = new Caller(null);

  /** Nothing when this caller may write as participant {@code id}; else the 403 to answer. */
  public void requireParticipant(long id) {
    if (subject == null || participantId() == id) {
      return;
    }
    throw new ApiError(403, "forbidden", "the bearer token's subject (" + subject
        + ") may write as that participant only, not as participant " + id);
  }

  private long participantId() {
    try {
      return Links.participantId(subject);
    } catch (IllegalStateException e) {
      return 0;   // a subject that is no participant (e.g. a registration service) may only create participants
    }
  }
}
