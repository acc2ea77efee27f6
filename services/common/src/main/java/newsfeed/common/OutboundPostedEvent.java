package newsfeed.common;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.time.Instant;
import java.util.UUID;

/**
 * The "outbound posted" Kafka event (docs/contracts.md). eventId is the timeuuid of the outbound row and
 * becomes the clustering key of every inbound row, so a redelivered event overwrites instead of duplicating.
 */
public record OutboundPostedEvent(UUID eventId, long participantId, String subject, String story,
                                  long postedAtMillis) {

  /** When the post happened: the time of its timeuuid, the same instant the outbound row shows. */
  public Instant occurred() {
    return Instant.ofEpochMilli(TimeUuids.unixMillis(eventId));
  }

  /** The event value as outbound publishes it (docs/contracts.md). */
  public JsonObject toJson() {
    return new JsonObject().put("eventId", eventId.toString()).put("participantId", participantId)
        .put("from", Links.participant(participantId)).put("occurred", occurred().toString())
        .put("subject", subject).put("story", story).put("postedAtMillis", postedAtMillis);
  }

  /** Parses and validates one event value; throws {@link MalformedEventException} for anything unusable. */
  public static OutboundPostedEvent parse(String value) {
    if (value == null) {
      throw new MalformedEventException("empty event");
    }
    JsonObject json;
    try {
      json = new JsonObject(value);
    } catch (DecodeException | ClassCastException e) {
      throw new MalformedEventException("event is not a JSON object");
    }
    UUID eventId;
    try {
      eventId = UUID.fromString(requiredString(json, "eventId"));
    } catch (IllegalArgumentException e) {
      throw new MalformedEventException("eventId is not a UUID");
    }
    if (eventId.version() != 1) {
      throw new MalformedEventException("eventId is not a timeuuid");
    }
    long participantId = requiredLong(json, "participantId");
    if (participantId <= 0) {
      throw new MalformedEventException("participantId must be positive");
    }
    return new OutboundPostedEvent(eventId, participantId, optionalString(json, "subject"),
        optionalString(json, "story"), requiredLong(json, "postedAtMillis"));
  }

  private static String requiredString(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (!(v instanceof String s) || s.isEmpty()) {
      throw new MalformedEventException(field + " is missing");
    }
    return s;
  }

  private static String optionalString(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw new MalformedEventException(field + " is not a string");
    }
    return v == null ? "" : (String) v;
  }

  private static long requiredLong(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
      throw new MalformedEventException(field + " is not an integer");
    }
    return n.longValue();
  }

  /** An event that can never be processed (bad JSON, missing fields): retrying would block its partition forever. */
  public static final class MalformedEventException extends RuntimeException {
    public MalformedEventException(String message) {
      super(message, null, false, false);
    }
  }
}
