package newsfeed.common.events;

import io.vertx.core.json.JsonObject;

import java.util.UUID;

/**
 * "outbound retracted": the post {@code eventId} was answered 503 and its outbound row cancelled, yet its posted
 * event may be on the broker (a publish whose answer was lost). Consumers remove what that event made, with
 * writes at {@code writtenMicros}, the cancelling tombstone's timestamp: later than the cancelled post's, earlier
 * than a retry's that made the post after all.
 */
public record OutboundRetractedEvent(UUID eventId, long participantId, long writtenMicros) implements OutboundEvent {
  static final String TYPE_RETRACTED = "retracted";

  @Override
  public JsonObject toJson() {
    return new JsonObject().put(TYPE, TYPE_RETRACTED).put("eventId", eventId.toString())
        .put("participantId", participantId).put("writtenMicros", writtenMicros);
  }

  static OutboundRetractedEvent fromJson(JsonObject json) {
    UUID eventId = EventFields.eventId(json);
    return new OutboundRetractedEvent(eventId, EventFields.participantId(json),
        EventFields.requiredLong(json, "writtenMicros"));
  }
}
