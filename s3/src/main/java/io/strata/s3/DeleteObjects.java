package io.strata.s3;

import io.strata.core.status.StrataException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * DeleteObjects ({@code POST ?delete}): up to 1,000 keys in an XML body of at most 2 MiB, each
 * deleted on its own and reported as deleted or as its error. The body is parsed with DTDs and
 * external entities off: a request cannot make the endpoint read files or expand entities.
 */
final class DeleteObjects {
  private static final int MAX_KEYS = 1000;
  private static final int MAX_BODY = 2 << 20;

  private final ObjectWrites writes;

  DeleteObjects(ObjectWrites writes) {
    this.writes = writes;
  }

  void run(S3Request r, InputStream body, S3Response out) throws IOException {
    BucketOps.requireBucket(writes.fs(), r.bucket());
    byte[] bytes = body.readNBytes(MAX_BODY + 1);
    if (bytes.length > MAX_BODY) {
      throw S3Error.malformedXml("a DeleteObjects body is at most 2 MiB");
    }
    Element root = parse(bytes).getDocumentElement();
    if (!root.getLocalName().equals("Delete")) {
      throw S3Error.malformedXml("the body is not a Delete document");
    }
    boolean quiet = "true".equals(text(root, "Quiet"));
    List<String> keys = new ArrayList<>();
    NodeList objects = root.getElementsByTagNameNS("*", "Object");
    for (int i = 0; i < objects.getLength(); i++) {
      String key = text((Element) objects.item(i), "Key");
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

  private static Document parse(byte[] bytes) {
    try {
      DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
      f.setNamespaceAware(true);
      f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      f.setFeature("http://xml.org/sax/features/external-general-entities", false);
      f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
      f.setXIncludeAware(false);
      f.setExpandEntityReferences(false);
      DocumentBuilder b = f.newDocumentBuilder();
      b.setErrorHandler(null);
      return b.parse(new ByteArrayInputStream(bytes));
    } catch (ParserConfigurationException e) {
      throw new IllegalStateException("the JDK's XML parser cannot be made safe", e);
    } catch (SAXException | IOException e) {
      throw S3Error.malformedXml(
          "The XML you provided was not well-formed or did not validate against our published"
              + " schema");
    }
  }

  private static String text(Element parent, String name) {
    NodeList nodes = parent.getElementsByTagNameNS("*", name);
    return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent();
  }
}
