package newsfeed.edge;

import newsfeed.common.model.Links;

/** GraphQL ids are the numbers of the REST links: "42" (or 42, or "/participant/42") <-> /participant/42. */
final class Ids {
  private Ids() {
  }

  /** The participant id of an ID argument; anything else is the client's mistake, a 400 before any call. */
  static long participant(String argument, Object value) {
    try {
      return Links.participantId(value);
    } catch (IllegalStateException e) {
      throw FieldError.badRequest(argument + " is not a participant id: " + value);
    }
  }

  /** The id of a participant link in a service's answer. */
  static ParticipantRef ref(Object link) {
    try {
      return ParticipantRef.of(Links.participantId(link));
    } catch (IllegalStateException e) {
      throw new FieldError(503, FieldError.UNAVAILABLE, "a service answered an unexpected link: " + link);
    }
  }

  static String of(long id) {
    return Long.toString(id);
  }
}
