package io.weft.perf.micro;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Settings every Weft microbenchmark shares, at class level so a subclass states only what is
 * different (as netty's microbench module does). Average time per operation in nanoseconds,
 * one fork with a fixed heap.
 *
 * <p>The virtual-thread scheduler gets one carrier: Weft's CONTINUATIONS(1) resumes every
 * session on one worker, so a fair comparison parks and unparks virtual threads on one carrier
 * too. Override with {@code -jvmArgsAppend -Djdk.virtualThreadScheduler.parallelism=2}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Measurement(iterations = 5, time = 1, timeUnit = TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {
    "-Xms1g", "-Xmx1g", "-Djdk.virtualThreadScheduler.parallelism=1"})
public abstract class AbstractMicrobenchmark {
}
