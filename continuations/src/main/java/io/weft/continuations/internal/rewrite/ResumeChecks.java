package io.weft.continuations.internal.rewrite;

import io.weft.continuations.internal.runtime.Guard;
import java.util.Set;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.tree.AbstractInsnNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldInsnNode;
import org.objectweb.asm.tree.InsnList;
import org.objectweb.asm.tree.InsnNode;
import org.objectweb.asm.tree.InvokeDynamicInsnNode;
import org.objectweb.asm.tree.JumpInsnNode;
import org.objectweb.asm.tree.LdcInsnNode;
import org.objectweb.asm.tree.MethodInsnNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeInsnNode;
import org.objectweb.asm.tree.VarInsnNode;

/**
 * The check of a restored call, added to what JavaFlow's transformer wrote: no body runs twice.
 *
 * <p>A frame the engine did not rewrite (an override the analysis never saw: a class found by name
 * at run time, a JDK proxy) can swallow a suspend made below it and return to its rewritten caller,
 * which then captures itself as if the call had suspended. At the resume the caller calls the
 * method again on the object the engine kept for it, the last one that captured itself: if that is
 * the swallowing object, its code runs a second time; if another, the swallowing frame is skipped
 * and its caller goes on with a result it never made. So, where the caller of every call {@link
 * InterfaceCallSites} prepared captures itself after that call, {@link Guard#onCapture} checks that
 * the object the engine will call again (then on top of its reference stack: see {@link
 * #checkAtCapture}) is the receiver of the call (kept in a local) and that the method it dispatches
 * the call to was rewritten (or is a compiler bridge, which only passes the call on); otherwise the
 * session ends there with a {@code NotInstrumentedError} naming the class, before it suspends, so
 * before any of that class's code can run again. Where that cannot be done, the same check ({@link
 * Guard#onResume}) goes into the engine's restore code of the call, just before that object is used,
 * against the receiver's local, which the engine then saves and restores. Each check is an {@code
 * invokedynamic} site of its own ({@link Guard#captureSite}, {@link Guard#resumeSite}) that remembers
 * the last receiver class that passed there, so that a call that keeps meeting one class compares two
 * objects and two classes; a class file older than Java 7 calls the check directly. Nothing is added
 * to the path that does not suspend.
 */
final class ResumeChecks {
  private static final String RECORDER = "org/apache/commons/javaflow/core/StackRecorder";
  private static final String ON_RESUME = "(Ljava/lang/Object;Ljava/lang/Object;Ljava/lang/String;)V";
  private static final String SITE_CHECK = "(Ljava/lang/Object;Ljava/lang/Object;)V";
  private static final Handle SITE = new Handle(Opcodes.H_INVOKESTATIC, Guard.INTERNAL_NAME, "resumeSite",
      Guard.RESUME_SITE_BOOTSTRAP, false);
  private static final String ON_CAPTURE = "(L" + RECORDER + ";Ljava/lang/Object;Ljava/lang/String;)V";
  private static final String CAPTURE_SITE_CHECK = "(L" + RECORDER + ";Ljava/lang/Object;)V";
  private static final Handle CAPTURE_SITE = new Handle(Opcodes.H_INVOKESTATIC, Guard.INTERNAL_NAME, "captureSite",
      Guard.RESUME_SITE_BOOTSTRAP, false);

  private ResumeChecks() {}

  /**
   * {@code bytes} (JavaFlow's output for an in-scope class) with the check before each restored call
   * to {@code checked} that {@link InterfaceCallSites} prepared; the same array when there is none.
   */
  static byte[] apply(byte[] bytes, Set<MethodRef> checked) {
    if (checked.isEmpty()) {
      return bytes;
    }
    ClassNode node = new ClassNode();
    new ClassReader(bytes).accept(node, 0);
    // A class file from before invokedynamic calls the check itself, without the per-site cache.
    boolean sites = (node.version & 0xFFFF) >= Opcodes.V1_7;
    boolean changed = false;
    for (MethodNode method : node.methods) {
      for (AbstractInsnNode insn : method.instructions.toArray()) {
        if (insn instanceof MethodInsnNode && ((MethodInsnNode) insn).owner.equals(RECORDER)
            && ((MethodInsnNode) insn).name.equals("popReference")) {
          changed |= check(method, (MethodInsnNode) insn, checked, sites);
        }
      }
    }
    if (!changed) {
      return bytes;
    }
    ClassWriter writer = new ClassWriter(ClassWriter.COMPUTE_MAXS);
    node.accept(writer);
    return writer.toByteArray();
  }

  /**
   * Adds the check at one restored call, if it is one to check. The engine's restore code for a
   * call is {@code popReference; checkcast; <a default per argument>; goto <the call>}; the call
   * as {@link InterfaceCallSites} left it is {@code astore r; aload r; <argument loads>; <the
   * arguments' locals cleared>; call}, or {@code pop; aload r; ...} where the receiver already is
   * local {@code r} (this, or a parameter the method never assigns) and no copy was made.
   * Anything else (a call it did not prepare: the bridges of method references) is left as it is.
   */
  private static boolean check(MethodNode method, MethodInsnNode pop, Set<MethodRef> checked, boolean sites) {
    AbstractInsnNode cast = real(pop.getNext());
    if (cast == null || cast.getOpcode() != Opcodes.CHECKCAST) {
      return false;
    }
    AbstractInsnNode at = real(cast.getNext());
    while (at != null && at.getOpcode() >= Opcodes.ACONST_NULL && at.getOpcode() <= Opcodes.DCONST_1) {
      at = real(at.getNext());
    }
    if (at == null || at.getOpcode() != Opcodes.GOTO) {
      return false;
    }
    AbstractInsnNode target = real(((JumpInsnNode) at).label);
    if (!(target instanceof MethodInsnNode)) {
      return false;
    }
    MethodInsnNode call = (MethodInsnNode) target;
    int receiver = checked.contains(MethodRef.of(call.owner, call.name, call.desc)) ? receiverLocal(call) : -1;
    if (receiver < 0) {
      return false;
    }
    if (Guard.CHECKS_AT_CAPTURE && checkAtCapture(method, pop, (TypeInsnNode) cast, call, receiver, sites)) {
      return true;
    }
    InsnList guard = new InsnList();
    guard.add(new InsnNode(Opcodes.DUP));
    guard.add(new VarInsnNode(Opcodes.ALOAD, receiver));
    if (sites) {
      // A call site of its own, which remembers the last receiver class that passed there.
      guard.add(new InvokeDynamicInsnNode("onResume", SITE_CHECK, SITE, call.name + call.desc));
    } else {
      guard.add(new LdcInsnNode(call.name + call.desc));
      guard.add(new MethodInsnNode(Opcodes.INVOKESTATIC, Guard.INTERNAL_NAME, "onResume", ON_RESUME, false));
    }
    method.instructions.insertBefore(cast, guard);
    return true;
  }

  /**
   * The check made where the frame captures itself, if the engine's code is as expected; false,
   * with nothing changed, otherwise.
   *
   * <p>Why the top of the reference stack at the capture is the object the restore will call: at
   * a capture each rewritten instance method pushes its own {@code this} on the engine's reference
   * stack, and nothing else; at a restore each frame pops one reference, the object to call again,
   * after its own values (which live on the other stacks). The capture runs from the innermost frame
   * out, the restore from the outermost in, and {@code StackRecorder.execute} pops the bottom
   * frame's own reference itself. So when every frame between the bottom and this one is rewritten
   * and each of their calls reached a rewritten instance method, the frames outside this one pop,
   * before its restore, exactly the references they pushed after its capture, and the stack being
   * last in, first out, this frame pops the reference that was on top when it began to capture: the
   * {@code this} its callee pushed. A frame outside that did not keep to this (a call into code that
   * was not rewritten) is itself a checked call, whose own capture check refuses it first. Nothing
   * touches the reference stack between the capture and the restore. So the check at the capture
   * compares the same two objects as the check at the resume did, one suspend earlier.
   *
   * <p>The calls that get no check are the exceptions, and their restore trusts the reference it
   * pops: calls in frames Weft trusts ({@code SessionFrame}, {@code CheckedTransport}, classes that
   * JavaFlow's own tools built) and calls whose restore code {@link #check} does not recognize. (The
   * bridge Weft makes for a method reference, {@code lambda$weft$n}, holds the object it calls in a
   * parameter, and that call is checked.) The check throws inside the capturing frame's
   * own try ranges, so that frame's {@code catch (Throwable)} sees it (the session's outcome stays
   * the error). The choice of this check over the one at the resume is made in the JVM that
   * rewrites, and recorded in the class's {@code Rewritten} mark.
   *
   * <p>Then the receiver's own local (a copy) need not be saved with the frame: its push at the
   * capture and its pop at the restore are dropped, and the restore stores the reference it pops
   * there instead (the same object, as the capture's check proved), for the next capture through the
   * call. A receiver in {@code this} or a parameter is saved with the frame anyway, and stays.
   */
  private static boolean checkAtCapture(MethodNode method, MethodInsnNode pop, TypeInsnNode cast,
      MethodInsnNode call, int receiver, boolean sites) {
    // The capture code right after the call: aload rec; ifnull; aload rec; getfield isCapturing; ifeq.
    AbstractInsnNode load = real(call.getNext());
    if (!(load instanceof VarInsnNode) || load.getOpcode() != Opcodes.ALOAD) {
      return false;
    }
    int recorder = ((VarInsnNode) load).var;
    AbstractInsnNode ifNull = real(load.getNext());
    AbstractInsnNode load2 = ifNull == null ? null : real(ifNull.getNext());
    AbstractInsnNode capturing = load2 == null ? null : real(load2.getNext());
    AbstractInsnNode ifNot = capturing == null ? null : real(capturing.getNext());
    if (ifNull == null || ifNull.getOpcode() != Opcodes.IFNULL || !isLoad(load2, recorder)
        || !(capturing instanceof FieldInsnNode) || !((FieldInsnNode) capturing).name.equals("isCapturing")
        || ifNot == null || ifNot.getOpcode() != Opcodes.IFEQ) {
      return false;
    }
    boolean copy = real(realBefore(receiverLoad(call))) instanceof VarInsnNode;
    AbstractInsnNode[] push = null;
    AbstractInsnNode[] restore = null;
    if (copy) {
      push = receiverPush(ifNot, recorder, receiver);
      restore = receiverPop(pop, recorder, receiver, cast.desc);
      if (push == null || restore == null) {
        return false;
      }
    }
    InsnList guard = new InsnList();
    guard.add(new VarInsnNode(Opcodes.ALOAD, recorder));
    guard.add(new VarInsnNode(Opcodes.ALOAD, receiver));
    if (sites) {
      guard.add(new InvokeDynamicInsnNode("onCapture", CAPTURE_SITE_CHECK, CAPTURE_SITE, call.name + call.desc));
    } else {
      guard.add(new LdcInsnNode(call.name + call.desc));
      guard.add(new MethodInsnNode(Opcodes.INVOKESTATIC, Guard.INTERNAL_NAME, "onCapture", ON_CAPTURE, false));
    }
    // First thing in the capture, before this frame pushes its own this.
    method.instructions.insert(ifNot, guard);
    if (copy) {
      for (AbstractInsnNode insn : push) {
        method.instructions.remove(insn);
      }
      for (AbstractInsnNode insn : restore) {
        method.instructions.remove(insn);
      }
      InsnList keep = new InsnList();
      keep.add(new InsnNode(Opcodes.DUP));
      keep.add(new VarInsnNode(Opcodes.ASTORE, receiver));
      method.instructions.insert(cast, keep);
    }
    return true;
  }

  /**
   * In the capture code that starts after {@code from}, up to its return, the push of local
   * {@code receiver} ({@code aload rec; aload receiver; invokevirtual pushObject}); null if there is
   * not exactly one.
   */
  private static AbstractInsnNode[] receiverPush(AbstractInsnNode from, int recorder, int receiver) {
    AbstractInsnNode[] found = null;
    for (AbstractInsnNode at = real(from.getNext()); at != null; at = real(at.getNext())) {
      if (at.getOpcode() >= Opcodes.IRETURN && at.getOpcode() <= Opcodes.RETURN) {
        return found;
      }
      if (at.getOpcode() == Opcodes.GOTO || at instanceof JumpInsnNode) {
        return null;
      }
      AbstractInsnNode value = real(at.getNext());
      AbstractInsnNode push = value == null ? null : real(value.getNext());
      if (isLoad(at, recorder) && isLoad(value, receiver) && isRecorderCall(push, "pushObject")) {
        if (found != null) {
          return null;
        }
        found = new AbstractInsnNode[] {at, value, push};
      }
    }
    return null;
  }

  /**
   * In the restore code before {@code pop} (back to the end of the previous restore block or the
   * switch), the restore of local {@code receiver} ({@code aload rec; invokevirtual popObject;
   * checkcast type; astore receiver}); null if there is not exactly one, or its type is not {@code type}.
   */
  private static AbstractInsnNode[] receiverPop(MethodInsnNode pop, int recorder, int receiver, String type) {
    AbstractInsnNode[] found = null;
    for (AbstractInsnNode at = realBefore(pop); at != null; at = realBefore(at)) {
      if (at.getOpcode() == Opcodes.GOTO || at instanceof JumpInsnNode || at.getOpcode() == Opcodes.TABLESWITCH
          || at.getOpcode() == Opcodes.LOOKUPSWITCH) {
        return found;
      }
      if (at.getOpcode() == Opcodes.ASTORE && ((VarInsnNode) at).var == receiver) {
        AbstractInsnNode checkcast = realBefore(at);
        AbstractInsnNode popObject = checkcast == null ? null : realBefore(checkcast);
        AbstractInsnNode load = popObject == null ? null : realBefore(popObject);
        if (found != null || checkcast == null || checkcast.getOpcode() != Opcodes.CHECKCAST
            || !((TypeInsnNode) checkcast).desc.equals(type) || !isRecorderCall(popObject, "popObject")
            || !isLoad(load, recorder)) {
          return null;
        }
        found = new AbstractInsnNode[] {load, popObject, checkcast, at};
        at = load;
      }
    }
    return null;
  }

  /** The instruction that loads the receiver of {@code call} as {@link #receiverLocal} found it. */
  private static AbstractInsnNode receiverLoad(MethodInsnNode call) {
    Type[] args = Type.getArgumentTypes(call.desc);
    AbstractInsnNode at = call;
    for (int i = 0; i < args.length && isNullStore(realBefore(at)); i++) {
      at = realBefore(realBefore(at));
    }
    for (int i = args.length - 1; i >= 0; i--) {
      at = realBefore(at);
    }
    return realBefore(at);
  }

  private static boolean isLoad(AbstractInsnNode insn, int local) {
    return insn != null && insn.getOpcode() == Opcodes.ALOAD && ((VarInsnNode) insn).var == local;
  }

  private static boolean isRecorderCall(AbstractInsnNode insn, String name) {
    return insn instanceof MethodInsnNode && ((MethodInsnNode) insn).owner.equals(RECORDER)
        && ((MethodInsnNode) insn).name.equals(name);
  }

  /**
   * The local {@link InterfaceCallSites} loaded the receiver of {@code call} from: before the call
   * come the loads of its arguments, and before those the receiver's, after either its store
   * there ({@code astore r; aload r}: a local of the receiver's own) or the drop of the receiver
   * that was on the stack ({@code pop; aload r}: {@code this} or a parameter the method never
   * assigns); -1 if the code is otherwise.
   */
  private static int receiverLocal(MethodInsnNode call) {
    Type[] args = Type.getArgumentTypes(call.desc);
    AbstractInsnNode at = call;
    // The arguments' locals cleared after their loads, one {@code aconst_null; astore} each.
    for (int i = 0; i < args.length && isNullStore(realBefore(at)); i++) {
      at = realBefore(realBefore(at));
    }
    for (int i = args.length - 1; i >= 0; i--) {
      at = realBefore(at);
      if (!(at instanceof VarInsnNode) || at.getOpcode() != args[i].getOpcode(Opcodes.ILOAD)) {
        return -1;
      }
    }
    AbstractInsnNode load = realBefore(at);
    if (!(load instanceof VarInsnNode) || load.getOpcode() != Opcodes.ALOAD) {
      return -1;
    }
    int local = ((VarInsnNode) load).var;
    AbstractInsnNode store = realBefore(load);
    if (store != null && store.getOpcode() == Opcodes.POP) {
      return local;
    }
    return store instanceof VarInsnNode && store.getOpcode() == Opcodes.ASTORE && ((VarInsnNode) store).var == local
        ? local : -1;
  }

  private static boolean isNullStore(AbstractInsnNode insn) {
    return insn != null && insn.getOpcode() == Opcodes.ASTORE && realBefore(insn) != null
        && realBefore(insn).getOpcode() == Opcodes.ACONST_NULL;
  }

  /** {@code insn} or the first instruction after it that is not a label, line number or frame. */
  private static AbstractInsnNode real(AbstractInsnNode insn) {
    AbstractInsnNode at = insn;
    while (at != null && at.getOpcode() < 0) {
      at = at.getNext();
    }
    return at;
  }

  private static AbstractInsnNode realBefore(AbstractInsnNode insn) {
    AbstractInsnNode at = insn.getPrevious();
    while (at != null && at.getOpcode() < 0) {
      at = at.getPrevious();
    }
    return at;
  }
}
