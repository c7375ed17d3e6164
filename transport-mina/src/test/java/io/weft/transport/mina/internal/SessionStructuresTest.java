package io.weft.transport.mina.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.DefaultIoSessionDataStructureFactory;
import org.apache.mina.core.session.IoSessionAttributeMap;
import org.junit.jupiter.api.Test;

/**
 * Weft's MINA attribute map answers every operation as MINA's default map does, for the session
 * state's key (kept in a field) and for any other key (kept in a map): the same sequence of
 * operations on both gives the same answers, step by step.
 */
class SessionStructuresTest {
  private static final Object OTHER = new AttributeKey(SessionStructuresTest.class, "other");

  @Test
  void everyOperationOnTheStatesKeyAnswersAsMinasDefaultMap() throws Exception {
    assertSameAnswers(SessionState.KEY);
  }

  @Test
  void everyOperationOnAnyOtherKeyAnswersAsMinasDefaultMap() throws Exception {
    assertSameAnswers(OTHER);
  }

  /**
   * MINA's map compares keys with {@code equals}, and an {@code AttributeKey} equals another of the
   * same name: a key equal to the state's key but another instance (the same class and name, or a
   * deserialized copy) names the same attribute in both maps, whichever of the two sets it.
   */
  @Test
  void aKeyEqualToTheStatesKeyNamesTheSameAttributeAsInMinasDefaultMap() throws Exception {
    Object equal = new AttributeKey(SessionState.class, "state");
    assertEquals(SessionState.KEY, equal, "the two keys are equal for MINA");
    for (Object[] keys : List.of(new Object[] {SessionState.KEY, equal}, new Object[] {equal, SessionState.KEY})) {
      IoSessionAttributeMap weft = new SessionStructures().getAttributeMap(null);
      IoSessionAttributeMap mina = new DefaultIoSessionDataStructureFactory().getAttributeMap(null);
      assertEquals(answers(mina, keys[0], keys[1]), answers(weft, keys[0], keys[1]));
    }
  }

  @Test
  void aNullKeyIsRefusedAsMinasDefaultMapRefusesIt() throws Exception {
    IoSessionAttributeMap weft = new SessionStructures().getAttributeMap(null);
    IoSessionAttributeMap mina = new DefaultIoSessionDataStructureFactory().getAttributeMap(null);
    for (IoSessionAttributeMap map : List.of(weft, mina)) {
      assertThrows(IllegalArgumentException.class, () -> map.getAttribute(null, null, null));
      assertThrows(IllegalArgumentException.class, () -> map.setAttribute(null, null, "v"));
      assertThrows(IllegalArgumentException.class, () -> map.setAttributeIfAbsent(null, null, "v"));
      assertThrows(IllegalArgumentException.class, () -> map.removeAttribute(null, null));
      assertThrows(IllegalArgumentException.class, () -> map.removeAttribute(null, null, "v"));
      assertEquals(false, map.replaceAttribute(null, null, "a", "b"));
    }
  }

  private static void assertSameAnswers(Object key) throws Exception {
    IoSessionAttributeMap weft = new SessionStructures().getAttributeMap(null);
    IoSessionAttributeMap mina = new DefaultIoSessionDataStructureFactory().getAttributeMap(null);
    assertEquals(answers(mina, key), answers(weft, key));
  }

  private static List<String> answers(IoSessionAttributeMap map, Object key) {
    return answers(map, key, key);
  }

  /**
   * Each step's answer, with what the map holds under {@code look} after it; every step is made
   * with {@code key}; the values are shared objects.
   */
  private static List<String> answers(IoSessionAttributeMap map, Object key, Object look) {
    Object a = "a";
    Object b = "b";
    List<Function<IoSessionAttributeMap, Object>> steps = List.of(
        m -> m.getAttribute(null, key, null),
        m -> m.containsAttribute(null, key),
        m -> m.setAttributeIfAbsent(null, key, null),
        m -> m.setAttributeIfAbsent(null, key, a),
        m -> m.setAttributeIfAbsent(null, key, b),
        m -> m.getAttribute(null, key, b),
        m -> m.replaceAttribute(null, key, b, a),
        m -> m.replaceAttribute(null, key, a, b),
        m -> m.replaceAttribute(null, key, b, null),
        m -> m.replaceAttribute(null, key, null, a),
        m -> m.removeAttribute(null, key, a),
        m -> m.removeAttribute(null, key, null),
        m -> m.removeAttribute(null, key, b),
        m -> m.getAttribute(null, key, a),
        m -> m.setAttribute(null, key, b),
        m -> m.setAttribute(null, key, null),
        m -> m.setAttribute(null, key, a),
        m -> m.getAttributeKeys(null),
        m -> m.removeAttribute(null, key),
        m -> m.removeAttribute(null, key),
        m -> m.getAttributeKeys(null));
    List<String> answers = new ArrayList<>();
    for (Function<IoSessionAttributeMap, Object> step : steps) {
      answers.add(step.apply(map) + " then " + map.getAttribute(null, look, null) + "/" + map.containsAttribute(null, look));
    }
    return answers;
  }
}
