package newsfeed.socialgraph;

import io.vertx.core.json.JsonObject;
import newsfeed.common.model.Links;

/** One directed row of `friendship`; the classic API shape is {id, from, to} with participant links. */
public record Friend(long id, long from, long to) {

  public JsonObject toJson() {
    return new JsonObject().put("id", id).put("from", Links.participant(from)).put("to", Links.participant(to));
  }
}
