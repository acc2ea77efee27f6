package newsfeed.search;

import org.junit.jupiter.api.Test;

import java.util.List;

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
    // white space as the contract's pattern counts it: a no-break space too, a control character not
    assertThrows(IllegalArgumentException.class, () -> KeywordQuery.parse("\u00a0\u3000"));
    assertEquals(List.of("\u001f"), KeywordQuery.parse("\u001f").terms());
    assertEquals(List.of("a", "b"), KeywordQuery.parse("\u2003a\u00a0b\n").terms());
    assertThrows(IllegalArgumentException.class, () -> KeywordQuery.parse("x".repeat(KeywordQuery.MAX_LENGTH + 1)));
    assertThrows(IllegalArgumentException.class, () -> KeywordQuery.parse("w ".repeat(KeywordQuery.MAX_TERMS + 1)));
    assertEquals(KeywordQuery.MAX_TERMS, KeywordQuery.parse("w ".repeat(KeywordQuery.MAX_TERMS)).terms().size());
  }
}
