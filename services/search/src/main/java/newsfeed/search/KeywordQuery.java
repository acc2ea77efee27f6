package newsfeed.search;

import newsfeed.common.model.Text;

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
    if (keywords == null || Text.isBlank(keywords)) {
      throw new IllegalArgumentException("keywords is required");
    }
    if (keywords.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("keywords must be at most " + MAX_LENGTH + " characters");
    }
    List<String> terms = new ArrayList<>();
    // words between white space as the contract counts it (Text): any other character is part of a word
    int start = -1;
    for (int i = 0; i <= keywords.length(); i++) {
      boolean space = i == keywords.length() || Text.isSpace(keywords.charAt(i));
      if (space && start >= 0) {
        terms.add(keywords.substring(start, i));
        start = -1;
      } else if (!space && start < 0) {
        start = i;
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
