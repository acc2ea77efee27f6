package newsfeed.socialgraph;

import io.vertx.core.json.JsonObject;
import newsfeed.common.model.Links;

/** A row of `participant`; the classic API shape is {id, name, link}. */
public record Participant(long id, String name) {

  public JsonObject toJson() {
    return new JsonObject().put("id", id).put("name", name).put("link", Links.participant(id));
  }
}
