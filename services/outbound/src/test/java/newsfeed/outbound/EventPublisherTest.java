package newsfeed.outbound;

import newsfeed.common.kafka.KafkaSecurity;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The producer settings of docs/reliability.md: acknowledged by all replicas, no duplicates, never an endless wait. */
class EventPublisherTest {

  @Test
  void theProducerIsSafeAndBounded() {
    Map<String, String> c = EventPublisher.producerConfig("k:9092", KafkaSecurity.PLAINTEXT);
    assertEquals("k:9092", c.get("bootstrap.servers"));
    assertEquals("all", c.get("acks"));
    assertEquals("true", c.get("enable.idempotence"));
    assertTrue(Integer.parseInt(c.get("max.in.flight.requests.per.connection")) <= 5, "idempotence needs <= 5");
    int delivery = Integer.parseInt(c.get("delivery.timeout.ms"));
    int request = Integer.parseInt(c.get("request.timeout.ms"));
    int linger = Integer.parseInt(c.get("linger.ms"));
    int block = Integer.parseInt(c.get("max.block.ms"));
    assertTrue(delivery >= request + linger, "Kafka rejects delivery.timeout.ms < linger.ms + request.timeout.ms");
    assertTrue(block + delivery <= 10_000, "a post waits at most 10 s for Kafka");
  }

  @Test
  void onlyAFailedLoginIsSentOnceMore() {
    assertTrue(EventPublisher.loginFailed(new SaslAuthenticationException("invalid credentials")));
    assertTrue(EventPublisher.loginFailed(new KafkaException(new SaslAuthenticationException("wrapped"))));
    // the broker may have the record (a timeout) or refused it for good (an ACL): no second send
    assertFalse(EventPublisher.loginFailed(new TimeoutException("expired")));
    assertFalse(EventPublisher.loginFailed(new TopicAuthorizationException("no Write")));
    assertFalse(EventPublisher.loginFailed(new IllegalStateException("other")));
  }
}
