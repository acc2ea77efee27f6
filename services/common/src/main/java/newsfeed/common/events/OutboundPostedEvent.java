package newsfeed.common.events;

import io.vertx.core.json.JsonObject;
import newsfeed.common.model.Links;
import newsfeed.common.model.Occurred;

import java.time.Instant;
import java.util.UUID;

/**
 * The "outbound posted" Kafka event (docs/contracts.md). eventId is the timeuuid of the outbound row and
 * becomes the clustering key of every inbound row, so a redelivered event overwrites instead of duplicating.
 * givenOccurred is the `occurred` the poster gave ({@link Occurred}), null when the server's time applies.
 * writtenMicros is the outbound row's write timestamp: the post's own time, later for a retry that made the post
 * again after a failed attempt ({@link OutboundRetractedEvent}).
 */
public record OutboundPostedEvent(UUID eventId, long participantId, String subject, String story,
                                  long postedAtMillis, String givenOccurred, long writtenMicros)
    implements OutboundEvent {
  static final String TYPE_POSTED = "posted";

  /** An event written at the post's own time. */
  public OutboundPostedEvent(UUID eventId, long participantId, String subject, String story, long postedAtMillis,
                             String givenOccurred) {
    this(eventId, participantId, subject, story, postedAtMillis, givenOccurred, TimeUuids.unixMicros(eventId));
  }

  /** An event of a post without a client's `occurred`, written at the post's own time. */
  public OutboundPostedEvent(UUID eventId, long participantId, String subject, String story, long postedAtMillis) {
    this(eventId, participantId, subject, story, postedAtMillis, null);
  }

  /** The same post, written at {@code micros}. */
  public OutboundPostedEvent writtenAt(long micros) {
    return new OutboundPostedEvent(eventId, participantId, subject, story, postedAtMillis, givenOccurred, micros);
  }

  /** When the post happened on the server: the time of its timeuuid, which orders every feed. */
  public Instant occurred() {
    return Instant.ofEpochMilli(TimeUuids.unixMillis(eventId));
  }

  /** The `occurred` clients see: the poster's own when given, else the timeuuid's instant (ISO-8601, UTC). */
  public String occurredText() {
    return givenOccurred != null ? givenOccurred : occurred().toString();
  }

  @Override
  public JsonObject toJson() {
    return new JsonObject().put(TYPE, TYPE_POSTED).put("eventId", eventId.toString())
        .put("participantId", participantId).put("from", Links.participant(participantId))
        .put("occurred", occurredText()).put("subject", subject).put("story", story)
        .put("postedAtMillis", postedAtMillis).put("writtenMicros", writtenMicros);
  }

  /** Parses a posted event; throws {@link MalformedEventException} for anything unusable, another type included. */
  public static OutboundPostedEvent parse(String value) {
    if (OutboundEvent.parse(value) instanceof OutboundPostedEvent posted) {
      return posted;
    }
    throw new MalformedEventException("not a posted event");
  }

  static OutboundPostedEvent fromJson(JsonObject json) {
    UUID eventId = EventFields.eventId(json);
    return new OutboundPostedEvent(eventId, EventFields.participantId(json),
        EventFields.optionalString(json, "subject"), EventFields.optionalString(json, "story"),
        EventFields.requiredLong(json, "postedAtMillis"), givenOccurred(json, eventId),
        EventFields.writtenMicros(json, eventId));
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
}
