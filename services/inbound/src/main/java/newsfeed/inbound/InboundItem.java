package newsfeed.inbound;

import newsfeed.common.TimeUuids;

import io.vertx.core.json.JsonObject;
import newsfeed.common.http.FeedPage;

import java.time.Instant;
import java.util.UUID;

/** One row of a participant's feed: a friend's post. occurred is the post's timeuuid (the eventId). */
public record InboundItem(long participantId, UUID occurred, long fromParticipantId, String subject,
                          String story) implements FeedPage.Entry {

  /** The classic API shape {from,to,occurred,subject,story}. */
  @Override
  public JsonObject toJson() {
    return new JsonObject()
        .put("from", "/participant/" + fromParticipantId)
        .put("to", "/participant/" + participantId)
        .put("occurred", Instant.ofEpochMilli(TimeUuids.unixMillis(occurred)).toString())
        .put("subject", subject)
        .put("story", story);
  }
}
