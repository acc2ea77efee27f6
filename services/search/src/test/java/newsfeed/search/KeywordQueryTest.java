package newsfeed.search;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class KeywordQueryTest {

  @Test
  void everyTermBecomesAQuotedPhrase() {
    assertEquals("\"hello\" \"world\"", KeywordQuery.parse("  hello   world ").toSolr());
  }

  @Test
  void querySyntaxIsQuotedNotInterpreted() {
    assertEquals("\"*:*\"", KeywordQuery.parse("*:*").toSolr());
    assertEquals("\"a\" \"OR\" \"b)\"", KeywordQuery.parse("a OR b)").toSolr());
    assertEquals("\"subject:x\" \"{!lucene}y\"", KeywordQuery.parse("subject:x {!lucene}y").toSolr());
  }

  @Test
  void quotesAndBackslashesAreEscapedInsideThePhrase() {
    assertEquals("\"say\\\"hi\\\"\" \"c:\\\\dir\"", KeywordQuery.parse("say\"hi\" c:\\dir").toSolr());
    assertEquals("\"\\\"\"", KeywordQuery.parse("\"").toSolr());
  }

  @Test
  void missingBlankOrTooLongKeywordsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> KeywordQuery.parse(null));
    assertThrows(IllegalArgumentException.class, () -> KeywordQuery.parse(""));
    assertThrows(IllegalArgumentException.class, () -> KeywordQuery.parse(" \t "));
    assertThrows(IllegalArgumentException.class, () -> KeywordQuery.parse("x".repeat(KeywordQuery.MAX_LENGTH + 1)));
    assertThrows(IllegalArgumentException.class, () -> KeywordQuery.parse("w ".repeat(KeywordQuery.MAX_TERMS + 1)));
    assertEquals(KeywordQuery.MAX_TERMS, KeywordQuery.parse("w ".repeat(KeywordQuery.MAX_TERMS)).terms().size());
  }
}
