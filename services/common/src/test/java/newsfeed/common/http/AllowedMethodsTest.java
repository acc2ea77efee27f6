package newsfeed.common.http;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which route templates name a path, for a 405's Allow header (the answer itself: FailureHandlerTest). */
class AllowedMethodsTest {
  @Test
  void aParameterStandsForOneNonEmptySegment() {
    assertTrue(AllowedMethods.matches("/participant/:id/friends", "/participant/42/friends"));
    assertTrue(AllowedMethods.matches("/participant/:id/friends", "/participant/42/friends/"));
    assertFalse(AllowedMethods.matches("/participant/:id/friends", "/participant//friends"));
    assertFalse(AllowedMethods.matches("/participant/:id/friends", "/participant/42/outbound"));
    assertFalse(AllowedMethods.matches("/participant/:id", "/participant/42/friends"));
    assertFalse(AllowedMethods.matches("/participant/:id", "/participant"));
  }

  @Test
  void literalsAndPrefixesMatchAsVertxRoutesThem() {
    assertTrue(AllowedMethods.matches("/", "/"));
    assertFalse(AllowedMethods.matches("/", "/graphql"));
    assertTrue(AllowedMethods.matches("/graphql", "/graphql/"));
    assertTrue(AllowedMethods.matches("/health/*", "/health/ready"));
    assertFalse(AllowedMethods.matches("/health/*", "/metrics"));
  }
}
