package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** weft-bom pins every published module of the reactor, at the reactor's version. */
class BomTest {
  /** Reactor modules that are not published, so not in the BOM. */
  private static final Set<String> UNPUBLISHED = Set.of("weft-bom", "test-support", "samples", "perf-tests");

  private static final Path ROOT = Paths.get("").toAbsolutePath().getParent();

  @Test
  void bomManagesEveryPublishedModuleAtTheProjectsVersion() throws Exception {
    Document root = parse(ROOT.resolve("pom.xml"));
    Document bom = parse(ROOT.resolve("weft-bom/pom.xml"));
    assertEquals("weft-parent", child(root.getDocumentElement(), "artifactId"), "not the root pom: " + ROOT);
    assertEquals(child(root.getDocumentElement(), "version"), child(bom.getDocumentElement(), "version"),
        "weft-bom has no parent, so its version is written in it: keep it equal to weft-parent's");

    Set<String> published = publishedModules().keySet();
    Set<String> managed = new TreeSet<>();
    for (Element dependency : elements(bom.getDocumentElement(), "dependencyManagement", "dependencies", "dependency")) {
      assertEquals("io.weft", child(dependency, "groupId"));
      assertEquals("${project.version}", child(dependency, "version"), child(dependency, "artifactId"));
      managed.add(child(dependency, "artifactId"));
    }
    assertEquals(published, managed, "weft-bom/pom.xml must list every published module (a module that is not"
        + " published belongs in BomTest.UNPUBLISHED)");
  }

  /**
   * The reactor's published modules (all but {@link #UNPUBLISHED}), artifact id to directory.
   *
   * @return every published module, sorted by artifact id
   */
  static Map<String, Path> publishedModules() throws Exception {
    Document root = parse(ROOT.resolve("pom.xml"));
    Map<String, Path> published = new TreeMap<>();
    for (Element module : elements(root.getDocumentElement(), "modules", "module")) {
      Path dir = ROOT.resolve(module.getTextContent().trim());
      String artifactId = child(parse(dir.resolve("pom.xml")).getDocumentElement(), "artifactId");
      if (!UNPUBLISHED.contains(artifactId)) {
        published.put(artifactId, dir);
      }
    }
    return published;
  }

  private static Document parse(Path pom) throws Exception {
    if (!Files.isRegularFile(pom)) {
      throw new AssertionError("no " + pom);
    }
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  /** The text of {@code parent}'s direct child element {@code name}, or null. */
  private static String child(Element parent, String name) {
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element && n.getNodeName().equals(name)) {
        return n.getTextContent().trim();
      }
    }
    return null;
  }

  /** The elements at {@code path} below {@code from}, each step a direct child. */
  private static List<Element> elements(Element from, String... path) {
    List<Element> level = List.of(from);
    for (String name : path) {
      List<Element> next = new ArrayList<>();
      for (Element e : level) {
        NodeList children = e.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
          if (children.item(i) instanceof Element && children.item(i).getNodeName().equals(name)) {
            next.add((Element) children.item(i));
          }
        }
      }
      level = next;
    }
    return level;
  }
}
