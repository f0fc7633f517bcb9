package io.strata.s3;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * The request bodies S3 takes as XML (DeleteObjects, CompleteMultipartUpload): at most 2 MiB,
 * parsed with DTDs and external entities off, so that a request cannot make the endpoint read files
 * or expand entities. Gives the text of each repeated element's children, by name.
 */
final class S3XmlReader {
  static final int MAX_BODY = 2 << 20;

  private S3XmlReader() {}

  /** A body parsed once, its root element checked: its repeated items and its fields. */
  record Body(Element root) {
    /** The children's texts of every {@code item} element under the root, by name. */
    List<Map<String, String>> items(String item) {
      List<Map<String, String>> items = new ArrayList<>();
      NodeList children = root.getChildNodes();
      for (int i = 0; i < children.getLength(); i++) {
        if (children.item(i) instanceof Element e && item.equals(e.getLocalName())) {
          Map<String, String> fields = new LinkedHashMap<>();
          NodeList parts = e.getChildNodes();
          for (int j = 0; j < parts.getLength(); j++) {
            if (parts.item(j) instanceof Element f) {
              fields.put(f.getLocalName(), f.getTextContent());
            }
          }
          items.add(fields);
        }
      }
      return items;
    }

    /** The text of the first element {@code name} in the body (namespace ignored), or null. */
    String field(String name) {
      NodeList nodes = root.getElementsByTagNameNS("*", name);
      return nodes.getLength() == 0 ? null : nodes.item(0).getTextContent();
    }
  }

  /**
   * {@code body} as a document whose root is {@code root} (namespace ignored); MalformedXML if not.
   */
  static Body read(InputStream body, String root) throws IOException {
    Body b = readOptional(body, root);
    if (b == null) {
      throw S3Error.malformedXml();
    }
    return b;
  }

  /** As {@link #read}, but null for an empty body (a configuration S3 takes as optional). */
  static Body readOptional(InputStream body, String root) throws IOException {
    byte[] bytes = body.readNBytes(MAX_BODY + 1);
    if (bytes.length == 0) {
      return null;
    }
    if (bytes.length > MAX_BODY) {
      throw S3Error.malformedXml("an XML body is at most 2 MiB");
    }
    Element doc = parse(bytes).getDocumentElement();
    if (!root.equals(doc.getLocalName())) {
      throw S3Error.malformedXml("the body is not a " + root + " document");
    }
    return new Body(doc);
  }

  private static org.w3c.dom.Document parse(byte[] bytes) {
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
      throw S3Error.malformedXml();
    }
  }
}
