package newsfeed.edge;

import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import newsfeed.common.model.Links;

import java.util.Map;

/**
 * The calls edge makes to the four services' REST API (docs/classic-api.md); shapes are theirs, unchanged. A write
 * carries the headers the mutation gives it (the caller's Authorization, an Idempotency-Key), so the service checks
 * the caller and the key itself.
 */
final class RestApi {
  private final Downstream socialGraph;
  private final Downstream outbound;
  private final Downstream inbound;
  private final Downstream search;

  RestApi(Downstream socialGraph, Downstream outbound, Downstream inbound, Downstream search) {
    this.socialGraph = socialGraph;
    this.outbound = outbound;
    this.inbound = inbound;
    this.search = search;
  }

  /** {id,name,link}. */
  Future<JsonObject> participant(long id) {
    return object(socialGraph.get("/participant/" + id, Map.of()));
  }

  Future<JsonObject> createParticipant(String name, Map<String, String> headers) {
    return object(socialGraph.post("/participant", withoutNulls(new JsonObject().put("name", name)), headers));
  }

  /** [{id,from,to}], every friend (the list's default page is all of them). */
  Future<JsonArray> friends(long id) {
    return array(socialGraph.get("/participant/" + id + "/friends", Map.of()));
  }

  Future<JsonObject> befriend(long from, long to, Map<String, String> headers) {
    return object(socialGraph.post("/participant/" + from + "/friends",
        new JsonObject().put("from", Links.participant(from)).put("to", Links.participant(to)), headers));
  }

  /** The first page of the poster's own feed, newest first: [{from,occurred,subject,story}]. */
  Future<JsonArray> outbound(long id) {
    return array(outbound.get("/participant/" + id + "/outbound", Map.of()));
  }

  Future<JsonObject> post(long from, String occurred, String subject, String story, Map<String, String> headers) {
    JsonObject body = new JsonObject().put("from", Links.participant(from)).put("occurred", occurred)
        .put("subject", subject).put("story", story);
    return object(outbound.post("/participant/" + from + "/outbound", withoutNulls(body), headers));
  }

  /** The first page of the participant's feed, newest first: [{from,to,occurred,subject,story}]. */
  Future<JsonArray> inbound(long id) {
    return array(inbound.get("/participant/" + id + "/inbound", Map.of()));
  }

  /** The posters' links whose posts match, as the classic search answers them. */
  Future<JsonArray> posters(String keywords) {
    return array(search.get("/outbound", Map.of("keywords", keywords)));
  }

  /** An absent GraphQL input field is left out, so the service judges it as it judges any client's body. */
  private static JsonObject withoutNulls(JsonObject body) {
    body.getMap().values().removeIf(java.util.Objects::isNull);
    return body;
  }

  private static Future<JsonObject> object(Future<Object> answer) {
    return answer.compose(v -> v instanceof JsonObject o ? Future.succeededFuture(o)
        : Future.failedFuture(new FieldError(503, FieldError.UNAVAILABLE, "a service answered an unexpected shape")));
  }

  private static Future<JsonArray> array(Future<Object> answer) {
    return answer.compose(v -> v instanceof JsonArray a ? Future.succeededFuture(a)
        : Future.failedFuture(new FieldError(503, FieldError.UNAVAILABLE, "a service answered an unexpected shape")));
  }
}
