package newsfeed.search;

import newsfeed.common.model.Links;
import newsfeed.common.events.OutboundPostedEvent;
import newsfeed.common.events.OutboundRetractedEvent;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import newsfeed.common.kafka.PermanentFailure;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import newsfeed.common.metrics.StoreTimers;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The Solr collection `outbound` over its HTTP JSON API (schema: charts/newsfeed/files/schema/solr/conf).
 * One document per post, id = eventId, so indexing a redelivered event replaces the same document; its field
 * written (the event's write timestamp) orders a post, its retraction and a retry of it, whatever order they come in.
 */
public final class SolrIndex {
  /** Solr makes indexed documents searchable within this many ms (the configset soft-commits every second too). */
  static final int COMMIT_WITHIN_MS = 1000;
  private static final long TIMEOUT_MS = 10_000;

  private final WebClient web;
  private final String coreUrl;
  private final String authorization;
  private final Timer indexOk;
  private final Timer indexError;
  private final Timer searchOk;
  private final Timer searchError;

  public SolrIndex(WebClient web, String solrUrl, String collection, SolrCredentials credentials,
                   MeterRegistry registry) {
    this.web = web;
    this.coreUrl = (solrUrl.endsWith("/") ? solrUrl : solrUrl + "/") + collection;
    this.authorization = credentials.authorization();
    this.indexOk = StoreTimers.timer(registry, "solr", "index", "success");
    this.indexError = StoreTimers.timer(registry, "solr", "index", "error");
    this.searchOk = StoreTimers.timer(registry, "solr", "search", "success");
    this.searchError = StoreTimers.timer(registry, "solr", "search", "error");
  }

  /** Adds or replaces the documents; succeeds once Solr accepted them (searchable within a second). */
  public Future<Void> index(List<OutboundPostedEvent> events) {
    JsonArray docs = new JsonArray();
    for (OutboundPostedEvent e : events) {
      JsonObject doc = new JsonObject()
          .put("id", e.eventId().toString())
          .put("participant_id", e.participantId())
          .put("from", Links.participant(e.participantId()))
          .put("occurred", e.occurred().toString())
          .put("subject", e.subject())
          .put("story", e.story())
          .put("written", e.writtenMicros());
      if (e.givenOccurred() != null) {
        doc.put("occurred_text", e.givenOccurred());   // shown as given; occurred (the server's time) sorts
      }
      docs.add(doc);
    }
    return update(docs);
  }

  /**
   * Deletes the documents the retractions cancel, each one by id at the retraction's write timestamp: Solr keeps a
   * tombstone there (solrconfig.xml), so the post it cancels stays out if it is indexed later, and a later post of the
   * same id (a retry that made the post after all) stays in. Idempotent.
   */
  public Future<Void> retract(List<OutboundRetractedEvent> events) {
    List<Future<Void>> deletes = new ArrayList<>(events.size());
    for (OutboundRetractedEvent e : events) {
      deletes.add(update(new JsonObject().put("delete", new JsonObject().put("id", e.eventId().toString())),
          "written", Long.toString(e.writtenMicros())));
    }
    return Future.all(deletes).mapEmpty();
  }

  // an update request; params: name, value, ... (a retraction's version)
  private Future<Void> update(Object commands, String... params) {
    HttpRequest<Buffer> req = authorized(web.postAbs(coreUrl + "/update"))
        .addQueryParam("commitWithin", Integer.toString(COMMIT_WITHIN_MS))
        .addQueryParam("wt", "json")
        .timeout(TIMEOUT_MS);
    for (int i = 0; i + 1 < params.length; i += 2) {
      req.addQueryParam(params[i], params[i + 1]);
    }
    return StoreTimers.time(() -> req.sendJson(commands)
        .compose(SolrIndex::expectOk), indexOk, indexError)
        .mapEmpty();
  }

  /** The distinct senders (participant links) of posts matching every keyword, most matches first. */
  public Future<List<String>> senders(KeywordQuery query, int limit) {
    HttpRequest<Buffer> req = select(query)
        .addQueryParam("rows", "0")
        .addQueryParam("facet", "true")
        .addQueryParam("facet.field", "from")
        .addQueryParam("facet.mincount", "1")
        .addQueryParam("facet.limit", Integer.toString(limit));
    return StoreTimers.time(() -> req.send().compose(SolrIndex::expectOk), searchOk, searchError)
        .map(body -> {
          JsonArray counts = body.getJsonObject("facet_counts").getJsonObject("facet_fields").getJsonArray("from");
          Set<String> links = new LinkedHashSet<>();
          for (int i = 0; i < counts.size(); i += 2) {
            links.add(counts.getString(i));
          }
          return List.copyOf(links);
        });
  }

  /**
   * The matching posts themselves, newest first (by the server's time, field occurred), in the classic outbound
   * shape {from,occurred,subject,story}; occurred as the poster gave it (occurred_text) when they did.
   */
  public Future<List<JsonObject>> posts(KeywordQuery query, int limit) {
    HttpRequest<Buffer> req = select(query)
        .addQueryParam("rows", Integer.toString(limit))
        .addQueryParam("sort", "occurred desc, id desc")
        .addQueryParam("fl", "from,occurred,occurred_text,subject,story");
    return StoreTimers.time(() -> req.send().compose(SolrIndex::expectOk), searchOk, searchError)
        .map(body -> {
          JsonArray docs = body.getJsonObject("response").getJsonArray("docs");
          List<JsonObject> posts = new ArrayList<>(docs.size());
          for (int i = 0; i < docs.size(); i++) {
            JsonObject d = docs.getJsonObject(i);
            posts.add(new JsonObject()
                .put("from", d.getString("from"))
                .put("occurred", d.getString("occurred_text", d.getString("occurred")))
                .put("subject", d.getString("subject", ""))
                .put("story", d.getString("story", "")));
          }
          return posts;
        });
  }

  /** Readiness: the core answers a query. */
  public Future<Void> ping() {
    return authorized(web.getAbs(coreUrl + "/select"))
        .addQueryParam("q", "*:*").addQueryParam("defType", "lucene").addQueryParam("rows", "0")
        .addQueryParam("wt", "json")
        .timeout(2_000)
        .send()
        .compose(SolrIndex::expectOk)
        .mapEmpty();
  }

  private HttpRequest<Buffer> select(KeywordQuery query) {
    return authorized(web.getAbs(coreUrl + "/select"))
        .addQueryParam("q", query.toSolr())
        .addQueryParam("q.op", "AND")
        .addQueryParam("wt", "json")
        .timeout(TIMEOUT_MS);
  }

  // every request to Solr goes through here: with credentials it carries them (Solr's BasicAuthPlugin)
  private HttpRequest<Buffer> authorized(HttpRequest<Buffer> req) {
    return authorization == null ? req : req.putHeader("Authorization", authorization);
  }

  private static Future<JsonObject> expectOk(HttpResponse<Buffer> resp) {
    JsonObject body;
    try {
      body = resp.bodyAsJsonObject();
    } catch (DecodeException | ClassCastException e) {
      body = null;
    }
    if (resp.statusCode() / 100 == 2 && body != null) {
      return Future.succeededFuture(body);
    }
    String message = "Solr answered " + resp.statusCode();
    if (body != null && body.getJsonObject("error") != null) {
      message += ": " + body.getJsonObject("error").getString("msg");
    }
    int status = resp.statusCode();
    return Future.failedFuture(status >= 500 || status == 404 || status == 408 || status == 429
        ? new SolrUnavailableException(message) : new SolrRejectedException(message));
  }

  /** Solr refused the request itself (a 4xx): sending it again would get the same answer. */
  public static final class SolrRejectedException extends PermanentFailure {
    public SolrRejectedException(String message) {
      super(message);
    }
  }

  /** Solr (or the collection) cannot serve right now: the API answers 503. */
  public static final class SolrUnavailableException extends RuntimeException {
    public SolrUnavailableException(String message) {
      super(message, null, false, false);
    }
  }
}
