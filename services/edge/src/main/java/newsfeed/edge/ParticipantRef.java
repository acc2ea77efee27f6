package newsfeed.edge;

import io.vertx.core.json.JsonObject;

/**
 * A participant as a GraphQL source: its id, and its REST object when it is already known (a create answered
 * it, or `participant(id)` loaded it to check the id); otherwise the fields that need it load it once per request
 * (Participants).
 */
record ParticipantRef(long id, JsonObject known) {
  static ParticipantRef of(long id) {
    return new ParticipantRef(id, null);
  }
}
