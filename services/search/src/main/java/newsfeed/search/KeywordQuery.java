package newsfeed.search;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns the user's `keywords` into a Solr query that can only match words: every whitespace-separated term
 * becomes a quoted phrase with quotes and backslashes escaped, so query syntax in the input (`*:*`, `OR`,
 * `)`, `field:value`, `{!...}`) is searched literally instead of being interpreted. All terms must match.
 */
public final class KeywordQuery {
  public static final int MAX_LENGTH = 200;
  public static final int MAX_TERMS = 20;

  private final List<String> terms;

  private KeywordQuery(List<String> terms) {
    this.terms = terms;
  }

  /** @throws IllegalArgumentException with a user-facing message when the keywords are missing or too long. */
  public static KeywordQuery parse(String keywords) {
    if (keywords == null || keywords.isBlank()) {
      throw new IllegalArgumentException("keywords is required");
    }
    if (keywords.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("keywords must be at most " + MAX_LENGTH + " characters");
    }
    List<String> terms = new ArrayList<>();
    for (String t : keywords.trim().split("\\s+")) {
      if (!t.isEmpty()) {
        terms.add(t);
      }
    }
    if (terms.size() > MAX_TERMS) {
      throw new IllegalArgumentException("keywords must have at most " + MAX_TERMS + " words");
    }
    return new KeywordQuery(List.copyOf(terms));
  }

  public List<String> terms() {
    return terms;
  }

  /** The value of Solr's `q` parameter (edismax over subject and story, see the configset's /select). */
  public String toSolr() {
    StringBuilder q = new StringBuilder();
    for (String t : terms) {
      if (q.length() > 0) {
        q.append(' ');
      }
      q.append('"');
      for (int i = 0; i < t.length(); i++) {
        char c = t.charAt(i);
        if (c == '"' || c == '\\') {
          q.append('\\');
        }
        q.append(c);
      }
      q.append('"');
    }
    return q.toString();
  }
}
