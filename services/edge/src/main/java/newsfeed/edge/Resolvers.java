package newsfeed.edge;

import graphql.schema.DataFetcher;
import graphql.schema.DataFetchingEnvironment;
import graphql.schema.idl.RuntimeWiring;
import io.vertx.core.Future;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import newsfeed.common.auth.BearerTokens;
import newsfeed.common.auth.Caller;
import newsfeed.common.http.ApiError;
import newsfeed.common.http.IdempotencyKey;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * Every field of classic.graphqls, each resolved by one call to a service's REST API (or none, when the id is
 * all it needs and a service already answered it). Nothing here decides what is valid: the services do, and
 * their 4xx become the field's error.
 */
final class Resolvers {
  /** The Participant fields resolved by a call that answers 404 for an unknown participant. */
  private static final Set<String> ASKS_ITS_SERVICE = Set.of("name", "link", "friends", "inbound", "outbound");

  private final RestApi api;
  private final BearerTokens tokens;

  Resolvers(RestApi api, BearerTokens tokens) {
    this.api = api;
    this.tokens = tokens;
  }

  RuntimeWiring wiring() {
    return RuntimeWiring.newRuntimeWiring()
        .type("Query", t -> t
            .dataFetcher("participant", async(this::askedParticipant))
            .dataFetcher("posters", async(env -> api.posters(env.getArgument("keywords")).map(Resolvers::refs))))
        .type("Mutation", t -> t
            .dataFetcher("createParticipant", mutation((env, caller) -> {
              Map<String, Object> input = env.getArgument("input");
              return api.createParticipant((String) input.get("name"), writeHeaders(env, input))
                  .map(p -> new ParticipantRef(p.getLong("id"), p));
            }))
            .dataFetcher("createFriend", mutation((env, caller) -> {
              Map<String, Object> input = env.getArgument("input");
              long from = Ids.participant("from_id", input.get("from_id"));
              long to = Ids.participant("to_id", input.get("to_id"));
              writesAs(caller, from);
              return api.befriend(from, to, writeHeaders(env, Map.of()));
            }))
            .dataFetcher("createOutbound", mutation((env, caller) -> {
              Map<String, Object> input = env.getArgument("input");
              long from = Ids.participant("from_id", input.get("from_id"));
              writesAs(caller, from);
              return api.post(from, (String) input.get("occurred"), (String) input.get("subject"),
                  (String) input.get("story"), writeHeaders(env, input));
            })))
        .type("Participant", t -> t
            .dataFetcher("id", env -> Ids.of(env.<ParticipantRef>getSource().id()))
            .dataFetcher("name", async(env -> participant(env).map(p -> p.getString("name"))))
            .dataFetcher("link", async(env -> participant(env).map(p -> p.getString("link"))))
            .dataFetcher("friends", async(env -> {
              long id = env.<ParticipantRef>getSource().id();
              return api.friends(id).map(list -> friendsOf(id, list));
            }))
            .dataFetcher("inbound",
                async(env -> api.inbound(env.<ParticipantRef>getSource().id()).map(Resolvers::objects)))
            .dataFetcher("outbound",
                async(env -> api.outbound(env.<ParticipantRef>getSource().id()).map(Resolvers::objects))))
        .type("Friend", t -> t
            .dataFetcher("id", env -> String.valueOf(env.<JsonObject>getSource().getValue("id")))
            .dataFetcher("from", link("from"))
            .dataFetcher("to", link("to")))
        .type("Inbound", t -> t
            .dataFetcher("from", link("from"))
            .dataFetcher("to", link("to"))
            .dataFetcher("occurred", text("occurred"))
            .dataFetcher("subject", text("subject"))
            .dataFetcher("story", text("story")))
        .type("Outbound", t -> t
            .dataFetcher("from", link("from"))
            .dataFetcher("occurred", text("occurred"))
            .dataFetcher("subject", text("subject"))
            .dataFetcher("story", text("story")))
        .build();
  }

  private Future<JsonObject> participant(DataFetchingEnvironment env) {
    return Participants.of(env.getGraphQlContext(), api).load(env.getSource());
  }

  /**
   * `participant(id)`: an id a client asked for, so it may belong to no one. When the query selects a field whose
   * call asks a service about this participant ({@link #ASKS_ITS_SERVICE}: social-graph, outbound or inbound
   * answer 404 for an unknown id) that call is the check; otherwise (`{ id }`, `{ __typename }`) the participant
   * is loaded here, through the request's {@link Participants}, so an unknown id is the same 404 whatever is
   * selected, and `{ id name }` or the same id asked twice still costs one call.
   *
   * <p>Every other participant edge resolves needs no check: a service named it in an answer, so it is what
   * that service holds, and asking social-graph again would only double the calls. A create's answer; the ends
   * of a friendship social-graph stored (it refuses unknown ids); the poster of a post outbound accepted (it
   * refuses an unknown poster, or takes the post when social-graph cannot tell: its rule, not edge's); the ends
   * of feed items and search's posters, all written from such posts. Participants are never deleted.
   */
  private Future<ParticipantRef> askedParticipant(DataFetchingEnvironment env) {
    ParticipantRef ref = ParticipantRef.of(Ids.participant("id", env.getArgument("id")));
    boolean checkedByItsFields = env.getSelectionSet().getImmediateFields().stream()
        .anyMatch(f -> ASKS_ITS_SERVICE.contains(f.getName()));
    if (checkedByItsFields) {
      return Future.succeededFuture(ref);
    }
    return Participants.of(env.getGraphQlContext(), api).load(ref).map(p -> new ParticipantRef(ref.id(), p));
  }

  /** A fetcher of a Vert.x future: graphql-java waits on its CompletionStage. */
  private static DataFetcher<CompletionStage<Object>> async(Function<DataFetchingEnvironment, Future<?>> fetch) {
    return env -> {
      Future<?> f;
      try {
        f = fetch.apply(env);
      } catch (FieldError e) {
        f = Future.failedFuture(e);
      }
      return f.<Object>map(v -> v).toCompletionStage();
    };
  }

  /**
   * A mutation changes data, so it is refused on GET (a link or a prefetch must never create anything), and with
   * AUTH_ENABLED it runs only for a caller whose bearer token verifies (else a 401 field error, before any call).
   * Once its service has stored it, the answer is a 200 ({@link AnswerStatus}).
   */
  private DataFetcher<CompletionStage<Object>> mutation(Write write) {
    return async(env -> {
      RoutingContext rc = env.getGraphQlContext().get(RoutingContext.class);
      if (rc != null && rc.request().method() != HttpMethod.POST) {
        throw new FieldError(405, "method_not_allowed", "mutations are sent with POST");
      }
      return tokens.caller(authorization(env))
          .recover(err -> Future.failedFuture(err instanceof ApiError e ? FieldError.of(e) : err))
          .compose(caller -> write.run(env, caller))   // a FieldError it throws fails the future
          .onSuccess(stored -> {
            if (rc != null) {
              AnswerStatus.stored(rc);
            }
          });
    });
  }

  /** What a mutation does once its caller is known. */
  private interface Write {
    Future<?> run(DataFetchingEnvironment env, Caller caller);
  }

  /** 403 unless the caller may write as participant {@code id} (anyone may while authentication is off). */
  private static void writesAs(Caller caller, long id) {
    try {
      caller.requireParticipant(id);
    } catch (ApiError e) {
      throw FieldError.of(e);
    }
  }

  /**
   * The headers a mutation's call carries: the caller's Authorization header (the service checks the caller itself)
   * and the input's idempotency_key as Idempotency-Key, each when there is one; a key no header may carry is a 400
   * here, by the services' rule.
   */
  private static Map<String, String> writeHeaders(DataFetchingEnvironment env, Map<String, Object> input) {
    Map<String, String> headers = new HashMap<>();
    String authorization = authorization(env);
    if (authorization != null) {
      headers.put(HttpHeaders.AUTHORIZATION.toString(), authorization);
    }
    if (input.get("idempotency_key") instanceof String key) {
      try {
        headers.put(IdempotencyKey.HEADER, IdempotencyKey.parse(key));
      } catch (ApiError e) {
        throw FieldError.of(e);
      }
    }
    return headers;
  }

  /** The caller's Authorization header; null without one. */
  private static String authorization(DataFetchingEnvironment env) {
    RoutingContext rc = env.getGraphQlContext().get(RoutingContext.class);
    return rc == null ? null : rc.request().getHeader(HttpHeaders.AUTHORIZATION);
  }

  private static DataFetcher<ParticipantRef> link(String field) {
    return env -> Ids.ref(env.<JsonObject>getSource().getValue(field));
  }

  private static DataFetcher<String> text(String field) {
    return env -> env.<JsonObject>getSource().getString(field);
  }

  /** The friend of each friendship of {@code id}: the end that is not {@code id}. */
  private static List<ParticipantRef> friendsOf(long id, JsonArray friendships) {
    List<ParticipantRef> friends = new ArrayList<>();
    for (JsonObject f : objects(friendships)) {
      ParticipantRef to = Ids.ref(f.getValue("to"));
      friends.add(to.id() == id ? Ids.ref(f.getValue("from")) : to);
    }
    return friends;
  }

  private static List<ParticipantRef> refs(JsonArray links) {
    List<ParticipantRef> refs = new ArrayList<>();
    for (Object link : links) {
      refs.add(Ids.ref(link));
    }
    return refs;
  }

  private static List<JsonObject> objects(JsonArray items) {
    List<JsonObject> objects = new ArrayList<>();
    for (Object item : items) {
      if (!(item instanceof JsonObject o)) {
        throw new FieldError(503, FieldError.UNAVAILABLE, "a service answered an unexpected shape");
      }
      objects.add(o);
    }
    return objects;
  }
}
