package newsfeed.inbound;

import newsfeed.common.events.TimeUuids;

import io.vertx.core.json.JsonObject;
import newsfeed.common.http.FeedPage;

import java.time.Instant;
import java.util.UUID;

/**
 * One row of a participant's feed: a friend's post. occurred is the post's timeuuid (the eventId) and orders the
 * feed; givenOccurred is the poster's own `occurred` (column occurred_text), null when none was given.
 */
public record InboundItem(long participantId, UUID occurred, long fromParticipantId, String givenOccurred,
                          String subject, String story)
    implements FeedPage.Entry {

  /** The classic API shape {from,to,occurred,subject,story}; occurred as the poster gave it, else the timeuuid's instant. */
  @Override
  public JsonObject toJson() {
    return new JsonObject()
        .put("from", "/participant/" + fromParticipantId)
        .put("to", "/participant/" + participantId)
        .put("occurred", givenOccurred != null ? givenOccurred
            : Instant.ofEpochMilli(TimeUuids.unixMillis(occurred)).toString())
        .put("subject", subject)
        .put("story", story);
  }
}
