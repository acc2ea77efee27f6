package newsfeed.common.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.vertx.core.Future;
import io.vertx.kafka.client.consumer.KafkaConsumerRecord;
import io.vertx.kafka.client.producer.KafkaHeader;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The consumers' side of a trace: the producer's span context travels in each record's headers (W3C traceparent,
 * put there by Vert.x's Kafka producer); processing a record becomes a child of it. A record without one (published
 * untraced) is processed untraced; one whose post was not sampled makes no span and passes "not sampled" on.
 */
public final class RecordTracing {
  private static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  private static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
  private static final AttributeKey<Long> PARTITION = AttributeKey.longKey("messaging.kafka.destination.partition");
  private static final AttributeKey<Long> OFFSET = AttributeKey.longKey("messaging.kafka.message.offset");
  private static final AttributeKey<Long> BATCH = AttributeKey.longKey("messaging.batch.message_count");

  private static final TextMapGetter<KafkaConsumerRecord<?, ?>> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(KafkaConsumerRecord<?, ?> record) {
      List<String> keys = new ArrayList<>();
      for (KafkaHeader h : record.headers()) {
        keys.add(h.key());
      }
      return keys;
    }

    @Override
    public String get(KafkaConsumerRecord<?, ?> record, String key) {
      String value = null;
      if (record != null) {
        for (KafkaHeader h : record.headers()) {
          if (h.key().equals(key)) {
            value = h.value().toString();   // the last one wins, as Kafka's lastHeader
          }
        }
      }
      return value;
    }
  };

  private RecordTracing() {
  }

  /** Runs {@code work} (the processing of one record) in a consumer span named {@code name}, child of its producer. */
  public static <T> Future<T> consume(KafkaConsumerRecord<?, ?> record, String name, Supplier<Future<T>> work) {
    return consumeBatch(List.of(record), name, work);
  }

  /**
   * One batch processed at once (e.g. one Solr update for many posts): each traced record gets its own consumer
   * span in its own trace, with the batch size as an attribute; the work runs in the first one's, so the store calls
   * it makes appear in that trace.
   */
  public static <T> Future<T> consumeBatch(List<? extends KafkaConsumerRecord<?, ?>> records, String name,
                                           Supplier<Future<T>> work) {
    Tracing t = Tracing.active();
    if (!t.enabled()) {
      return work.get();
    }
    List<Span> spans = new ArrayList<>();
    Context first = null;      // the parent of the first sampled record
    Context unsampled = null;  // a parent that decided "not sampled"
    for (KafkaConsumerRecord<?, ?> r : records) {
      Context parent = t.openTelemetry().getPropagators().getTextMapPropagator().extract(Context.root(), r, HEADERS);
      SpanContext producer = Span.fromContext(parent).getSpanContext();
      if (!producer.isValid()) {
        continue;
      }
      if (!producer.isSampled()) {
        unsampled = unsampled == null ? parent : unsampled;
        continue;
      }
      spans.add(t.tracer().spanBuilder(name).setParent(parent).setSpanKind(SpanKind.CONSUMER)
          .setAttribute(SYSTEM, "kafka").setAttribute(DESTINATION, r.topic())
          .setAttribute(PARTITION, (long) r.partition()).setAttribute(OFFSET, r.offset())
          .setAttribute(BATCH, (long) records.size()).startSpan());
      first = first == null ? parent : first;
    }
    if (spans.isEmpty()) {
      // records of untraced posts run untraced; those of unsampled posts pass that decision on to the calls they make
      return unsampled == null ? Tracing.untraced(work) : Tracing.within(unsampled, work);
    }
    List<Span> others = spans.subList(1, spans.size());
    return Tracing.within(first, spans.get(0), work).andThen(ar -> others.forEach(s -> Tracing.end(s, ar.cause())));
  }
}
