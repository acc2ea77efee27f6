package newsfeed.outbound;

import newsfeed.common.Links;
import newsfeed.common.OutboundPostedEvent;
import newsfeed.common.TimeUuids;

import io.vertx.core.json.JsonObject;
import newsfeed.common.http.FeedPage;

import java.time.Instant;
import java.util.UUID;

/** One post of a participant: a row of table `outbound`. occurred is its timeuuid, also the event's eventId. */
public record OutboundItem(long participantId, UUID occurred, String subject, String story) implements FeedPage.Entry {

  /** The classic API shape {from,occurred,subject,story}; occurred is the ISO-8601 instant of the timeuuid. */
  @Override
  public JsonObject toJson() {
    return new JsonObject()
        .put("from", Links.participant(participantId))
        .put("occurred", Instant.ofEpochMilli(TimeUuids.unixMillis(occurred)).toString())
        .put("subject", subject)
        .put("story", story);
  }

  /** The "outbound posted" event of this post; its post time is the timeuuid's, like the row's occurred. */
  public OutboundPostedEvent event() {
    return new OutboundPostedEvent(occurred, participantId, subject, story, TimeUuids.unixMillis(occurred));
  }
}
