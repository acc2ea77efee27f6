package newsfeed.search;

import newsfeed.common.http.ApiError;
import newsfeed.common.http.Params;
import newsfeed.common.http.StoreFailure;
import newsfeed.common.metrics.OperationTimer;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * `GET /outbound?keywords=...[&posts=true][&limit=]`: the classic search. Without posts, the distinct senders
 * (participant links) of the matching posts; with posts=true, the matching posts {from,occurred,subject,story}.
 */
public final class SearchHandler {
  private static final Logger LOG = LoggerFactory.getLogger(SearchHandler.class);
  static final int DEFAULT_LIMIT = 20;
  static final int MAX_LIMIT = 100;

  private final SolrIndex index;
  private final OperationTimer search;

  public SearchHandler(SolrIndex index, MeterRegistry registry) {
    this.index = index;
    this.search = new OperationTimer(registry, "search", "search");
  }

  public void get(RoutingContext ctx) {
    KeywordQuery query = keywords(ctx.queryParams().getAll("keywords"));
    int limit = Params.limit(ctx.queryParams().get("limit"), DEFAULT_LIMIT, MAX_LIMIT);
    boolean posts = Params.bool(ctx.queryParams().get("posts"), "posts");
    search.time(() -> find(query, limit, posts))
        .recover(err -> Future.failedFuture(failure(err)))
        .onSuccess(body -> ctx.response().putHeader("Content-Type", "application/json").end(body.encode()))
        .onFailure(ctx::fail);
  }

  private Future<JsonArray> find(KeywordQuery query, int limit, boolean posts) {
    return posts ? index.posts(query, limit).map(JsonArray::new) : index.senders(query, limit).map(JsonArray::new);
  }

  // Solr rejected a query we built: our bug, reported without details; anything else is Solr failing us
  private static Throwable failure(Throwable err) {
    if (err instanceof SolrIndex.SolrRejectedException) {
      LOG.error("search query rejected: {}", err.getMessage());
      return new ApiError(500, "internal_error", "the search failed");
    }
    return StoreFailure.wrap(err, "solr");
  }

  private static KeywordQuery keywords(java.util.List<String> values) {
    if (values.size() > 1) {
      throw new ApiError(400, "invalid_keywords", "keywords must be given once");
    }
    try {
      return KeywordQuery.parse(values.isEmpty() ? null : values.get(0));
    } catch (IllegalArgumentException e) {
      throw new ApiError(400, "invalid_keywords", e.getMessage());
    }
  }
}
