package newsfeed.common.events;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

import java.util.UUID;

/**
 * An event of the outbound topic (docs/contracts.md), keyed by the poster: a post ({@link OutboundPostedEvent}) or
 * the retraction of a post that was answered 503 after its event may have reached the broker
 * ({@link OutboundRetractedEvent}). Both carry the write timestamp the consumers give their own writes, so a
 * retraction hides the post it cancels whatever order the two are applied in, and a later post of the same id
 * (a retry with the same Idempotency-Key) is newer than both.
 */
public sealed interface OutboundEvent permits OutboundPostedEvent, OutboundRetractedEvent {
  String TYPE = "type";

  /** The post's timeuuid: the outbound row's clustering key, the inbound rows' and the Solr document's id. */
  UUID eventId();

  long participantId();

  /** Cassandra write timestamp (microseconds since the epoch) of the consumers' writes of this event. */
  long writtenMicros();

  /** The event value as outbound publishes it. */
  JsonObject toJson();

  /** Parses and validates one event value; throws {@link MalformedEventException} for anything unusable. */
  static OutboundEvent parse(String value) {
    if (value == null) {
      throw new MalformedEventException("empty event");
    }
    JsonObject json;
    try {
      json = new JsonObject(value);
    } catch (DecodeException | ClassCastException e) {
      throw new MalformedEventException("event is not a JSON object");
    }
    Object type = json.getValue(TYPE);
    if (type == null || OutboundPostedEvent.TYPE_POSTED.equals(type)) {
      return OutboundPostedEvent.fromJson(json);
    }
    if (OutboundRetractedEvent.TYPE_RETRACTED.equals(type)) {
      return OutboundRetractedEvent.fromJson(json);
    }
    throw new MalformedEventException("unknown event type " + type);
  }

  /** An event that can never be processed (bad JSON, missing fields): retrying would block its partition forever. */
  final class MalformedEventException extends RuntimeException {
    public MalformedEventException(String message) {
      super(message, null, false, false);
    }
  }
}
