package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import org.junit.jupiter.api.Test;

class TaskFactoryTest {

  public static final class Task implements SessionTask<String> {
    final String made;

    public Task() {
      made = "none";
    }

    public Task(int n, String s) {
      made = "int " + n + " " + s;
    }

    public Task(long n) {
      made = "long " + n;
    }

    public Task(CharSequence text) {
      made = "text " + text;
    }

    @Override
    public String run(Transport transport, int index) {
      return made;
    }
  }

  public static final class Throwing implements SessionTask<String> {
    public Throwing() {
      throw new IllegalStateException("refuses");
    }

    @Override
    public String run(Transport transport, int index) {
      return "";
    }
  }

  private static String made(Object... args) {
    return ((Task) TaskFactory.newTask(Task.class, args)).made;
  }

  @Test
  void picksTheConstructorWhoseParametersTakeTheArguments() {
    assertEquals("none", made());
    assertEquals("int 3 x", made(3, "x"));
    assertEquals("long 4", made(4L));
    assertEquals("text abc", made(new StringBuilder("abc")));
    assertEquals("int 3 null", made(3, null));
  }

  @Test
  void aPrimitiveParameterNeverTakesNullOrAnotherBoxedType() {
    assertThrows(IllegalArgumentException.class, () -> made(null, "x"));
    assertThrows(IllegalArgumentException.class, () -> made(3.0));
  }

  @Test
  void noFittingConstructorNamesTheClassAndTheArguments() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> made(1, 2, 3));
    assertTrue(e.getMessage().contains(Task.class.getName()), e.getMessage());
    assertTrue(e.getMessage().contains("[1, 2, 3]"), e.getMessage());
  }

  @Test
  void aThrowingConstructorIsAnIllegalArgumentWithItsCause() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> TaskFactory.newTask(Throwing.class, new Object[0]));
    assertSame(IllegalStateException.class, e.getCause().getClass());
  }
}
