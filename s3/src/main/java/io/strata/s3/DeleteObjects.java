package io.strata.s3;

import io.strata.core.status.StrataException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * DeleteObjects ({@code POST ?delete}): up to 1,000 keys in an XML body of at most 2 MiB, each
 * deleted on its own and reported as deleted or as its error ({@link S3XmlReader} reads the body).
 */
final class DeleteObjects {
  private static final int MAX_KEYS = 1000;

  private final ObjectWrites writes;

  DeleteObjects(ObjectWrites writes) {
    this.writes = writes;
  }

  void run(S3Request r, InputStream body, S3Response out) throws IOException {
    BucketOps.requireBucket(writes.fs(), r.bucket());
    S3XmlReader.Body delete = S3XmlReader.read(body, "Delete");
    List<Map<String, String>> objects = delete.items("Object");
    boolean quiet = "true".equals(delete.field("Quiet"));
    List<String> keys = new ArrayList<>();
    for (Map<String, String> o : objects) {
      String key = o.get("Key");
      if (key == null) {
        throw S3Error.malformedXml("an Object without a Key");
      }
      keys.add(key);
    }
    if (keys.isEmpty() || keys.size() > MAX_KEYS) {
      throw S3Error.malformedXml("DeleteObjects takes 1 to 1000 keys, not " + keys.size());
    }
    S3Xml xml = S3Xml.document("DeleteResult");
    for (String key : keys) {
      try {
        writes.deleteKey(r.bucket(), key);
        if (!quiet) {
          xml.open("Deleted").element("Key", key).close("Deleted");
        }
      } catch (S3Error e) {
        error(xml, key, e);
      } catch (StrataException e) {
        error(xml, key, S3Error.of(e, key));
      }
    }
    out.xml(200, xml.end("DeleteResult"));
  }

  private static void error(S3Xml xml, String key, S3Error e) {
    xml.open("Error")
        .element("Key", key)
        .element("Code", e.code)
        .element("Message", e.getMessage())
        .close("Error");
  }
}
