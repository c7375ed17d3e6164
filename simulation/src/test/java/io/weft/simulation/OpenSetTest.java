package io.weft.simulation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The set of open connections gives its members in the order they were added, whatever was
 * removed and however often its array was closed up or grown: a connector's close and a
 * listener's reset act in that order, and the log (so the run's hash) follows it.
 */
class OpenSetTest {
  private static final class Conn implements OpenSet.Member {
    final int id;
    int at = -1;

    Conn(int id) {
      this.id = id;
    }

    @Override
    public int openAt() {
      return at;
    }

    @Override
    public void openAt(int at) {
      this.at = at;
    }

    @Override
    public String toString() {
      return "conn " + id;
    }
  }

  @ParameterizedTest
  @ValueSource(longs = {1L, 2L, 3L, 42L, 1234567L})
  void keepsTheOrderAddedThroughRemovalsCompactionsAndGrowth(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    OpenSet<Conn> set = new OpenSet<>();
    LinkedHashSet<Conn> reference = new LinkedHashSet<>();
    List<Conn> in = new ArrayList<>();
    int next = 0;
    for (int step = 0; step < 20_000; step++) {
      // Phases that mostly add, then mostly remove: the array grows, fills with holes and closes up.
      boolean adding = (step / 2_000) % 2 == 0 ? random.nextInt(4) != 0 : random.nextInt(4) == 0;
      if (adding || in.isEmpty()) {
        Conn c = new Conn(next++);
        set.add(c);
        reference.add(c);
        in.add(c);
      } else {
        Conn c = in.remove(random.nextInt(in.size()));
        set.remove(c);
        reference.remove(c);
        assertEquals(-1, c.openAt());
      }
      if (step % 97 == 0) {
        assertEquals(new ArrayList<>(reference), set.members(), "step " + step);
      }
    }
    assertEquals(new ArrayList<>(reference), set.members());
    assertEquals(reference.size(), set.size());
  }

  @Test
  void removingWhatIsNotInTheSetChangesNothing() {
    OpenSet<Conn> set = new OpenSet<>();
    OpenSet<Conn> other = new OpenSet<>();
    Conn a = new Conn(1);
    Conn b = new Conn(2);
    Conn stranger = new Conn(3);
    set.add(a);
    set.add(b);
    other.add(stranger); // its place (0) is a's place in the first set
    set.remove(stranger);
    set.remove(new Conn(4));
    assertEquals(List.of(a, b), set.members());
    assertEquals(List.of(stranger), other.members());
  }

  @Test
  void aMemberIsInOneSetAtATimeAndMayComeBackAfterItsRemoval() {
    OpenSet<Conn> set = new OpenSet<>();
    Conn a = new Conn(1);
    Conn b = new Conn(2);
    set.add(a);
    set.add(b);
    assertThrows(IllegalStateException.class, () -> set.add(a));
    set.remove(a);
    set.add(a);
    assertEquals(List.of(b, a), set.members());
  }
}
