// The whole analysis on the bundled Llama 3 example: outputs present, consistent and sensible.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "goodput/goodput.hpp"
#include "test_temp.hpp"

using namespace sextant::goodput;

TEST(RunGoodput, Llama3ExampleOutputsAreConsistent) {
  auto c = load_goodput(std::string(SEXTANT_SOURCE_DIR) + "/data/examples/goodput-llama3-405b-16k.yaml");
  c.sim.replicas = 200;
  c.sim.search_replicas = 40;
  const auto r = run_goodput(c);
  const double e = r.number("ettr_fraction");
  EXPECT_GT(e, 0.5);
  EXPECT_LT(e, 1.0);
  EXPECT_LT(r.number("ettr_ci_low_fraction"), e);
  EXPECT_GT(r.number("ettr_ci_high_fraction"), e);
  // 419 + 47 interruptions expected in 54 days (minus a few merged into ongoing recoveries).
  EXPECT_NEAR(r.number("interruptions_mean_count"), 466, 25);
  // Lost time by cause adds up to the wall time not spent productively.
  const auto* t = r.table("lost_time_by_cause");
  ASSERT_NE(t, nullptr);
  double lost = 0;
  for (double v : t->column("mean_s").f64) lost += v;
  EXPECT_NEAR(lost / r.number("duration_s"), 1.0 - e, 1e-9);
  ASSERT_NE(r.table("ettr_vs_interval"), nullptr);
  ASSERT_NE(r.table("knobs"), nullptr);
  ASSERT_NE(r.table("closed_forms"), nullptr);
  EXPECT_GT(r.number("optimal_interval_sim_s"), 0);
  EXPECT_GE(r.number("spares_p99_count"), 1);
}

// Do the closed forms account for an asynchronous persist as the engine does? A checkpoint waits
// for the previous persist (the cycle stretches) and a failure during a persist loses it. With a
// 300 s persist, a 60 s interval ran at ETTR 0.195 while Daly's formula said 0.967 (2026-12-01);
// both must now agree with the simulation, at 60 s and at 300 s.
TEST(RunGoodput, ClosedFormsFollowTheAsynchronousPersist) {
  const std::string path = sextant::test_temp::path("goodput-async.yaml");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "name: async\n"
        "job: {num_gpus: 8, gpus_per_node: 8, dp: 1, nodes_per_replica: 1, step_time_s: 1, duration_days: 100}\n"
        "failures:\n  processes:\n    - {name: crash, component: software, kind: interrupt, mtbf_hours: 10, node_lost: false}\n"
        "recovery: {detection_s: 0, eviction_s: 0, hot_spare_s: 0, restart_s: 600, rendezvous_base_s: 0, warmup_s: 0}\n"
        "checkpoint: {strategy: async-remote, interval_s: 60, params: 1.0e9, per_gpu_bytes: 1.0e9, d2h_bytes_per_s: 1.0e9, "
        "write_s: 300, read_s: 0}\n"
        "elastic: {enabled: false}\n"
        "simulation: {replicas: 200, seed: 1}\n",
        f);
    std::fclose(f);
  }
  for (double interval : {60.0, 300.0}) {
    auto c = load_goodput(path);
    c.checkpoint.interval_s = interval;
    c.sim.search = false;
    const auto r = run_goodput(c);
    const double sim = r.number("ettr_fraction");
    EXPECT_NEAR(r.number("daly_expected_ettr_fraction") / sim, 1.0, 0.02) << interval << " s: simulated " << sim;
    EXPECT_NEAR(r.number("meta_expected_ettr_fraction") / sim, 1.0, 0.02) << interval << " s: simulated " << sim;
  }
}

// Questions (review of 2026-12-05): with failures rare (a Daly interval of months), does the
// interval sweep stay within the job (a 60-day job had been told to checkpoint every 167 days)?
// When the knobs are solved on fewer replicas than the headline, does a note say so (a knob solved
// to meet the target exactly missed it at the headline's count)?
TEST(RunGoodput, IntervalsStayWithinTheJobAndKnobsSayTheirReplicas) {
  const std::string path = sextant::test_temp::path("goodput-rare.yaml");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "name: rare\n"
        "job: {num_gpus: 64, gpus_per_node: 8, dp: 8, nodes_per_replica: 1, step_time_s: 10, duration_days: 20}\n"
        "failures:\n  processes:\n    - {name: crash, component: software, kind: interrupt, mtbf_hours: 1000000, node_lost: false}\n"
        "checkpoint: {strategy: sync-remote, interval_s: 3600, write_s: 60, read_s: 60}\n"
        "simulation: {replicas: 40, search_replicas: 20, seed: 1}\n",
        f);
    std::fclose(f);
  }
  auto c = load_goodput(path);
  const auto r = run_goodput(c);
  const auto* t = r.table("ettr_vs_interval");
  ASSERT_NE(t, nullptr);
  for (double iv : t->column("interval_s").f64) EXPECT_LE(iv, 20 * 86400.0 + 10) << iv;
  EXPECT_LE(r.number("optimal_interval_sim_s"), 20 * 86400.0 + 10);
  // A target the configured job misses: knobs solved on 20 replicas of the headline's 40.
  auto c2 = load_goodput(path);
  c2.checkpoint.interval_s = 600;
  c2.checkpoint.env.remote_write_s_override = 300;
  c2.sim.target_ettr = 0.9;
  const auto r2 = run_goodput(c2);
  ASSERT_NE(r2.table("knobs"), nullptr);
  bool noted = false;
  for (const auto& n : r2.notes) noted = noted || n.find("knobs are solved with 20 replicas") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Summary, ConfidenceIntervalOfAKnownSample) {
  std::vector<double> v;
  for (int i = 0; i < 1000; ++i) v.push_back(i % 2 ? 1.0 : 0.0);
  const auto s = summarize(v, 0.95);
  EXPECT_DOUBLE_EQ(s.mean, 0.5);
  EXPECT_NEAR(s.ci_high - s.mean, 1.959964 * s.sd / std::sqrt(1000.0), 1e-6);
}

// Is every second lost charged to the process that caused it? Silent data corruption (rework back
// to the last checkpoint before it, then a restart) and fail-slow (degraded compute) showed 0 s in
// failures_by_process while their time was in lost_time_by_cause (2026-12-01). Without elastic
// continuation, the processes' lost time plus the checkpoint saves is all the lost time.
TEST(RunGoodput, EveryProcessIsChargedItsLostTime) {
  const std::string path = sextant::test_temp::path("goodput-sdc-slow.yaml");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "name: sdc-slow\n"
        "job: {num_gpus: 1024, gpus_per_node: 8, step_time_s: 5, tokens_per_step: 1, duration_days: 30}\n"
        "failures:\n  processes:\n"
        "    - {name: sdc, component: gpu, kind: sdc, rate_per_job_day: 1, detection_latency_s: 3600}\n"
        "    - {name: slow, component: gpu, kind: fail-slow, rate_per_job_day: 1, duration_s: 7200, slowdown_factor: 1.5}\n"
        "    - {name: crash, component: software, rate_per_job_day: 0.5, node_lost: false}\n"

        "checkpoint: {strategy: sync-remote, interval_minutes: 30, write_s: 60, read_s: 60}\n"
        "elastic: {enabled: false}\n"
        "simulation: {replicas: 100, seed: 1, search: false}\n",
        f);
    std::fclose(f);
  }
  const auto r = run_goodput(load_goodput(path));
  const auto* procs = r.table("failures_by_process");
  const auto* causes = r.table("lost_time_by_cause");
  ASSERT_NE(procs, nullptr);
  ASSERT_NE(causes, nullptr);
  double by_process = 0, by_cause = 0, saves = 0, degraded = 0;
  for (size_t i = 0; i < procs->rows(); ++i) {
    const double lost = procs->column("lost_mean_s").f64[i];
    EXPECT_GT(lost, 0) << procs->column("process").str[i];
    by_process += lost;
  }
  for (size_t i = 0; i < causes->rows(); ++i) {
    const std::string& cause = causes->column("cause").str[i];
    const double v = causes->column("mean_s").f64[i];
    by_cause += v;
    if (cause == "checkpoint_save") saves = v;
    if (cause == "degraded") degraded = v;
  }
  EXPECT_GT(degraded, 0);
  EXPECT_NEAR(by_process + saves, by_cause, 1e-6 * by_cause);
  // Fail-slow's share is the degraded time: about 30 two-hour episodes of wall time, a third of
  // whose compute is lost at 1.5x (less the saves, and episodes that start while one runs).
  const auto& names = procs->column("process").str;
  const size_t slow = static_cast<size_t>(std::find(names.begin(), names.end(), "slow") - names.begin());
  ASSERT_LT(slow, names.size());
  EXPECT_NEAR(procs->column("lost_mean_s").f64[slow], degraded, 1e-6 * degraded);
  EXPECT_NEAR(degraded, 30 * 7200 * (1 - 1 / 1.5), 0.15 * 30 * 7200 / 3);
}

// A save a process triggers (a preemption's final save, the save before a slow node's eviction)
// is a checkpoint save and charged to no process: the process sums and the saves add up to the
// lost time (the triggered saves had been counted in both, 2026-12-04 review).
TEST(RunGoodput, ASaveAProcessTriggersIsChargedOnce) {
  const std::string path = sextant::test_temp::path("goodput-triggered-saves.yaml");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "name: triggered-saves\n"
        "job: {num_gpus: 1024, gpus_per_node: 8, step_time_s: 5, tokens_per_step: 1, duration_days: 30}\n"
        "failures:\n  processes:\n"
        "    - {name: pre, kind: preemption, rate_per_job_day: 1, notice_s: 1800, downtime_s: 600}\n"
        "    - {name: slow, component: gpu, kind: fail-slow, rate_per_job_day: 1, duration_s: 7200, slowdown_factor: 1.5}\n"
        "recovery: {fail_slow_evict_after_s: 1800}\n"
        "checkpoint: {strategy: sync-remote, interval_minutes: 30, write_s: 60, read_s: 60}\n"
        "simulation: {replicas: 100, seed: 1, search: false}\n",
        f);
    std::fclose(f);
  }
  const auto r = run_goodput(load_goodput(path));
  const auto* procs = r.table("failures_by_process");
  const auto* causes = r.table("lost_time_by_cause");
  ASSERT_NE(procs, nullptr);
  ASSERT_NE(causes, nullptr);
  double by_process = 0, by_cause = 0, saves = 0;
  for (size_t i = 0; i < procs->rows(); ++i) by_process += procs->column("lost_mean_s").f64[i];
  for (size_t i = 0; i < causes->rows(); ++i) {
    by_cause += causes->column("mean_s").f64[i];
    if (causes->column("cause").str[i] == "checkpoint_save") saves = causes->column("mean_s").f64[i];
  }
  EXPECT_GT(saves, 0);
  EXPECT_NEAR(by_process + saves, by_cause, 1e-6 * by_cause);
}

namespace {
// A 100-day job of 64 GPUs (8 data-parallel replicas of one node), one software crash every 6 h,
// a 600 s restart and an asynchronous remote checkpoint every 30 minutes; `extra` adds processes.
GoodputConfig review_job(const std::string& write_s, const std::string& extra_processes, const std::string& strategy = "async-remote") {
  const std::string y =
      "job: {num_gpus: 64, gpus_per_node: 8, dp: 8, nodes_per_replica: 1, duration_days: 100}\n"
      "failures:\n  processes:\n"
      "    - {name: crash, component: software, kind: interrupt, mtbf_hours: 6, node_lost: false}\n" + extra_processes +
      "recovery: {detection_s: 0, eviction_s: 0, hot_spare_s: 0, spares: 100000, repair_days: 0, restart_s: 600, "
      "rendezvous_base_s: 0, warmup_s: 0}\n"
      "checkpoint: {strategy: " + strategy + ", write_s: " + write_s +
      ", read_s: 0, per_gpu_bytes: 1e9, d2h_bytes_per_s: 2e8, interval_minutes: 30, state_copies: 8}\n"
      "elastic: {enabled: true, reconfigure_s: 0, min_replica_fraction: 0.5, throughput: proportional}\n"
      "simulation: {replicas: 600, seed: 3, search: false}\n";
  return parse_goodput(y, "review.yaml");
}

double crash_lost_s(const sextant::Result& r) {
  const auto* procs = r.table("failures_by_process");
  for (size_t i = 0; i < procs->column("process").str.size(); ++i)
    if (procs->column("process").str[i] == "crash") return procs->column("lost_mean_s").f64[i];
  return -1;
}
}  // namespace

// Question: does a fail-slow episode that slows nothing leave the result alone? It splits the run
// where it starts and ends; before 2026-12-03 a background save in flight at the split was
// dropped once the next stretch took a checkpoint, even though it had finished (0.813 against
// 0.880 with 1,200 s saves).
TEST(RunGoodput, AFailSlowEpisodeThatSlowsNothingCostsNothing) {
  const std::string slow = "    - {name: slow, component: gpu, kind: fail-slow, rate_per_job_day: 50, duration_s: 600, slowdown_factor: 1.0}\n";
  const auto r0 = run_goodput(review_job("1200", ""));
  const auto r1 = run_goodput(review_job("1200", slow));
  EXPECT_NEAR(r1.number("ettr_fraction"), r0.number("ettr_fraction"), 0.004);
}

// Question: does an elastic continuation that costs nothing (no detection, no reconfiguration)
// leave the crashes' rework alone? No state is rolled back, so the checkpoint cycle goes on; before
// 2026-12-03 the interval restarted at every continuation and rejoin, and a crash lost 1.9x the
// work (sync-remote, 300 s writes).
TEST(RunGoodput, ElasticContinuationKeepsTheCheckpointCycle) {
  const std::string node = "    - {name: node, component: gpu, kind: interrupt, rate_per_job_day: 50, node_lost: true, detection_s: 0}\n";
  const auto r0 = run_goodput(review_job("300", "", "sync-remote"));
  const auto r1 = run_goodput(review_job("300", node, "sync-remote"));
  EXPECT_NEAR(crash_lost_s(r1) / crash_lost_s(r0), 1.0, 0.15);
}

// Question: is a checkpoint interval shorter than the persist said? Each cycle waits for the
// previous save; a 3,000 s persist at a 30-minute interval waits 1,200 s a cycle.
TEST(RunGoodput, AnIntervalShorterThanThePersistIsNoted) {
  auto note_of = [](const sextant::Result& r) {
    for (const auto& n : r.notes)
      if (n.find("shorter than a checkpoint's persist") != std::string::npos) return n;
    return std::string();
  };
  const std::string n = note_of(run_goodput(review_job("3000", "")));
  EXPECT_NE(n.find("waits 1200 s"), std::string::npos) << n;
  EXPECT_NE(n.find("at least 3000 s"), std::string::npos) << n;
  EXPECT_EQ(note_of(run_goodput(review_job("1200", ""))), "");
}

// Question: is an elastic rejoin's pause charged to the process whose failure removed the
// replica? Only the saves and the slower elastic compute go to no process (docs/goodput.md);
// before 2026-12-03 every rejoin's reconfiguration was charged to none.
TEST(RunGoodput, ElasticRejoinsAreChargedToTheFailureThatCausedThem) {
  const auto c = parse_goodput(
      "job: {num_gpus: 64, gpus_per_node: 8, dp: 8, nodes_per_replica: 1, duration_days: 30}\n"
      "failures:\n  processes:\n"
      "    - {name: node, component: gpu, kind: interrupt, rate_per_job_day: 5, node_lost: true, detection_s: 30}\n"
      "recovery: {spares: 100000, repair_days: 0}\n"
      "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_minutes: 30, state_copies: 8}\n"
      "elastic: {enabled: true, reconfigure_s: 120, min_replica_fraction: 0.5, throughput: proportional}\n"
      "simulation: {replicas: 100, seed: 5, search: false}\n",
      "elastic.yaml");
  const auto r = run_goodput(c);
  const auto* procs = r.table("failures_by_process");
  const auto* causes = r.table("lost_time_by_cause");
  ASSERT_NE(procs, nullptr);
  ASSERT_NE(causes, nullptr);
  double by_process = 0, by_cause = 0, unattributed = 0;
  for (size_t i = 0; i < procs->rows(); ++i) by_process += procs->column("lost_mean_s").f64[i];
  for (size_t i = 0; i < causes->rows(); ++i) {
    const std::string& cause = causes->column("cause").str[i];
    by_cause += causes->column("mean_s").f64[i];
    if (cause == "checkpoint_save" || cause == "degraded") unattributed += causes->column("mean_s").f64[i];
  }
  // About 150 node losses, each a continuation and a rejoin of 120 s: 36,000 s charged somewhere.
  EXPECT_GT(by_cause - unattributed, 150 * 120);
  EXPECT_NEAR(by_process + unattributed, by_cause, 1e-6 * by_cause);
}

// Question: do the closed forms charge each failure the persist of the level it restores from?
// Multi-level on node storage (20 s) and remote storage (800 s every 5th checkpoint), software
// crashes only, which the node level survives: Daly's ETTR with P = 20 s, as the simulation gives
// (0.926; with the remote 800 s it read 0.893 before 2026-12-03).
TEST(RunGoodput, ClosedFormsChargeThePersistOfTheLevelRestoredFrom) {
  auto c = parse_goodput(
      "job: {num_gpus: 64, gpus_per_node: 8, duration_days: 100}\n"
      "failures: {processes: [{name: crash, component: software, kind: interrupt, mtbf_hours: 6, node_lost: false}]}\n"
      "recovery: {detection_s: 0, eviction_s: 0, restart_s: 600, rendezvous_base_s: 0, warmup_s: 0, spares: 1000}\n"
      "checkpoint: {strategy: multi-level, bytes: 8e11, storage_write_bytes_per_s: 1e9, node_storage_bytes_per_s: 0, "
      "d2h_bytes_per_s: 1e9, per_gpu_bytes: 1e10, interval_minutes: 30}\n"
      "simulation: {replicas: 600, seed: 1, search: false}\n",
      "ml.yaml");
  const auto r = run_goodput(c);
  EXPECT_NEAR(r.number("daly_expected_ettr_fraction"), r.number("ettr_fraction"), 0.003);
}

namespace {
// The note that starts with `start`, or "".
std::string note_of(const sextant::Result& r, const std::string& start) {
  for (const auto& n : r.notes)
    if (n.rfind(start, 0) == 0) return n;
  return std::string();
}
// The number after `word` in a note.
double number_after(const std::string& note, const std::string& word) {
  const size_t at = note.find(word);
  return at == std::string::npos ? std::nan("") : std::stod(note.substr(at + word.size()));
}
// A 60-day job of 64 GPUs under `processes` (YAML list items), a 300 s restart and a 60 s
// synchronous save every hour.
GoodputConfig left_out_job(const std::string& processes, const std::string& recovery = "") {
  return parse_goodput("job: {num_gpus: 64, gpus_per_node: 8, step_time_s: 1, duration_days: 60}\n"
                       "failures:\n  processes:\n" + processes +
                       "recovery: {detection_s: 0, eviction_s: 0, restart_s: 300, rendezvous_base_s: 0, warmup_s: 0" + recovery + "}\n"
                       "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_s: 3600}\n"
                       "simulation: {replicas: 400, seed: 1, search: false}\n",
                       "leftout.yaml");
}
const std::string kCrash = "    - {name: crash, component: software, rate_per_job_day: 1}\n";
}  // namespace

// Question (review of 2026-12-06): do the closed forms say what they leave out, with its size? A
// pool of one spare against 19 nodes in repair read Daly 0.906 where the simulation requeues 332
// times a job, 0.702: the restart now pays the pool's Erlang share of requeues and agrees. An SDC
// found after its latency and fail-slow episodes are not in the closed forms: a note gives the
// size, which closes the gap to the simulation.
TEST(RunGoodput, ClosedFormsSayWhatTheyLeaveOut) {
  {
    auto c = load_goodput(std::string(SEXTANT_SOURCE_DIR) + "/data/examples/goodput-llama3-405b-16k.yaml", {{"recovery.spares", "1"}});
    c.sim.replicas = 200;
    c.sim.search = false;
    const auto r = run_goodput(c);
    EXPECT_NEAR(r.number("daly_expected_ettr_fraction"), r.number("ettr_fraction"), 0.01);
    const std::string n = note_of(r, "spare pool:");
    EXPECT_NE(n.find("95.1% of node losses"), std::string::npos) << n;
  }
  {
    const auto r = run_goodput(left_out_job(kCrash + "    - {name: slow, component: gpu, kind: fail-slow, rate_per_job_day: 4, duration_s: 7200, slowdown_factor: 2}\n"));
    const std::string n = note_of(r, "fail-slow episodes (");
    const double percent = number_after(n, "by about ");
    EXPECT_NEAR(percent, 12.5, 0.05) << n;
    EXPECT_NEAR(r.number("daly_expected_ettr_fraction") * (1 - percent / 100), r.number("ettr_fraction"), 0.01) << n;
  }
  // Neither note without its cause, nor the pool's where it is never short.
  const auto plain = run_goodput(left_out_job(kCrash));
  EXPECT_EQ(note_of(plain, "silent data corruption ("), "");
  EXPECT_EQ(note_of(plain, "fail-slow episodes ("), "");
  EXPECT_EQ(note_of(plain, "spare pool:"), "");
}

// Question (review of 2026-12-06): is the fail-slow note given where fail-slow episodes are the
// only process? They lose no work, and the note sat among those of a work-losing rate above 0:
// four 2-hour episodes a day at half speed read Daly 0.984 beside a simulated 0.862, unsaid.
TEST(RunGoodput, FailSlowAloneIsNoted) {
  const auto r = run_goodput(left_out_job("    - {name: slow, component: gpu, kind: fail-slow, rate_per_job_day: 4, duration_s: 7200, slowdown_factor: 2}\n"));
  const std::string n = note_of(r, "fail-slow episodes (");
  const double percent = number_after(n, "by about ");
  EXPECT_NEAR(percent, 12.5, 0.05) << n;
  EXPECT_NEAR(r.number("daly_expected_ettr_fraction") * (1 - percent / 100), r.number("ettr_fraction"), 0.01) << n;
}

// Question (review of 2026-12-06): what share of the wall time does an SDC's latency take? The
// engine holds one corruption pending at a time and draws none while the job is down: pending a
// share r u L / (1 + r u L) of the wall time (u the share of time running), by which the
// closed-form ETTRs read high. The note had given r L capped at 1 (1.0 at 12 a day found after
// 7,200 s, where Daly 0.699 less it is -0.30 against a simulated 0.361).
TEST(RunGoodput, TheSdcNoteGivesTheShareOfTimeACorruptionIsPending) {
  const struct {
    double per_day, latency_s;
  } cases[] = {{1, 3600}, {4, 3600}, {12, 7200}};
  for (const auto& c : cases) {
    char line[200];
    std::snprintf(line, sizeof line, "    - {name: sdc, component: gpu, kind: sdc, rate_per_job_day: %g, detection_latency_s: %g}\n",
                  c.per_day, c.latency_s);
    const auto r = run_goodput(left_out_job(kCrash + line));
    const std::string n = note_of(r, "silent data corruption (");
    const double share = number_after(n, "one at a time, about ");
    EXPECT_GT(share, 0) << n;
    EXPECT_LT(share, 1) << n;
    EXPECT_NEAR(r.number("daly_expected_ettr_fraction") * (1 - share), r.number("ettr_fraction"), 0.01) << n;
  }
}

// Question (review of 2026-12-06): does a job shorter than a repair pay the requeues of its own
// losses only? It starts with a full pool: a 3-day job losing 6 nodes a day with 30-day repairs
// loses about 18 nodes against 32 spares. The steady state's 82% of losses requeued (180 nodes in
// repair) had read Daly 0.613 and Meta 0.515 beside a simulated 0.922.
TEST(RunGoodput, ClosedFormsChargeTheRequeuesOfTheJobsOwnPool) {
  const auto r = run_goodput(parse_goodput(
      "job: {num_gpus: 16384, gpus_per_node: 8, step_time_s: 6.5, duration_days: 3}\n"
      "failures: {processes: [{name: hw, component: gpu, kind: interrupt, rate_per_job_day: 6}]}\n"
      "recovery: {detection_s: 60, eviction_s: 300, replacement: hot-spare, hot_spare_s: 60, requeue_s: 7200, spares: 32, "
      "repair_days: 30, restart_s: 60, rendezvous_base_s: 30, warmup_s: 120}\n"
      "checkpoint: {strategy: async-remote, interval_minutes: 10, write_s: 60, read_s: 60, snapshot_s: 5}\n"
      "simulation: {replicas: 400, seed: 1, search: false}\n",
      "short.yaml"));
  EXPECT_NEAR(r.number("daly_expected_ettr_fraction"), r.number("ettr_fraction"), 0.01);
  EXPECT_NEAR(r.number("meta_expected_ettr_fraction"), r.number("ettr_fraction"), 0.01);
  EXPECT_LT(r.number("mean_restart_s"), 700);
  EXPECT_EQ(note_of(r, "spare pool:"), "");
}

namespace {
// 64 nodes losing one a day and meeting 20 two-hour fail-slow episodes a day at 1.5x, the slow node
// evicted after 600 s (20 x e^(-1/12) a day at full speed), a day's repair, an hour's requeue.
const std::string kSlowEvicted = "    - {name: hw, component: gpu, kind: interrupt, rate_per_job_day: 1}\n"
                                 "    - {name: slow, component: gpu, kind: fail-slow, rate_per_job_day: 20, duration_s: 7200, "
                                 "slowdown_factor: 1.5}\n";
const std::string kEvictRecovery = ", repair_days: 1, requeue_s: 3600, fail_slow_evict_after_s: 600";
}  // namespace

// Question (review of 2026-12-06): does the spare-pool note's count of nodes in repair take the
// load its share does, the evictions at the rate the job meets them? Slow nodes evicted after
// 600 s take spares too, but only while the job runs: with 5 spares it queues for a third of its
// wall time. Every loss here takes one node, so the simulation's mean in repair over the 60-day job
// from an empty repair shop is its losses a day x (1 - 1/120). The note had counted the node losses
// alone (1 node beside a 76% share), then the evictions as if the job always ran (19.2 beside a
// simulated 11.6); now 11.4.
TEST(RunGoodput, TheSparePoolNoteCountsTheEvictions) {
  const auto r = run_goodput(left_out_job(kSlowEvicted, ", spares: 5" + kEvictRecovery));
  const std::string n = note_of(r, "spare pool:");
  const double simulated = r.number("interruptions_mean_count") / 60.0 * (1 - 1 / (2 * 60.0));
  EXPECT_NEAR(number_after(n, "short ("), simulated, 0.3) << n;
}

// Question (review of 2026-12-06): is the running fraction the pool's load takes the one the
// closed forms' result implies? The evictions load the pool per second of running; the requeue
// share they give sets every recovery's time and so the share of time running. At the solution
// the running fraction u behind the load (the spare-pool note's nodes in repair) gives back, from
// the reported restart and eviction cost, u = (1 - rate x mean_restart_s) / (1 + eviction rate x
// eviction cost) within the stated tolerance; and it is the simulation's (0.657: the wall time
// neither recovering, queueing nor saving at an eviction) within 0.015.
TEST(RunGoodput, TheRunningFractionIsAFixedPoint) {
  const GoodputConfig c = left_out_job(kSlowEvicted, ", spares: 5" + kEvictRecovery);
  const double u = c.running_fraction();
  EXPECT_GT(u, 0.5);
  EXPECT_LT(u, 0.8);
  const double implied = (1 - c.graceful_rate_per_s() * c.graceful_cost_s() - c.work_losing_rate_per_s() * c.mean_restart_s()) /
                         (1 + c.eviction_rate_per_s() * c.eviction_cost_s());
  EXPECT_NEAR(implied, u, kRunningFractionTolerance);
  EXPECT_NEAR(c.implied_running_fraction(u), u, kRunningFractionTolerance);
  // The load behind the shares is the evictions at u: one loss a day and the evictions per day of
  // running times u, for a day's repair, averaged over 60 repair times.
  EXPECT_NEAR(c.nodes_in_repair_mean(), (1 + c.eviction_rate_per_s() * 86400.0 * u) * (1 - 1 / (2 * 60.0)), 1e-9);
  // Without a pool that runs short nothing depends on it: 1000 spares give implied(1) at once.
  const GoodputConfig large = left_out_job(kSlowEvicted, ", spares: 1000" + kEvictRecovery);
  EXPECT_EQ(large.running_fraction(), large.implied_running_fraction(1.0));
  // The simulation's running fraction: the wall time less the recovery causes and the evictions'
  // saves (each interruption not a crash is an eviction, saved in 60 s).
  const auto r = run_goodput(c);
  const auto* t = r.table("lost_time_by_cause");
  ASSERT_NE(t, nullptr);
  double down = 0;
  for (size_t i = 0; i < t->column("cause").str.size(); ++i)
    if (t->column("cause").str[i] != "checkpoint_save" && t->column("cause").str[i] != "rework" && t->column("cause").str[i] != "degraded")
      down += t->column("mean_s").f64[i];
  const auto* f = r.table("failures_by_process");
  ASSERT_NE(f, nullptr);
  down += (r.number("interruptions_mean_count") - f->column("mean_count").f64[0]) * 60.0;
  EXPECT_NEAR(1 - down / r.number("duration_s"), u, 0.015);
}

// Question (review of 2026-12-06): does spares_p99_count size the pool for every loss that takes
// spares? It counted the node-losing interrupts alone: with 20 fail-slow episodes a day evicted
// after 600 s and a day's repair it read 4 where the spare-pool note gave 19.2 nodes in repair on
// average and the simulation, never short of spares, 30 at most at once.
TEST(RunGoodput, SparesP99CountsTheEvictions) {
  const std::string& procs = kSlowEvicted;
  const std::string& recovery = kEvictRecovery;
  const auto short_pool = run_goodput(left_out_job(procs, ", spares: 5" + recovery));
  const std::string n = note_of(short_pool, "spare pool:");
  EXPECT_GE(short_pool.number("spares_p99_count"), number_after(n, "short (")) << n;
  const auto large_pool = run_goodput(left_out_job(procs, ", spares: 1000" + recovery));
  EXPECT_NEAR(large_pool.number("spares_p99_count"), large_pool.number("spares_sim_p99_count"), 3);
}

// Question (review of 2026-12-06): do the closed forms charge the slow-node evictions? Each is a
// graceful interruption (saved at the eviction) that costs a save, a spare or a requeue, and a
// restart; the closed forms left them out, Daly 0.929 beside a simulated 0.613 with 5 spares, 0.285
// of the wall time queueing for nodes. With the slowdown's share (the note's) taken off, do Daly
// and Meta follow the simulation, with spares enough and with 5? With 5 the pool's load had taken
// the evictions at their rate as if the job always ran, where it runs 0.657 of its wall time: a
// share of 0.76 where the simulation requeues 0.60 of its losses, Daly 0.560 beside 0.6125. The
// load now takes them at the running fraction that the result implies (a fixed point): a share of
// 0.612, Daly 0.5996 and Meta 0.5991, within 0.015; 0.8445 beside 0.852 with 1,000 spares.
TEST(RunGoodput, ClosedFormsChargeTheSlowNodeEvictions) {
  const std::string& procs = kSlowEvicted;
  const std::string& recovery = kEvictRecovery;
  const struct {
    const char* spares;
    double tolerance;
  } cases[] = {{"1000", 0.01}, {"5", 0.015}};
  for (const auto& k : cases) {
    const auto r = run_goodput(left_out_job(procs, std::string(", spares: ") + k.spares + recovery));
    const std::string n = note_of(r, "fail-slow episodes (");
    const double percent = number_after(n, "by about ");
    EXPECT_GT(number_after(n, "restart), about "), 0) << n;
    EXPECT_NEAR(r.number("daly_expected_ettr_fraction") * (1 - percent / 100), r.number("ettr_fraction"), k.tolerance) << k.spares << " " << n;
    EXPECT_NEAR(r.number("meta_expected_ettr_fraction") * (1 - percent / 100), r.number("ettr_fraction"), k.tolerance) << k.spares << " " << n;
  }
}

// Review of 2026-12-06: graceful preemptions arrive in wall time, and one during the downtime or
// restart of another starts it again, as a failure during Daly's restart does (his e^{R/M}). The
// closed forms take the share of the wall time they leave as 1 / (lambda S + e^{lambda D'}) (S the
// save, D' the downtime, restart, restore and warm-up); the first-order 1 - lambda (S + D') read
// 0.8333 against a simulated 0.8393 with 1,800 s of downtime at four a day, 0.603 against 0.656
// with 7,200 s.
TEST(RunGoodput, GracefulPreemptionsDuringADowntimeStartItAgain) {
  const double lambda = 4 / 86400.0, S = 300, tau = 3600;
  for (const double downtime : {1800.0, 7200.0}) {
    char y[1024];
    std::snprintf(y, sizeof y,
                  "job: {num_gpus: 8, gpus_per_node: 8, step_time_s: 1, work_days: 30}\n"
                  "failures: {processes: [{name: pre, kind: preemption, rate_per_job_day: 4, notice_s: 600, downtime_s: %g}]}\n"
                  "recovery: {detection_s: 0, eviction_s: 0, restart_s: 0, rendezvous_base_s: 0, warmup_s: 0}\n"
                  "checkpoint: {strategy: sync-remote, write_s: %g, read_s: 0, interval_s: %g}\n"
                  "simulation: {replicas: 400, seed: 1, search: false}\n",
                  downtime, S, tau);
    const auto r = run_goodput(parse_goodput(y, "downtime.yaml"));
    const double daly = r.number("daly_expected_ettr_fraction"), sim = r.number("ettr_fraction");
    // A graceful preemption stops the cheapest way (2026-12-07 review): at u into a cycle it loses
    // u < S, writes the final save for S <= u < tau, or finishes the periodic save under way (which
    // tau / (tau + S) charges): S (tau - S / 2) / (tau + S) on average where it had been S.
    const double stop = S * (tau - S / 2) / (tau + S);
    EXPECT_NEAR(daly, tau / (tau + S) / (lambda * stop + std::exp(lambda * downtime)), 1e-6);
    EXPECT_NEAR(r.number("meta_expected_ettr_fraction"), daly, 1e-9);
    // Within 0.002: the closed form leaves out the periodic saves a preemption cuts short (+0.0005).
    EXPECT_NEAR(sim, daly, 0.002) << downtime << " s";
  }
}

// Review of 2026-12-07: a preemption whose notice is too short for the final save keeps the
// checkpoint that lands within it (a background persist, or under sync-remote the blocking write
// itself), which the engine does; the closed forms charged the persist P whatever the notice
// (async-remote, a 300 s persist and 299 s of notice: Daly 0.8338 against a simulated 0.8447,
// 14 half-widths low). They now take P - (n - n^2 / (2 C)): Daly follows the simulation from no
// notice to a notice just short of the save, for a background persist and for a blocking save.
TEST(RunGoodput, ClosedFormsCountTheNoticeOfShortPreemptions) {
  struct Case {
    const char* checkpoint;
    double per_day, downtime_s, notice_s;
  };
  const Case cases[] = {{"strategy: async-remote, snapshot_s: 0.01, write_s: 300, read_s: 0, interval_s: 3600", 4, 1800, 299},
                        {"strategy: sync-remote, write_s: 1800, read_s: 0, interval_s: 3600", 2, 600, 1799},
                        {"strategy: sync-remote, write_s: 1800, read_s: 0, interval_s: 3600", 2, 600, 1000}};
  for (const auto& k : cases) {
    auto at = [&](double notice) {
      char y[1024];
      std::snprintf(y, sizeof y,
                    "job: {num_gpus: 8, gpus_per_node: 8, step_time_s: 1, duration_days: 100}\n"
                    "failures: {processes: [{name: p, component: operations, kind: preemption, rate_per_job_day: %g, "
                    "notice_s: %g, downtime_s: %g}]}\n"
                    "recovery: {detection_s: 0, eviction_s: 0, restart_s: 0, rendezvous_base_s: 0, warmup_s: 0}\n"
                    "checkpoint: {%s}\n"
                    "simulation: {replicas: 400, seed: 1, search: false}\n",
                    k.per_day, notice, k.downtime_s, k.checkpoint);
      return run_goodput(parse_goodput(y, "notice.yaml"));
    };
    const auto none = at(0), some = at(k.notice_s);
    const double sim0 = none.number("ettr_fraction"), sim = some.number("ettr_fraction");
    const double daly0 = none.number("daly_expected_ettr_fraction"), daly = some.number("daly_expected_ettr_fraction");
    ASSERT_GT(sim - sim0, 0.01) << k.checkpoint;
    EXPECT_NEAR(daly, sim, 0.001) << k.checkpoint << ", " << k.notice_s << " s of notice";
    EXPECT_NEAR(daly - daly0, sim - sim0, 0.05 * (sim - sim0)) << k.checkpoint << ", " << k.notice_s << " s of notice";
    // Meta's form takes the same restart: it moves the same way.
    EXPECT_GT(some.number("meta_expected_ettr_fraction") - none.number("meta_expected_ettr_fraction"), 0.5 * (sim - sim0));
    // The sweep's model column is Daly's at each interval (at the configured one, the headline's).
    const auto* t = some.table("closed_forms");
    ASSERT_NE(t, nullptr);
    EXPECT_DOUBLE_EQ(t->column("daly_model_ettr_fraction").f64[0], daly);
  }
}

// Review of 2026-12-07: the mean_restart_s knob's text said "x0.0983734 on every recovery.* time
// and each process's detection_s" where the solver scales neither recovery.repair_days/repair_s
// nor recovery.fail_slow_evict_after_s: a user scaling every recovery.* time reached ETTR 0.9798,
// not the 0.97 asked. Does the text name exactly the recovery times scale_restart scales? Every
// recovery time the input takes, each set to its own value, is either scaled by the factor (and
// named) or left alone (and not named); each process's own detection_s is scaled.
TEST(RestartKnob, ItsTextNamesExactlyTheTimesItScales) {
  struct Key {
    const char* name;
    double RecoveryConfig::*seconds;
  };
  // Every time under recovery: the input takes (the test's own list, not the solver's).
  const Key keys[] = {
      {"detection_s", &RecoveryConfig::detection_s},
      {"eviction_s", &RecoveryConfig::eviction_s},
      {"hot_spare_s", &RecoveryConfig::hot_spare_s},
      {"warm_standby_s", &RecoveryConfig::warm_standby_s},
      {"requeue_s", &RecoveryConfig::requeue_s},
      {"repair_s", &RecoveryConfig::repair_s},
      {"restart_s", &RecoveryConfig::restart_s},
      {"rendezvous_base_s", &RecoveryConfig::rendezvous_base_s},
      {"rendezvous_per_node_s", &RecoveryConfig::rendezvous_per_node_s},
      {"rendezvous_log2_s", &RecoveryConfig::rendezvous_log2_s},
      {"warmup_s", &RecoveryConfig::warmup_s},
      {"fail_slow_evict_after_s", &RecoveryConfig::fail_slow_evict_after_s},
  };
  std::string recovery;
  for (size_t i = 0; i < std::size(keys); ++i)
    recovery += std::string(i ? ", " : "") + keys[i].name + ": " + std::to_string(100 + i);
  const GoodputConfig c = parse_goodput(
      "job: {num_gpus: 64, gpus_per_node: 8, step_time_s: 1, duration_days: 10}\n"
      "failures:\n  processes:\n"
      "    - {name: crash, component: software, kind: interrupt, rate_per_job_day: 1, detection_s: 7}\n"
      "    - {name: gpu, component: gpu, kind: interrupt, rate_per_job_day: 1}\n"
      "recovery: {" + recovery + "}\n"
      "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_s: 3600}\n"
      "simulation: {replicas: 10, seed: 1, search: false}\n",
      "restart.yaml");
  GoodputConfig scaled = c;
  scale_restart(scaled, 0.5);
  std::set<std::string> halved;
  for (size_t i = 0; i < std::size(keys); ++i) {
    const double before = c.recovery.*keys[i].seconds, after = scaled.recovery.*keys[i].seconds;
    ASSERT_EQ(before, double(100 + i)) << keys[i].name;  // the test's list reads the input's keys
    if (after == before / 2) halved.insert(std::string("recovery.") + keys[i].name);
    else EXPECT_EQ(after, before) << keys[i].name << ": neither scaled nor left alone";
  }
  ASSERT_EQ(c.processes.size(), 2u);
  EXPECT_EQ(scaled.processes[0].detection_s, 3.5);
  EXPECT_EQ(scaled.processes[1].detection_s, c.processes[1].detection_s);  // the recovery's, scaled there

  const std::string text = restart_scale_text(0.5);
  const std::string head = "x0.5 on ", tail = " and each process's detection_s";
  ASSERT_EQ(text.rfind(head, 0), 0u) << text;
  ASSERT_GE(text.size(), head.size() + tail.size()) << text;
  ASSERT_EQ(text.substr(text.size() - tail.size()), tail) << text;
  std::set<std::string> named;
  const std::string list = text.substr(head.size(), text.size() - head.size() - tail.size());
  for (size_t at = 0; at <= list.size();) {
    const size_t comma = std::min(list.find(", ", at), list.size());
    named.insert(list.substr(at, comma - at));
    at = comma + 2;
  }
  EXPECT_EQ(named, halved) << text;
  EXPECT_FALSE(named.count("recovery.repair_s"));
  EXPECT_FALSE(named.count("recovery.fail_slow_evict_after_s"));

  // The knobs table says the same: its mean_restart_s value names these keys at the factor solved.
  // The target halfway between the ETTR as given and with no restart time: reachable by this knob.
  GoodputConfig t = c, none = c;
  scale_restart(none, 0);
  t.sim.search = true;
  t.sim.replicas = t.sim.search_replicas = 20;
  t.sim.target_ettr = 0.5 * (simulated_mean_ettr(t, 20) + simulated_mean_ettr(none, 20));
  const auto r = run_goodput(t);
  const auto* knobs = r.table("knobs");
  ASSERT_NE(knobs, nullptr);
  const auto& names = knobs->column("knob").str;
  const size_t j = size_t(std::find(names.begin(), names.end(), "mean_restart_s") - names.begin());
  ASSERT_LT(j, names.size());
  ASSERT_EQ(knobs->column("reachable").str[j], "yes");
  const std::string required = knobs->column("required").str[j];
  EXPECT_EQ(required.find("every recovery"), std::string::npos) << required;
  const size_t x = required.find("(x");
  ASSERT_NE(x, std::string::npos) << required;
  const double k = std::stod(required.substr(x + 2));
  EXPECT_EQ(required.substr(x + 1, required.size() - x - 2), restart_scale_text(k)) << required;
}

// Review of 2026-12-07: the knobs are solved on the search's replicas, the headline's first 200,
// whose ETTR can sit several headline half-widths from the headline's. On this job (the review's
// s1.yaml) with seed 2 the headline, 0.8429 [0.8423, 0.8435] at 10,000 replicas, misses a 0.845
// target that the first 200 meet (0.8455): every knob read "within noise (the search's replicas
// meet it, the headline misses it)" at its current value. With seed 1 the first 200 read 0.8384
// and failure_rate_scale 0.961 was asked where 0.99 reaches the target at 10,000. Now the subset
// is solved for the target shifted by its offset from the headline, within noise is the
// headline's own 95% interval, and each solved knob states how far a re-run at the headline's
// replicas can land from its ettr_at_required (ettr_at_required_margin_fraction): those re-runs
// land within it, and so within that margin of the target.
TEST(RunGoodput, KnobsSolvedOnTheSearchReplicasHoldAtTheHeadlines) {
  const std::string yaml =
      "name: s1\n"
      "job: {num_gpus: 1024, gpus_per_node: 8, dp: 16, nodes_per_replica: 8, step_time_s: 2.0, tokens_per_step: 4000000, duration_days: 10}\n"
      "failures:\n  processes:\n"
      "    - {name: crash, component: gpu, kind: interrupt, rate_per_1000_node_days: 20}\n"
      "    - {name: sw, component: software, kind: interrupt, rate_per_job_day: 2}\n"
      "recovery: {detection_s: 60, eviction_s: 300, replacement: hot-spare, spares: 4, repair_days: 2, restart_s: 120, warmup_s: 120}\n"
      "checkpoint: {strategy: sync-remote, interval_minutes: 60, params: 70.0e9, bytes_per_param: 14, storage_write_bytes_per_s: 5.0e10,\n"
      "             storage_read_bytes_per_s: 5.0e10, node_storage_bytes_per_s: 5.0e9, d2h_bytes_per_s: 25.0e9}\n"
      "simulation: {replicas: 10000, search_replicas: 200, seed: 1, target_ettr: 0.845}\n";
  const int64_t n = 10000;
  for (const uint64_t seed : {uint64_t(2), uint64_t(1)}) {
    GoodputConfig c = parse_goodput(yaml, "s1.yaml");
    c.sim.seed = seed;
    const auto r = run_goodput(c);
    const double head = r.number("ettr_fraction");
    ASSERT_LT(r.number("ettr_ci_high_fraction"), 0.845) << "seed " << seed << ": the headline misses the target beyond its interval";
    const auto* k = r.table("knobs");
    ASSERT_NE(k, nullptr);
    const auto& knob = k->column("knob").str;
    const auto& reachable = k->column("reachable").str;
    const auto& at = k->column("ettr_at_required_fraction").f64;
    const auto& margin = k->column("ettr_at_required_margin_fraction").f64;
    const auto& required = k->column("required_value").f64;
    int solved = 0;
    for (size_t i = 0; i < knob.size(); ++i) {
      EXPECT_EQ(reachable[i].find("within noise"), std::string::npos) << "seed " << seed << " " << knob[i];
      if (reachable[i] != "yes") continue;
      EXPECT_GE(at[i], 0.845) << knob[i];
      EXPECT_GT(margin[i], 0) << knob[i];
      EXPECT_LT(margin[i], 0.002) << knob[i];
      // The knob's value at the headline's replicas and seed.
      GoodputConfig cc = c;
      if (knob[i] == "failure_rate_scale") {
        cc.failure_rate_scale = required[i];
      } else if (knob[i] == "checkpoint_interval_s") {
        cc.checkpoint.interval_rule.clear();
        cc.checkpoint.interval_s = required[i];
      } else if (knob[i] == "spares_count") {
        cc.recovery.spares_count = int64_t(std::llround(required[i]));
      } else {
        continue;
      }
      resolve_interval(cc);
      ++solved;
      const double e = simulated_mean_ettr(cc, n);
      EXPECT_LE(std::fabs(e - at[i]), margin[i]) << "seed " << seed << " " << knob[i] << " " << required[i] << ": " << e << " at "
                                                 << n << " replicas, " << at[i] << " +- " << margin[i] << " said (headline " << head << ")";
      if (knob[i] == "failure_rate_scale") {
        EXPECT_LE(e, 0.845 + 2 * margin[i]) << "seed " << seed << ": the cut in failures overshoots";
      }
    }
    EXPECT_GE(solved, 2) << "seed " << seed;
  }
}

// Question (2026-12-07 review): is the interval knob resolved as the other knobs are, to 0.1%?
// Its bisection stopped at a 2% bracket: Daly's job (24 h MTBF, 300 s saves, 600 s restarts) at
// 1,500 s for a 0.89 target was told 3,279.93 s (ETTR 0.8907) where about 3,245 s reaches 0.89.
TEST(RunGoodput, TheIntervalKnobIsResolvedToATenthOfAPercent) {
  const std::string y =
      "job: {num_gpus: 8, gpus_per_node: 8, dp: 1, nodes_per_replica: 1, work_s: 1800000}\n"
      "failures: {processes: [{name: crash, component: software, kind: interrupt, mtbf_hours: 24}]}\n"
      "recovery: {detection_s: 0, eviction_s: 0, replacement: hot-spare, hot_spare_s: 0, restart_s: 600, rendezvous_base_s: 0, warmup_s: 0}\n"
      "checkpoint: {strategy: sync-remote, interval_s: 1500, write_s: 300, read_s: 0}\n"
      "simulation: {replicas: 2000, seed: 1, target_ettr: 0.89}\n";
  const GoodputConfig c = parse_goodput(y, "daly.yaml");
  const auto r = run_goodput(c);
  ASSERT_LT(r.number("ettr_fraction"), 0.89);
  const auto* k = r.table("knobs");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->column("knob").str[0], "checkpoint_interval_s");
  ASSERT_EQ(k->column("reachable").str[0], "yes");
  const double tau = k->column("required_value").f64[0], at = k->column("ettr_at_required_fraction").f64[0];
  EXPECT_GE(at, 0.89);
  EXPECT_LT(at - 0.89, 2e-4) << tau;
  EXPECT_LT(tau, 3260.0) << at;
  // The search's replicas (the headline's first 200) just reach their shifted target there, and
  // miss it 0.5% nearer the configured interval.
  const double bias = simulated_mean_ettr(c, c.sim.search_replicas) - r.number("ettr_fraction");
  GoodputConfig at_tau = c, below = c;
  at_tau.checkpoint.interval_s = tau;
  below.checkpoint.interval_s = tau / 1.005;
  EXPECT_GE(simulated_mean_ettr(at_tau, c.sim.search_replicas), 0.89 + bias);
  EXPECT_LT(simulated_mean_ettr(below, c.sim.search_replicas), 0.89 + bias);
}

// Question (2026-12-07 review): does no interval the output offers exceed the job? With failures
// rare (rate_scale 1e-9) the 54-day example's sweep rounded the job's length up to whole steps,
// 4,665,602.5 s for 4,665,600 s, and the strategies table gave sync-remote's Daly interval,
// 7,954,180 s.
TEST(RunGoodput, NoIntervalIsLongerThanTheJob) {
  auto c = load_goodput(std::string(SEXTANT_SOURCE_DIR) + "/data/examples/goodput-llama3-405b-16k.yaml");
  c.failure_rate_scale = 1e-9;
  resolve_interval(c);
  c.sim.replicas = 20;
  c.sim.search_replicas = 10;
  const double job = c.job.horizon_s;
  ASSERT_DOUBLE_EQ(job, 54 * 86400.0);
  const auto r = run_goodput(c);
  EXPECT_LE(r.number("optimal_interval_sim_s"), job);
  for (double iv : r.table("ettr_vs_interval")->column("interval_s").f64) EXPECT_LE(iv, job);
  const auto* s = r.table("strategies");
  ASSERT_NE(s, nullptr);
  for (size_t i = 0; i < s->rows(); ++i) EXPECT_LE(s->column("interval_s").f64[i], job) << s->column("strategy").str[i];
  // A rule gives the job's length in whole steps at most.
  GoodputConfig d = c;
  d.checkpoint.strategy = "sync-remote";
  d.checkpoint.impl = make_checkpoint_registry().create("sync-remote", {}, nullptr);
  d.checkpoint.interval_rule = "daly";
  resolve_interval(d);
  EXPECT_LE(d.checkpoint.interval_s, job);
  EXPECT_GT(d.checkpoint.interval_s, job - 6.5);
}

// Review of 2026-12-07: a fixed-duration job shorter than its checkpoint interval takes no
// checkpoint (the simulation writes no final save at a window's end), but the closed forms capped
// the interval at the duration and kept the stall: 1,800 s at a 3,600 s interval and a 300 s
// write read Daly 0.7938 beside a simulated 0.9395, where Daly without the stall gives 0.933.
// Such a window is charged no checkpoint; a shorter interval, and a job run to completion (which
// writes its final save), still are.
TEST(RunGoodput, AWindowShorterThanTheIntervalIsChargedNoCheckpoint) {
  auto job = [](const std::string& length, double write_s, double interval_s) {
    return parse_goodput("job: {num_gpus: 1024, gpus_per_node: 8, dp: 16, nodes_per_replica: 8, step_time_s: 10, " + length + "}\n"
                         "failures: {processes: [{name: crash, component: node, kind: interrupt, mtbf_hours: 6}]}\n"
                         "recovery: {detection_s: 0, eviction_s: 0, hot_spare_s: 0, restart_s: 600, rendezvous_base_s: 0, "
                         "warmup_s: 0, spares: 1000}\n"
                         "checkpoint: {strategy: sync-remote, write_s: " + std::to_string(write_s) + ", read_s: 0, interval_s: " +
                             std::to_string(interval_s) + "}\n"
                         "simulation: {replicas: 2000, seed: 1, search: false}\n",
                         "window.yaml");
  };
  const double M = 6 * 3600.0, R = 600.0, D = 1800.0;
  const auto r = run_goodput(job("duration_s: 1800", 300, 3600));
  const double daly = r.number("daly_expected_ettr_fraction");
  EXPECT_NEAR(daly, D / (M * std::exp(R / M) * std::expm1(D / M)), 1e-9);
  EXPECT_NEAR(r.number("meta_expected_ettr_fraction"), 1.0 - (R + D / 2) / M, 1e-9);
  EXPECT_NEAR(daly, r.number("ettr_fraction"), 0.015) << "simulated " << r.number("ettr_fraction");
  // the write time no longer matters: no checkpoint is written
  EXPECT_DOUBLE_EQ(run_goodput(job("duration_s: 1800", 30, 3600)).number("daly_expected_ettr_fraction"), daly);
  // an interval within the window still pays its stall
  const auto within = run_goodput(job("duration_s: 1800", 300, 1200));
  EXPECT_NEAR(within.number("daly_expected_ettr_fraction"),
              1200 / (M * std::exp(R / M) * std::expm1((1200 + 300) / M)), 1e-9);
  // a job run to completion writes its final save: the stall stays at an interval beyond its work
  const auto work = run_goodput(job("work_s: 1800", 300, 3600));
  EXPECT_NEAR(work.number("daly_expected_ettr_fraction"), D / (M * std::exp(R / M) * std::expm1((D + 300) / M)), 1e-9);
}
