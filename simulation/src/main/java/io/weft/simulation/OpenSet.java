package io.weft.simulation;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Members in the order they were added, with constant-time removal: an array in which a removed
 * member leaves a hole, closed up (order kept) when the array is full; each member keeps its own
 * place in it. For the connections a connector or a listener has open: one array entry per
 * connection, no entry object.
 *
 * <p>Why not a list through the members themselves: a young collection copies what it keeps
 * depth first, following each object's references in turn, and the collections of a run lay out
 * most of its sessions' objects. A link from one connection to the next would take that walk from
 * each session straight into the next one before it had copied the rest of the first, spreading
 * one session's objects (its stack, buffers, transport) over the whole run's, where each event of
 * a run of many sessions touches one session. From an array the walk takes one connection at a
 * time.
 *
 * <p>Not thread-safe: the simulation's one thread.
 *
 * @param <E> the members
 */
final class OpenSet<E extends OpenSet.Member> {
  /** What an {@link OpenSet} holds: an object that keeps its place in the set, -1 while not in one. */
  interface Member {
    int openAt();

    void openAt(int at);
  }

  private Object[] members = new Object[16];
  /** Places used, holes included. */
  private int end;
  private int count;

  /** Adds {@code member}, which is in no set, after every member now in this one. */
  void add(E member) {
    if (member.openAt() >= 0) {
      throw new IllegalStateException(member + " is in a set already");
    }
    if (end == members.length) {
      if (count <= members.length / 2) {
        compact();
      } else {
        members = Arrays.copyOf(members, members.length * 2);
      }
    }
    member.openAt(end);
    members[end++] = member;
    count++;
  }

  /** Removes {@code member}; nothing if it is not in this set. */
  void remove(E member) {
    int at = member.openAt();
    if (at < 0 || at >= end || members[at] != member) {
      return;
    }
    members[at] = null;
    member.openAt(-1);
    count--;
    if (count == 0) {
      end = 0;
    }
  }

  /** The members now, in the order added. */
  @SuppressWarnings("unchecked")
  List<E> members() {
    List<E> all = new ArrayList<>(count);
    for (int i = 0; i < end; i++) {
      if (members[i] != null) {
        all.add((E) members[i]);
      }
    }
    return all;
  }

  int size() {
    return count;
  }

  @SuppressWarnings("unchecked")
  private void compact() {
    int to = 0;
    for (int i = 0; i < end; i++) {
      Object m = members[i];
      if (m != null) {
        members[to] = m;
        ((E) m).openAt(to);
        to++;
      }
    }
    Arrays.fill(members, to, end, null);
    end = to;
  }
}
