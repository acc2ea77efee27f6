package newsfeed.common.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class FormBodyTest {

  private static JsonObject parse(String body) {
    return FormBody.parse(Buffer.buffer(body.getBytes(StandardCharsets.ISO_8859_1)));
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  @Test
  void aClassicOutboundFormBecomesItsFields() {
    // what a classic client sends: every value URL-encoded, spaces as '+'
    String body = "from=" + enc("/participant/42") + "&occurred=2026-11-22&subject=" + enc("12 345 ")
        + "&story=" + enc("été & co = 100%");
    assertEquals(new JsonObject().put("from", "/participant/42").put("occurred", "2026-11-22")
        .put("subject", "12 345 ").put("story", "été & co = 100%"), parse(body));
  }

  @Test
  void emptyPartsAndValuesAreKept() {
    assertEquals(new JsonObject().put("name", "").put("to", "7"), parse("&name=&&to=7&"));
    assertEquals(new JsonObject().put("name", ""), parse("name"));
    assertEquals(new JsonObject(), parse(""));
    assertEquals(new JsonObject(), FormBody.parse(null));
  }

  @Test
  void rawUtf8BytesAreDecodedAsUtf8() {
    JsonObject fields = FormBody.parse(Buffer.buffer("name=Zoë ✓".getBytes(StandardCharsets.UTF_8)));
    assertEquals("Zoë ✓", fields.getString("name"));
  }

  @Test
  void ambiguousOrUndecodableFormsAre400() {
    for (String bad : new String[] {"name=a&name=b", "name=%", "name=%4", "name=%zz", "name=%ff%fe", "na%e9me=x"}) {
      ApiError e = assertThrows(ApiError.class, () -> parse(bad), bad);
      assertEquals(400, e.status(), bad);
    }
    ApiError e = assertThrows(ApiError.class,
        () -> FormBody.parse(Buffer.buffer(new byte[] {'n', '=', (byte) 0xff})));
    assertEquals(400, e.status());
  }
}
