package io.weft.perf.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeersSummaryTest {
  @Test
  void mediansAreOverCleanRoundsOnly() {
    List<PeersRow> rows = List.of(
        row(100, 1, ClientLabels.NETTY, 100.0, 10.0, 50.0),
        row(100, 2, ClientLabels.NETTY, 300.0, 30.0, 70.0),
        row(100, 3, ClientLabels.NETTY, 200.0, 20.0, 60.0),
        incomplete(100, 4, ClientLabels.NETTY));

    PeersSummary.Median m = PeersSummary.of(rows).median(100, ClientLabels.NETTY);

    assertEquals(200.0, m.roundTripsPerSecond);
    assertEquals(20.0, m.cpuMicrosPerRoundTrip);
    assertEquals(3, m.cleanRounds);
    assertEquals(4, m.rounds);
  }

  @Test
  void aWarmUpLineSaysWhatFailed() {
    ClientRun clean = ClientRun.external(1_000, 0, null, 1_000_000_000L, 1.0, 2.0, -1L, -1L);
    assertEquals("# N=10 warm-up 1/3 netty                1,000 rt/s, CPU 5.00 µs/rt",
        PeersBenchmark.warmupLine(10, 1, 3, "netty", 1_000, clean, 5_000_000L));
    ClientRun failed = ClientRun.external(400, 2, "ConnectException: refused", 1_000_000_000L, 1.0, 2.0, -1L, -1L);
    assertEquals("# N=10 warm-up 2/3 netty                400 rt/s, CPU -; 2 sessions FAILED, first: ConnectException: refused",
        PeersBenchmark.warmupLine(10, 2, 3, "netty", 1_000, failed, -1L));
    ClientRun short_ = ClientRun.external(999, 0, null, 1_000_000_000L, 1.0, 2.0, -1L, -1L);
    assertEquals("# N=10 warm-up 3/3 netty                999 rt/s, CPU -; INCOMPLETE: 999 of 1,000 round trips",
        PeersBenchmark.warmupLine(10, 3, 3, "netty", 1_000, short_, -1L));
  }

  @Test
  void theSpreadIsTheCleanRoundsRangeOverTheirMedian() {
    List<PeersRow> rows = List.of(
        row(100, 1, ClientLabels.NETTY, 90.0, 10.0, 50.0),
        row(100, 2, ClientLabels.NETTY, 110.0, 12.0, 70.0),
        row(100, 3, ClientLabels.NETTY, 100.0, 11.0, 60.0),
        incomplete(100, 4, ClientLabels.NETTY),
        row(100, 1, ClientLabels.CONT_1, 50.0, 20.0, 100.0));

    PeersSummary summary = PeersSummary.of(rows);
    PeersSummary.Median m = summary.median(100, ClientLabels.NETTY);

    assertEquals(20.0, m.roundTripsPerSecondSpreadPct, 1e-9);
    assertEquals(2.0 / 11.0 * 100.0, m.cpuSpreadPct, 1e-9);
    // One round: no spread to tell.
    assertNull(summary.median(100, ClientLabels.CONT_1).cpuSpreadPct);
  }

  @Test
  void ratiosAreTakenWithinEachRoundThenTheirMedian() {
    List<PeersRow> rows = new ArrayList<>();
    // Round 2's machine was slower for both: the within-round ratio stays 0.5.
    rows.add(row(100, 1, ClientLabels.NETTY, 100.0, 10.0, 50.0));
    rows.add(row(100, 1, ClientLabels.CONT_1, 50.0, 20.0, 100.0));
    rows.add(row(100, 2, ClientLabels.NETTY, 40.0, 10.0, 50.0));
    rows.add(row(100, 2, ClientLabels.CONT_1, 20.0, 20.0, 100.0));
    rows.add(row(100, 3, ClientLabels.NETTY, 100.0, 10.0, 50.0));
    rows.add(row(100, 3, ClientLabels.CONT_1, 80.0, 20.0, 100.0));

    PeersSummary.Ratio r = PeersSummary.of(rows).ratio(100, ClientLabels.CONT_1, ClientLabels.NETTY,
        PeersSummary.Measure.ROUND_TRIPS_PER_S);

    assertEquals(Arrays.asList(0.5, 0.5, 0.8), r.perRound);
    assertEquals(0.5, r.median);
  }

  @Test
  void aRoundWhereEitherFailedGivesNoRatio() {
    List<PeersRow> rows = List.of(
        row(100, 1, ClientLabels.NETTY, 100.0, 10.0, 50.0),
        incomplete(100, 1, ClientLabels.CONT_1));

    PeersSummary.Ratio r = PeersSummary.of(rows).ratio(100, ClientLabels.CONT_1, ClientLabels.NETTY,
        PeersSummary.Measure.ROUND_TRIPS_PER_S);

    assertEquals(Arrays.asList((Double) null), r.perRound);
    assertNull(r.median);
  }

  @Test
  void targetsSayMetMissedOrNotMeasuredWithTheFigure() {
    List<PeersRow> rows = List.of(
        // N=100: 0.95x Netty's rt/s at 1.2x its CPU: met; 1.5x plain VT: met.
        row(100, 1, ClientLabels.NETTY, 100.0, 10.0, 50.0),
        row(100, 1, ClientLabels.CONT_1, 95.0, 12.0, 40.0),
        row(100, 1, ClientLabels.PLAIN_VT, 63.0, 15.0, 40.0),
        // N=10,000: fast enough but 1.3x Netty's CPU: missed; p99 worse: missed; no plain VT row.
        row(10_000, 1, ClientLabels.NETTY, 100.0, 10.0, 50.0),
        row(10_000, 1, ClientLabels.CONT_1, 100.0, 13.0, 60.0));

    List<PeersTargets.Verdict> v = PeersTargets.check(PeersSummary.of(rows), List.of(100, 10_000));

    assertEquals("MET", v.get(0).verdict, v.get(0).toString());
    assertEquals("MISSED", v.get(1).verdict, v.get(1).toString());
    assertEquals("rt/s 1.00x, CPU/rt 1.30x, medians of within-round ratios", v.get(1).figure);
    assertEquals("MET", v.get(2).verdict, v.get(2).toString());
    assertEquals("NOT MEASURED", v.get(3).verdict, v.get(3).toString());
    assertEquals("VT java.net.Socket not run at N=10000", v.get(3).figure);
    assertEquals("MISSED", v.get(4).verdict, v.get(4).toString());
  }

  @Test
  void contextSwitchesPerRoundTripAreJudgedFromTheMedianOverTheRounds() {
    PeersRow few = row(100, 1, ClientLabels.CONT_1, 95.0, 12.0, 40.0);
    few.contextSwitchesPerRoundTrip = 0.01;
    PeersRow many = row(100, 2, ClientLabels.CONT_1, 95.0, 12.0, 40.0);
    many.contextSwitchesPerRoundTrip = 0.25;
    PeersRow more = row(100, 3, ClientLabels.CONT_1, 95.0, 12.0, 40.0);
    more.contextSwitchesPerRoundTrip = 0.3;

    List<PeersTargets.Verdict> v = PeersTargets.check(PeersSummary.of(List.of(few, many, more)), List.of(100));

    PeersTargets.Verdict switches = v.get(v.size() - 1);
    assertEquals("N=100: cont(1) mina context switches/rt <= 0.02", switches.target);
    assertEquals("MISSED", switches.verdict, switches.toString());
    assertEquals("0.250, median over the rounds", switches.figure);
  }

  @Test
  void theSwitchVerdictSaysTheVoluntaryShareAndNettysFiguresBesideIt() {
    PeersRow weft = row(100, 1, ClientLabels.CONT_1, 95.0, 12.0, 40.0);
    weft.contextSwitchesPerRoundTrip = 0.224;
    weft.voluntaryContextSwitchesPerRoundTrip = 0.012;
    PeersRow netty = row(100, 1, ClientLabels.NETTY, 100.0, 10.0, 50.0);
    netty.contextSwitchesPerRoundTrip = 0.177;
    netty.voluntaryContextSwitchesPerRoundTrip = 0.008;

    List<PeersTargets.Verdict> v = PeersTargets.check(PeersSummary.of(List.of(weft, netty)), List.of(100));

    PeersTargets.Verdict switches = v.get(v.size() - 1);
    assertEquals("MISSED", switches.verdict, switches.toString());
    assertEquals("0.224, median over the rounds; voluntary 0.012; Netty callbacks 0.177, voluntary 0.008",
        switches.figure);
  }

  @Test
  void aRoundsLineSaysTheVoluntarySwitchesAfterTheirSum() {
    PeersRow r = row(100, 1, ClientLabels.CONT_1, 95_000.0, 12.0, 400.0);
    r.expectedRoundTrips = 1_000;
    r.completedRoundTrips = 1_000L;
    r.p50Micros = 100.0;
    r.contextSwitchesPerRoundTrip = 0.224;
    r.voluntaryContextSwitchesPerRoundTrip = 0.012;
    r.listenOverflows = 0L;
    assertEquals("# N=100 round 1 weft cont(1) mina    ok 1,000/1,000 rt, 95,000 rt/s, p50 100 µs, p99 400 µs,"
        + " CPU 12.00 µs/rt, 0.224 ctx sw/rt (0.012 voluntary), 0 listen overflows", PeersBenchmark.line(r));
  }

  @Test
  void aRunWithContinuationsOverNettyGetsItsOwnVerdictsAfterMinas() {
    List<PeersRow> rows = List.of(
        row(100, 1, ClientLabels.NETTY, 100.0, 10.0, 50.0),
        row(100, 1, ClientLabels.CONT_1, 80.0, 15.0, 40.0),
        row(100, 1, ClientLabels.CONT_1_NETTY, 95.0, 11.0, 40.0),
        row(100, 1, ClientLabels.PLAIN_VT, 70.0, 15.0, 40.0));

    List<PeersTargets.Verdict> v = PeersTargets.check(PeersSummary.of(rows), List.of(100));

    // Four targets each (the p99 one not measured: N=10,000 is not in this run; nor the context
    // switches: these rows have none), MINA first; over Netty the bar is 0.95x, over MINA 0.9x.
    assertEquals(8, v.size(), v::toString);
    assertEquals("N=100: cont(1) mina >= 0.9x Netty rt/s with CPU/rt <= 1.2x Netty's", v.get(0).target);
    assertEquals("MISSED", v.get(0).verdict, v.get(0).toString());
    assertEquals("N=100: cont(1) netty >= 0.95x Netty rt/s with CPU/rt <= 1.2x Netty's", v.get(4).target);
    assertEquals("MET", v.get(4).verdict, v.get(4).toString());
    assertEquals("rt/s 0.95x, CPU/rt 1.10x, medians of within-round ratios", v.get(4).figure);
    assertEquals("MET", v.get(5).verdict, v.get(5).toString());
    assertEquals("rt/s 1.36x, median of within-round ratios", v.get(5).figure);
    assertEquals("NOT MEASURED", v.get(7).verdict, v.get(7).toString());
  }

  @Test
  void medianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertEquals(2.5, PeersSummary.median(List.of(4.0, 1.0, 2.0, 3.0)));
    assertNull(PeersSummary.median(List.of()));
  }

  private static PeersRow row(int sessions, int round, String client, double rtps, double cpu, double p99) {
    PeersRow r = new PeersRow();
    r.sessions = sessions;
    r.round = round;
    r.client = client;
    r.status = PeersRow.OK;
    r.roundTripsPerSecond = rtps;
    r.cpuMicrosPerRoundTrip = cpu;
    r.p99Micros = p99;
    return r;
  }

  private static PeersRow incomplete(int sessions, int round, String client) {
    PeersRow r = row(sessions, round, client, 1.0, 1.0, 1.0);
    r.status = PeersRow.INCOMPLETE;
    r.note = "session 3: connection reset";
    return r;
  }
}
