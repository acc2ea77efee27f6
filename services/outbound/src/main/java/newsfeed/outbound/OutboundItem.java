package newsfeed.outbound;

import newsfeed.common.model.Links;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.TimeUuids;

import io.vertx.core.json.JsonObject;
import newsfeed.common.http.FeedPage;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One post of a participant: a row of table `outbound`. occurred is its timeuuid, also the event's eventId, and
 * orders the feed; givenOccurred is the poster's own `occurred` (column occurred_text), null when none was given.
 */
public record OutboundItem(long participantId, UUID occurred, String givenOccurred, String subject, String story)
    implements FeedPage.Entry {

  /** The classic API shape {from,occurred,subject,story}; occurred as the poster gave it, else the timeuuid's instant. */
  @Override
  public JsonObject toJson() {
    return new JsonObject()
        .put("from", Links.participant(participantId))
        .put("occurred", givenOccurred != null ? givenOccurred
            : Instant.ofEpochMilli(TimeUuids.unixMillis(occurred)).toString())
        .put("subject", subject)
        .put("story", story);
  }

  /** The same post as {@code other} would make: poster, given occurred, subject and story (not the timeuuid). */
  public boolean samePostAs(OutboundItem other) {
    return participantId == other.participantId && Objects.equals(givenOccurred, other.givenOccurred)
        && subject.equals(other.subject) && story.equals(other.story);
  }

  /** The "outbound posted" event of this post; its post time is the timeuuid's, like the row's occurred. */
  public OutboundPostedEvent event() {
    return new OutboundPostedEvent(occurred, participantId, subject, story, TimeUuids.unixMillis(occurred),
        givenOccurred);
  }

  /** The event of this post as written at write timestamp {@code micros}. */
  public OutboundPostedEvent event(long micros) {
    return event().writtenAt(micros);
  }
}
