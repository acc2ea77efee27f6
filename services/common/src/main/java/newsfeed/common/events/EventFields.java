package newsfeed.common.events;

import io.vertx.core.json.JsonObject;

import java.util.UUID;

/** The checked fields of an event value: each one present and of its type, or a malformed event. */
final class EventFields {
  private EventFields() {
  }

  static UUID eventId(JsonObject json) {
    UUID eventId;
    try {
      eventId = UUID.fromString(requiredString(json, "eventId"));
    } catch (IllegalArgumentException e) {
      throw new OutboundEvent.MalformedEventException("eventId is not a UUID");
    }
    if (eventId.version() != 1) {
      throw new OutboundEvent.MalformedEventException("eventId is not a timeuuid");
    }
    return eventId;
  }

  static long participantId(JsonObject json) {
    long participantId = requiredLong(json, "participantId");
    if (participantId <= 0) {
      throw new OutboundEvent.MalformedEventException("participantId must be positive");
    }
    return participantId;
  }

  /** writtenMicros when present (events published before it existed: the eventId's own time). */
  static long writtenMicros(JsonObject json, UUID eventId) {
    return json.getValue("writtenMicros") == null ? TimeUuids.unixMicros(eventId) : requiredLong(json, "writtenMicros");
  }

  static String requiredString(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (!(v instanceof String s) || s.isEmpty()) {
      throw new OutboundEvent.MalformedEventException(field + " is missing");
    }
    return s;
  }

  static String optionalString(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (v != null && !(v instanceof String)) {
      throw new OutboundEvent.MalformedEventException(field + " is not a string");
    }
    return v == null ? "" : (String) v;
  }

  static long requiredLong(JsonObject json, String field) {
    Object v = json.getValue(field);
    if (!(v instanceof Number n) || n.doubleValue() != Math.rint(n.doubleValue())) {
      throw new OutboundEvent.MalformedEventException(field + " is not an integer");
    }
    return n.longValue();
  }
}
