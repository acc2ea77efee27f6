package newsfeed.edge;

import graphql.GraphQLContext;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

import java.util.HashMap;
import java.util.Map;

/**
 * The participants one GraphQL request needs, each asked of social-graph once: `friends { name }` or a name
 * asked twice costs one GET per distinct participant. Lives in the request's GraphQLContext; a request's
 * fetchers run on its event loop, so a plain map is enough.
 */
final class Participants {
  private final RestApi api;
  private final Map<Long, Future<JsonObject>> loaded = new HashMap<>();

  private Participants(RestApi api) {
    this.api = api;
  }

  static Participants of(GraphQLContext context, RestApi api) {
    return context.computeIfAbsent(Participants.class, k -> new Participants(api));
  }

  Future<JsonObject> load(ParticipantRef ref) {
    if (ref.known() != null) {
      return Future.succeededFuture(ref.known());
    }
    return loaded.computeIfAbsent(ref.id(), api::participant);
  }
}
