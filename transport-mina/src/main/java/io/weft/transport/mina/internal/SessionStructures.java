package io.weft.transport.mina.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.mina.core.session.DefaultIoSessionDataStructureFactory;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.core.session.IoSessionAttributeMap;

/**
 * MINA's per-session structures for a Weft connector's sessions: MINA's own write queue, and an
 * attribute map that keeps the session's {@link SessionState} (the attribute
 * {@link SessionState#KEY}) in a field of its own. Weft looks the state up on every read of a
 * session and on each of its events; MINA's default map, a {@code ConcurrentHashMap}, hashes the
 * key and walks its table each time, where this reads one field. Every other attribute (MINA's
 * own, TLS's) is kept in a {@code ConcurrentHashMap} as MINA's default keeps it.
 */
public final class SessionStructures extends DefaultIoSessionDataStructureFactory {
  @Override
  public IoSessionAttributeMap getAttributeMap(IoSession session) {
    return new Attributes();
  }

  /**
   * MINA's default attribute map, with {@link SessionState#KEY}'s value in a field: the same
   * answers for every key, and for that one each operation is atomic on the field, as the map's
   * are on its entries; a value is compared by identity there (a {@code SessionState} is equal
   * only to itself), where the map compares with {@code equals}. A key is matched as MINA's map
   * matches it, with {@code equals}: an {@code AttributeKey} equal to {@code SessionState.KEY}
   * (same name) but another instance finds the field too (the same instance is found first, by
   * identity); {@link #getAttributeKeys} names it {@code SessionState.KEY}, which is equal.
   */
  static final class Attributes implements IoSessionAttributeMap {
    private static final VarHandle STATE;

    static {
      try {
        STATE = MethodHandles.lookup().findVarHandle(Attributes.class, "state", Object.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    /** {@link SessionState#KEY}'s value, or null; written through {@link #STATE}. */
    private volatile Object state;
    private final ConcurrentHashMap<Object, Object> others = new ConcurrentHashMap<>(4);

    private static boolean isState(Object key) {
      if (key == null) {
        throw new IllegalArgumentException("key");
      }
      return isStateKey(key);
    }

    /** As MINA's map compares keys: {@code equals} (an {@code AttributeKey} compares names). */
    private static boolean isStateKey(Object key) {
      return key == SessionState.KEY || SessionState.KEY.equals(key);
    }

    @Override
    public Object getAttribute(IoSession session, Object key, Object defaultValue) {
      if (!isState(key)) {
        if (defaultValue == null) {
          return others.get(key);
        }
        Object previous = others.putIfAbsent(key, defaultValue);
        return previous == null ? defaultValue : previous;
      }
      Object value = state;
      if (value != null || defaultValue == null) {
        return value;
      }
      Object previous = STATE.compareAndExchange(this, null, defaultValue);
      return previous == null ? defaultValue : previous;
    }

    @Override
    public Object setAttribute(IoSession session, Object key, Object value) {
      if (!isState(key)) {
        return value == null ? others.remove(key) : others.put(key, value);
      }
      return STATE.getAndSet(this, value);
    }

    @Override
    public Object setAttributeIfAbsent(IoSession session, Object key, Object value) {
      if (!isState(key)) {
        return value == null ? null : others.putIfAbsent(key, value);
      }
      return value == null ? null : STATE.compareAndExchange(this, null, value);
    }

    @Override
    public Object removeAttribute(IoSession session, Object key) {
      if (!isState(key)) {
        return others.remove(key);
      }
      return STATE.getAndSet(this, null);
    }

    @Override
    public boolean removeAttribute(IoSession session, Object key, Object value) {
      if (!isState(key)) {
        return value != null && others.remove(key, value);
      }
      return value != null && STATE.compareAndSet(this, value, null);
    }

    @Override
    public boolean replaceAttribute(IoSession session, Object key, Object oldValue, Object newValue) {
      // MINA's map answers false where ConcurrentHashMap.replace throws for a null.
      if (key == null || oldValue == null || newValue == null) {
        return false;
      }
      if (!isState(key)) {
        return others.replace(key, oldValue, newValue);
      }
      return STATE.compareAndSet(this, oldValue, newValue);
    }

    @Override
    public boolean containsAttribute(IoSession session, Object key) {
      if (isStateKey(key)) {
        return state != null;
      }
      return others.containsKey(key);
    }

    @Override
    public Set<Object> getAttributeKeys(IoSession session) {
      Set<Object> keys = new HashSet<>(others.keySet());
      if (state != null) {
        keys.add(SessionState.KEY);
      }
      return keys;
    }

    @Override
    public void dispose(IoSession session) {
      // As MINA's default map: nothing to release.
    }
  }
}
