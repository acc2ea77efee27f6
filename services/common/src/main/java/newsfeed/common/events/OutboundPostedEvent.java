package newsfeed.common.events;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import newsfeed.common.model.Links;
import newsfeed.common.model.Occurred;

import java.time.Instant;
import java.util.UUID;

/**
 * The "outbound posted" Kafka event (docs/contracts.md). eventId is the timeuuid of the outbound row and
 * becomes the clustering key of every inbound row, so a redelivered event overwrites instead of duplicating.
 * givenOccurred is the `occurred` the poster gave ({@link Occurred}), null when the server's time applies.
 */
public record OutboundPostedEvent(UUID eventId, long participantId, String subject, String story,
                                  long postedAtMillis, String givenOccurred) {

  /** An event of a post without a client's `occurred`. */
  public OutboundPostedEvent(UUID eventId, long participantId, String subject, String story, long postedAtMillis) {
    this(eventId, participantId, subject, story, postedAtMillis, null);
  }

  /** When the post happened on the server: the time of its timeuuid, which orders every feed. */
  public Instant occurred() {
    return Instant.ofEpochMilli(TimeUuids.unixMillis(eventId));
  }

  /** The `occurred` clients see: the poster's own when given, else the timeuuid's instant (ISO-8601, UTC). */
  public String occurredText() {
    return givenOccurred != null ? givenOccurred : occurred().toString();
  }

  /** The event value as outbound publishes it (docs/contracts.md). */
  public JsonObject toJson() {
    return new JsonObject().put("eventId", eventId.toString()).put("participantId", participantId)
        .put("from", Links.participant(participantId)).put("occurred", occurredText())
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
        optionalString(json, "story"), requiredLong(json, "postedAtMillis"), givenOccurred(json, eventId));
  }

  /**
   * The event's `occurred` unless it is just the timeuuid's instant (what every event carried before clients could
   * give one) or unusable; a post is never dropped for it, it then shows the server's time.
   */
  private static String givenOccurred(JsonObject json, UUID eventId) {
    Object v = json.getValue("occurred");
    if (!(v instanceof String s) || !Occurred.isValid(s)
        || s.equals(Instant.ofEpochMilli(TimeUuids.unixMillis(eventId)).toString())) {
      return null;
    }
    return s;
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
