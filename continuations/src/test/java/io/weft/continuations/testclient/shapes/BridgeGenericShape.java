package io.weft.continuations.testclient.shapes;

import io.weft.transport.Transport;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;

/** Reads through a bridge method (generic interface) and a generic class's generic method. */
public final class BridgeGenericShape extends Shape {
  public BridgeGenericShape(AtomicIntegerArray runs) {
    super(runs);
  }

  @Override
  protected String body(Transport t, int index) throws IOException {
    InterfaceShapes.Call<String> call = new InterfaceShapes.Upper();
    Object viaBridge = call.call(t, "b" + index);
    InterfaceShapes.Box<StringBuilder> box = new InterfaceShapes.Box<>(new StringBuilder("g").append(index));
    Integer length = box.map(t, String::length);
    return viaBridge + ":" + length;
  }
}
