// Reading goodput inputs and failure presets: rates with their provenance, strict keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.hpp"
#include "goodput/config.hpp"
#include "test_temp.hpp"

using namespace sextant::goodput;

namespace {
const std::string kBase =
    "job: {num_gpus: 16384, gpus_per_node: 8, duration_days: 54}\n"
    "failures: {preset: llama3-54day}\n"
    "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_s: 1800}\n";
}

// The Llama 3 table: 419 unexpected interruptions and 47 planned ones in 54 days on 2,048 nodes.
TEST(Presets, Llama3TableReproducesTheInterruptionCounts) {
  const auto c = parse_goodput(kBase, "t.yaml");
  double unexpected = 0, planned = 0;
  for (const auto& p : c.processes) {
    const double per_54_days = c.process_rate_per_s(p) * 54 * 86400.0;
    if (p.kind == EventKind::Preemption) planned += per_54_days;
    else unexpected += per_54_days;
    EXPECT_FALSE(p.source.empty()) << p.name;
  }
  EXPECT_NEAR(unexpected, 419.0, 1e-9);
  EXPECT_NEAR(planned, 47.0, 0.01);
  EXPECT_EQ(c.processes.size(), 19u);
}

// The per-node rate grows with the job; the per-job rate does not.
TEST(Presets, RatesScaleWithNodesExceptPerJobProcesses) {
  auto small = parse_goodput("job: {num_gpus: 1024, gpus_per_node: 8, duration_days: 1}\n" + kBase.substr(kBase.find("failures")), "s.yaml");
  auto large = parse_goodput(kBase, "l.yaml");
  for (size_t i = 0; i < small.processes.size(); ++i) {
    const double ratio = large.process_rate_per_s(large.processes[i]) / small.process_rate_per_s(small.processes[i]);
    if (small.processes[i].kind == EventKind::Preemption) {
      EXPECT_DOUBLE_EQ(ratio, 1.0);
    }
    else EXPECT_NEAR(ratio, 16.0, 1e-12);
  }
}

TEST(Presets, MetaRatesAndBundledList) {
  const auto rsc1 = load_failure_preset("meta-rsc1");
  ASSERT_EQ(rsc1.size(), 1u);
  EXPECT_NEAR(rsc1[0].rate_per_node_s * 86400 * 1000, 6.50, 1e-12);
  const auto rsc2 = load_failure_preset("meta-rsc2");
  EXPECT_NEAR(rsc2[0].rate_per_node_s * 86400 * 1000, 2.34, 1e-12);
  const auto names = failure_preset_names();
  for (const char* n : {"generic", "llama3-54day", "meta-rsc1", "meta-rsc2"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const auto& n : names) EXPECT_NO_THROW(load_failure_preset(n)) << n;
}

TEST(Input, UnknownKeyIsAnErrorNamingIt) {
  try {
    parse_goodput(kBase + "recovery: {detection_sec: 5}\n", "bad.yaml");
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("detection_sec"), std::string::npos) << w;
    EXPECT_NE(w.find("bad.yaml"), std::string::npos) << w;
  }
}

// A required number left out of a process (a fail-slow episode without duration_s or
// slowdown_factor) is an error naming the file and key, not yaml-cpp's "invalid node" internal error.
TEST(Input, AMissingRequiredNumberIsAnErrorNamingTheKey) {
  for (const char* missing : {"duration_s", "slowdown_factor"}) {
    std::string proc = "{name: slow, kind: fail-slow, rate_per_job_day: 1, duration_s: 600, slowdown_factor: 1.5}";
    const std::string cut = std::string(missing) + (std::string(missing) == "duration_s" ? ": 600, " : ": 1.5");
    proc.erase(proc.find(cut), cut.size());
    try {
      parse_goodput("job: {num_gpus: 16, gpus_per_node: 8, duration_days: 1, step_time_s: 1}\n"
                    "failures: {processes: [" + proc + "]}\n"
                    "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_s: 1800}\n", "slow.yaml");
      ADD_FAILURE() << "no error without " << missing;
    } catch (const sextant::Error& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find("slow.yaml"), std::string::npos) << w;
      EXPECT_NE(w.find(missing), std::string::npos) << w;
      EXPECT_NE(w.find("required"), std::string::npos) << w;
    }
  }
}

// Where does a count of events belong? In a preset file, beside its observed: block; a job file's
// own process has no observation, and before 2026-12-06 it was told to "add observed: to the
// preset" it did not have (failures.observed being no key of a job file; review).
TEST(Input, ACountInAJobFileNamesThePresetFileAndTheRatesAllowedHere) {
  try {
    parse_goodput("job: {num_gpus: 16384, gpus_per_node: 8, duration_days: 54}\n"
                  "failures: {processes: [{name: g, component: node, count: 10}]}\n"
                  "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_s: 1800}\n", "job.yaml");
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("job.yaml:2"), std::string::npos) << w;
    EXPECT_NE(w.find("count"), std::string::npos) << w;
    EXPECT_NE(w.find("only in a failure preset file"), std::string::npos) << w;
    EXPECT_NE(w.find("rate_per_node_day"), std::string::npos) << w;
    EXPECT_NE(w.find("mtbf_hours"), std::string::npos) << w;
    EXPECT_EQ(w.find("to the preset"), std::string::npos) << w;
  }
  // A preset file without observed: is still told to add it.
  const std::string path = sextant::test_temp::path("count-preset.yaml");
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("name: counted\nprocesses:\n  - {name: g, component: node, count: 10}\n", f);
    std::fclose(f);
  }
  try {
    load_failure_preset(path);
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("add observed: {nodes: N, days: D} to the preset"), std::string::npos) << w;
  }
}

// A fraction outside [0, 1] is refused (a min_replica_fraction of 3 silently turned elastic
// continuation off before 2026-12-03); a synchronous save of 0 s stalls for 0 s, and the Young
// interval of a free save is one step (before 2026-12-06 the stall was raised to 1 ms, and with
// 1 s steps and a 6 h MTBF the interval was 7 steps, sqrt(2 x 0.001 x 21,600) = 6.6 s; review).
TEST(Input, ElasticFractionAboveOneIsRefusedAndAFreeSaveStaysFree) {
  const std::string y = "job: {num_gpus: 64, gpus_per_node: 8, dp: 8, nodes_per_replica: 1, duration_days: 10}\n"
                        "failures: {processes: [{name: crash, mtbf_hours: 6, node_lost: true}]}\n"
                        "checkpoint: {strategy: sync-remote, write_s: 0, read_s: 0, interval_minutes: 30}\n";
  try {
    parse_goodput(y + "elastic: {enabled: true, min_replica_fraction: 3}\n", "el.yaml");
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("min_replica_fraction"), std::string::npos) << w;
    EXPECT_NE(w.find("el.yaml:4"), std::string::npos) << w;
  }
  const auto c = parse_goodput(y, "g.yaml");
  EXPECT_EQ(c.checkpoint.impl->schedule(c.checkpoint.env).blocking_s, 0.0);
  std::string young = y;
  young.replace(young.find("duration_days"), 0, "step_time_s: 1, ");
  young.replace(young.find("interval_minutes: 30"), 20, "interval: young");
  for (const char* strategy : {"sync-remote", "async-remote", "in-memory", "multi-level", "on-failure"}) {
    // Without a checkpoint size the device snapshot is free too (it was 1 ms under every strategy).
    const auto f = parse_goodput(young, "g.yaml", {{"checkpoint.strategy", strategy}});
    EXPECT_EQ(f.checkpoint.impl->schedule(f.checkpoint.env).blocking_s, 0.0) << strategy;
    if (std::string(strategy) == "sync-remote") {
      EXPECT_DOUBLE_EQ(f.checkpoint.interval_s, 1.0);
    }
  }
}

TEST(Input, UnknownStrategyListsTheValidOnes) {
  std::string y = kBase;
  y.replace(y.find("sync-remote"), 11, "async-remot");
  try {
    parse_goodput(y, "bad.yaml");
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("async-remote"), std::string::npos) << w;
    EXPECT_NE(w.find("in-memory"), std::string::npos) << w;
  }
}

TEST(Input, UnknownPresetAndDistributionAreErrors) {
  std::string y = kBase;
  y.replace(y.find("llama3-54day"), 12, "llama3-54dy");
  EXPECT_THROW(parse_goodput(y, "bad.yaml"), sextant::Error);
  EXPECT_THROW(parse_goodput("job: {num_gpus: 8, work_s: 100}\nfailures: {processes: [{name: a, mtbf_hours: 1, distribution: gamma}]}\n"
                             "checkpoint: {write_s: 1, read_s: 1, interval_s: 10}\n", "bad.yaml"),
               sextant::Error);
  // Two rates for one process.
  EXPECT_THROW(parse_goodput("job: {num_gpus: 8, work_s: 100}\nfailures: {processes: [{name: a, mtbf_hours: 1, rate_per_node_day: 1}]}\n"
                             "checkpoint: {write_s: 1, read_s: 1, interval_s: 10}\n", "bad.yaml"),
               sextant::Error);
}

// A shape on a process of another distribution says what it belongs to (it read as an unknown
// key before 2026-12-05).
TEST(Input, AShapeWithoutTheWeibullDistributionSaysSo) {
  try {
    parse_goodput("job: {num_gpus: 8, work_s: 100}\nfailures: {processes: [{name: a, mtbf_hours: 1, shape: 0.5}]}\n"
                  "checkpoint: {write_s: 1, read_s: 1, interval_s: 10}\n",
                  "bad.yaml");
    ADD_FAILURE() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("bad.yaml:2"), std::string::npos) << w;
    EXPECT_NE(w.find("distribution: weibull"), std::string::npos) << w;
  }
}

TEST(Input, OverridesApplyBeforeReading) {
  const auto c = parse_goodput(kBase, "t.yaml", {{"checkpoint.interval_s", "900"}, {"recovery.spares", "3"}});
  EXPECT_DOUBLE_EQ(c.checkpoint.interval_s, 900);
  EXPECT_EQ(c.recovery.spares_count, 3);
}

// Checkpoint size from parameters: 14 bytes per parameter (bf16 weights, fp32 master, Adam).
TEST(Input, CheckpointTimesFromSizeAndSharedBandwidth) {
  const auto c = parse_goodput(
      "job: {num_gpus: 1024, gpus_per_node: 8, duration_days: 1}\nfailures: {preset: meta-rsc1}\n"
      "checkpoint: {strategy: sync-remote, params: 70.0e9, storage_write_bytes_per_s: 1.0e11, node_storage_bytes_per_s: 1.0e9, interval_s: 600}\n",
      "t.yaml");
  EXPECT_DOUBLE_EQ(c.checkpoint.env.total_bytes, 70e9 * 14);
  // Aggregate: 980 GB / 100 GB/s = 9.8 s; per node: 980 GB / 128 nodes / 1 GB/s = 7.66 s -> 9.8 s.
  EXPECT_NEAR(c.checkpoint.env.remote_write_s(), 9.8, 1e-9);
  EXPECT_NEAR(c.checkpoint.impl->schedule(c.checkpoint.env).blocking_s, 9.8, 1e-9);
  // Shards over the GPUs the job has: 1 GPU holds the whole state (an eighth before 2026-12-03),
  // and of 12 GPUs on two nodes the fuller node holds 8 / 12.
  auto env_of = [](int gpus) {
    return parse_goodput("job: {num_gpus: " + std::to_string(gpus) + ", gpus_per_node: 8, duration_days: 1}\nfailures: {preset: meta-rsc1}\n"
                         "checkpoint: {strategy: async-remote, bytes: 1.2e10, storage_write_bytes_per_s: 1.0e10, interval_s: 600}\n",
                         "t.yaml").checkpoint.env;
  };
  EXPECT_DOUBLE_EQ(env_of(1).per_gpu_bytes, 1.2e10);
  EXPECT_DOUBLE_EQ(env_of(1).per_node_bytes, 1.2e10);
  EXPECT_DOUBLE_EQ(env_of(12).per_gpu_bytes, 1e9);
  EXPECT_DOUBLE_EQ(env_of(12).per_node_bytes, 8e9);
  EXPECT_DOUBLE_EQ(env_of(8).per_gpu_bytes, 1.5e9);
}

// Do given replicas have to tile the job's nodes, and are --set errors placed at the override
// (not FILE:1:1)? Is a zero failure-rate scale refused where it is read?
TEST(Input, ReplicasMustTileTheNodesAndOverrideErrorsSayTheirSource) {
  const std::string y = "job: {num_gpus: 1024, gpus_per_node: 8, dp: 16, nodes_per_replica: 8, step_time_s: 5, duration_days: 10}\n"
                        "failures: {preset: generic}\ncheckpoint: {write_s: 10, read_s: 10, interval_s: 1800}\n";
  EXPECT_NO_THROW(parse_goodput(y, "g.yaml"));
  auto error_of = [&](std::vector<std::pair<std::string, std::string>> sets) -> std::string {
    try {
      parse_goodput(y, "g.yaml", sets);
    } catch (const sextant::Error& e) {
      return e.what();
    }
    return "(no error)";
  };
  EXPECT_NE(error_of({{"job.dp", "3"}}).find("x nodes_per_replica"), std::string::npos) << error_of({{"job.dp", "3"}});
  EXPECT_NE(error_of({{"job.num_gpus", "1000"}}).find("the job has 125"), std::string::npos) << error_of({{"job.num_gpus", "1000"}});
  const std::string neg = error_of({{"job.step_time_s", "-1"}});
  EXPECT_NE(neg.find("(--set)"), std::string::npos) << neg;
  EXPECT_EQ(neg.find("g.yaml:1:1"), std::string::npos) << neg;
  EXPECT_NE(error_of({{"failures.rate_scale", "0"}}).find("rate_scale"), std::string::npos);
}

// A key the job does not have is named before the missing num_gpus (`job: {scenario: FILE}` where
// the top-level `training:` was meant had read as "the job needs num_gpus"; 2026-12-04 review).
TEST(Input, AnUnknownJobKeyIsNamedBeforeTheMissingGpuCount) {
  try {
    parse_goodput("job: {scenario: x.yaml, tokens: 1e11}\nfailures: {preset: llama3-54day}\n"
                  "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_s: 1800}\n", "job.yaml");
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("key 'job.scenario': unknown key"), std::string::npos) << w;
  }
}

namespace {
// The error a goodput input gives, or "(no error)"; its location through *where.
std::string goodput_error(const std::string& yaml, const std::vector<std::pair<std::string, std::string>>& sets = {},
                     sextant::SourceLocation* where = nullptr) {
  try {
    parse_goodput(yaml, "g.yaml", sets);
  } catch (const sextant::Error& e) {
    if (where) *where = e.where();
    return e.what();
  }
  return "(no error)";
}

const std::string kJob = "job: {num_gpus: 64, gpus_per_node: 8, step_time_s: 5, duration_days: 1}\n";
const std::string kCheckpoint = "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_s: 1800}\n";
}  // namespace

// Is a misspelt component refused at its line with the nearest one, where it had read as hardware
// (`sofware`: a node lost at every crash, exit 0; 2026-12-06 review)? A process that names no
// component takes its name where that is one, else other.
TEST(Input, AMisspeltFailureComponentIsRefusedWithTheNearestOne) {
  const std::string procs = "failures:\n  processes:\n    - {name: sw, component: %s, rate_per_job_day: 1}\n";
  auto with = [&](const std::string& component) {
    std::string p = procs;
    p.replace(p.find("%s"), 2, component);
    return kJob + p + kCheckpoint;
  };
  const auto ok = parse_goodput(with("software"), "g.yaml");
  EXPECT_FALSE(ok.processes.at(0).node_lost);
  sextant::SourceLocation at;
  const std::string w = goodput_error(with("sofware"), {}, &at);
  EXPECT_EQ(at.key, "failures.processes[0].component") << w;
  EXPECT_EQ(at.line, 4) << w;
  EXPECT_NE(w.find("did you mean 'software'?"), std::string::npos) << w;
  EXPECT_NE(w.find("valid: gpu, hbm"), std::string::npos) << w;
  const auto unnamed = parse_goodput(kJob + "failures: {processes: [{name: software, rate_per_job_day: 1}, {name: sw, rate_per_job_day: 1}]}\n" +
                                         kCheckpoint, "g.yaml");
  EXPECT_EQ(unnamed.processes.at(0).component, "software");
  EXPECT_FALSE(unnamed.processes.at(0).node_lost);
  EXPECT_EQ(unnamed.processes.at(1).component, "other");
  EXPECT_TRUE(unnamed.processes.at(1).node_lost);
  // Every bundled preset's components are of the set.
  const auto& all = failure_components();
  for (const auto& n : failure_preset_names())
    for (const auto& p : load_failure_preset(n))
      EXPECT_NE(std::find(all.begin(), all.end(), p.component), all.end()) << n << ": " << p.name << " " << p.component;
}

// Is a checkpoint bandwidth too small for any finite time named with its key and line, not at
// `checkpoint` with four bandwidths listed (2026-12-06 review)?
TEST(Input, ACheckpointBandwidthTooSmallIsNamedAtItsKey) {
  const std::string ck = "checkpoint:\n  strategy: async-remote\n  interval_s: 1800\n  bytes: 1.0e12\n"
                         "  storage_write_bytes_per_s: %w\n  d2h_bytes_per_s: %d\n";
  auto with = [&](const std::string& write, const std::string& d2h) {
    std::string c = ck;
    c.replace(c.find("%w"), 2, write);
    c.replace(c.find("%d"), 2, d2h);
    return kJob + "failures: {preset: meta-rsc1}\n" + c;
  };
  EXPECT_EQ(goodput_error(with("1.0e11", "25.0e9")), "(no error)");
  for (const auto& [write, d2h, key, line] : {std::tuple<const char*, const char*, const char*, int>{"1.0e-300", "25.0e9", "storage_write_bytes_per_s", 7},
                                              {"1.0e11", "1.0e-300", "d2h_bytes_per_s", 8}}) {
    sextant::SourceLocation at;
    const std::string w = goodput_error(with(write, d2h), {}, &at);
    EXPECT_EQ(at.key, std::string("checkpoint.") + key) << w;
    EXPECT_EQ(at.line, line) << w;
    EXPECT_NE(w.find("takes no finite time"), std::string::npos) << w;
  }
}

// Is a {value} number refused with both source and estimated (estimated was dropped) or with
// neither, as the catalog refuses them (2026-12-06 review)? One of them, or a plain number, is read.
TEST(Input, AValueMappingNeedsExactlyOneOfSourceAndEstimated) {
  auto with = [&](const std::string& step) {
    return "job: {num_gpus: 64, gpus_per_node: 8, step_time_s: " + step + ", duration_days: 1}\nfailures: {preset: meta-rsc1}\n" + kCheckpoint;
  };
  EXPECT_EQ(parse_goodput(with("6.5"), "g.yaml").job.step_time_s, 6.5);
  EXPECT_EQ(parse_goodput(with("{value: 6.5, source: measured}"), "g.yaml").job.step_time_source, "measured");
  EXPECT_EQ(parse_goodput(with("{value: 6.5, estimated: guess}"), "g.yaml").job.step_time_source, "estimated: guess");
  sextant::SourceLocation at;
  std::string w = goodput_error(with("{value: 6.5, source: measured, estimated: guess}"), {}, &at);
  EXPECT_EQ(at.key, "job.step_time_s.estimated") << w;
  EXPECT_NE(w.find("either sourced or estimated, not both"), std::string::npos) << w;
  w = goodput_error(with("{value: 6.5}"), {}, &at);
  EXPECT_EQ(at.key, "job.step_time_s") << w;
  EXPECT_EQ(at.line, 1) << w;
  EXPECT_NE(w.find("needs its provenance"), std::string::npos) << w;
}

// Does an index into failures.processes, where the file has a preset and no list, say so and how
// a preset's process is changed (it read "expected a list"; 2026-12-06 review)? With a list it sets.
TEST(Input, AnIndexIntoProcessesTheFileDoesNotListSaysWhereTheyCome) {
  const std::string preset = kJob + "failures: {preset: generic}\n" + kCheckpoint;
  sextant::SourceLocation at;
  const std::string w = goodput_error(preset, {{"failures.processes.0.shape", "3"}}, &at);
  EXPECT_EQ(at.file, "g.yaml (--set)") << w;
  EXPECT_EQ(at.key, "failures.processes.0.shape") << w;
  EXPECT_NE(w.find("no failures.processes list to index: its failure processes are preset generic's"), std::string::npos) << w;
  EXPECT_NE(w.find("replaces it"), std::string::npos) << w;
  const auto listed = parse_goodput(kJob + "failures: {processes: [{name: gpu, rate_per_job_day: 1, distribution: weibull, shape: 0.7}]}\n" + kCheckpoint,
                                    "g.yaml", {{"failures.processes.0.shape", "3"}});
  EXPECT_EQ(listed.processes.at(0).weibull_shape, 3);
}

namespace {
// The error loading a failure preset of this text gives, or "(no error)"; its location through *where.
std::string preset_error(const std::string& text, sextant::SourceLocation* where = nullptr) {
  const std::string path = sextant::test_temp::path("preset-under-test.yaml");
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return "(cannot write " + path + ")";
  std::fputs(text.c_str(), f);
  std::fclose(f);
  try {
    load_failure_preset(path);
  } catch (const sextant::Error& e) {
    if (where) *where = e.where();
    return e.what();
  }
  return "(no error)";
}

const std::string kObservedPreset = "name: counted\nobserved:\n  nodes: 2048\n  days: 54\n  gpus_per_node: 8\n"
                                    "processes:\n  - {name: g, component: gpu, count: 148}\n";
}  // namespace

// Is a misspelt top-level key named, at its line with the nearest valid key, before a check that
// rests on the key it was meant to be? Before 2026-12-06 `trainng:` read "the job needs num_gpus (or
// a training: scenario)" at job.num_gpus, and a preset's `observde:` "a count needs the observation
// it came from" at processes[0].count (review). So for the failures and job mappings.
TEST(Input, AMisspeltKeyIsNamedBeforeTheChecksThatRestOnIt) {
  sextant::SourceLocation at;
  for (const char* key : {"trainng", "Training"}) {
    const std::string w = goodput_error(std::string(key) + ": scenario.yaml\njob: {duration_days: 54}\nfailures: {preset: generic}\n" + kCheckpoint,
                                        {}, &at);
    EXPECT_EQ(at.key, key) << w;
    EXPECT_EQ(at.line, 1) << w;
    EXPECT_NE(w.find("unknown key"), std::string::npos) << w;
    EXPECT_NE(w.find("did you mean 'training'?"), std::string::npos) << w;
  }
  // A key of no near miss is named before what it may have meant is missed: the failures' processes
  // (it read "no failure processes"), the job's step time.
  std::string w = goodput_error(kJob + "failures: {preset_file: generic}\n" + kCheckpoint, {}, &at);
  EXPECT_EQ(at.key, "failures.preset_file") << w;
  EXPECT_NE(w.find("unknown key"), std::string::npos) << w;
  w = goodput_error("job: {num_gpus: 64, gpus_per_node: 8, step_seconds: 5, steps: 100}\nfailures: {preset: generic}\n" + kCheckpoint, {}, &at);
  EXPECT_EQ(at.key, "job.step_seconds") << w;
  EXPECT_NE(w.find("unknown key"), std::string::npos) << w;
  std::string preset = kObservedPreset;
  preset.replace(preset.find("observed:"), 9, "observde:");
  w = preset_error(preset, &at);
  EXPECT_EQ(at.key, "observde") << w;
  EXPECT_EQ(at.line, 2) << w;
  EXPECT_NE(w.find("did you mean 'observed'?"), std::string::npos) << w;
  EXPECT_EQ(preset_error(kObservedPreset), "(no error)");
}

// Are counts whole numbers? Before 2026-12-06 a preset's observed gpus_per_node 2.5 was taken (the
// llama3-54day job's ETTR 0.9053 read 0.6426), and so were a fractional observed.nodes and count
// (review); the counts read as integers refuse a fraction too.
TEST(Input, CountsAreWholeNumbers) {
  sextant::SourceLocation at;
  for (const auto& [from, to, key, line] : {std::tuple<const char*, const char*, const char*, int>{"nodes: 2048", "nodes: 2.5", "observed.nodes", 3},
                                            {"gpus_per_node: 8", "gpus_per_node: 2.5", "observed.gpus_per_node", 5},
                                            {"count: 148", "count: 2.5", "processes[0].count", 7},
                                            {"count: 148", "count: {value: 2.5, source: table}", "processes[0].count", 7}}) {
    std::string preset = kObservedPreset;
    preset.replace(preset.find(from), std::string(from).size(), to);
    const std::string w = preset_error(preset, &at);
    EXPECT_EQ(at.key, key) << w;
    EXPECT_EQ(at.line, line) << w;
    EXPECT_NE(w.find("is a whole number >= 1 (got 2.5)"), std::string::npos) << w;
  }
  // Days may be a fraction.
  std::string days = kObservedPreset;
  days.replace(days.find("days: 54"), 8, "days: 54.5");
  EXPECT_EQ(preset_error(days), "(no error)");
  for (const auto& [set, key] : {std::pair<const char*, const char*>{"job.tokens_per_step", "job.tokens_per_step"}, {"job.tokens", "job.tokens"},
                                 {"checkpoint.params", "checkpoint.params"}, {"recovery.spares", "recovery.spares"},
                                 {"simulation.replicas", "simulation.replicas"}, {"job.dp", "job.dp"}}) {
    const std::string w = goodput_error(kJob + "failures: {preset: generic}\n" + kCheckpoint, {{set, "2.5"}}, &at);
    EXPECT_EQ(at.key, key) << w;
    EXPECT_TRUE(w.find("is a whole number >= 1 (got 2.5)") != std::string::npos || w.find("expected an integer, got '2.5'") != std::string::npos) << w;
  }
}

// Review of 2026-12-06: does a --set of one interval key replace every interval key the file
// gives (one or more), as the "given twice" hint says? A file of interval_s and interval_minutes
// with `--set checkpoint.interval=daly` had failed again, naming three keys. Two given by --set
// are the overrides' error, at "FILE (--set)", with a hint to give one --set (it had named the
// file's checkpoint line, and the file-replacement remedy); two in the file alone keep that hint.
TEST(Input, ASetOfOneIntervalKeyReplacesEveryIntervalKeyOfTheFile) {
  const std::string two = "job: {num_gpus: 64, work_days: 1}\nfailures: {preset: meta-rsc1}\n"
                          "checkpoint: {strategy: sync-remote, write_s: 10, read_s: 10, interval_s: 600, interval_minutes: 10}\n";
  auto error_of = [&](const std::string& y, std::vector<std::pair<std::string, std::string>> sets) -> std::optional<sextant::Error> {
    try {
      parse_goodput(y, "two.yaml", sets);
    } catch (const sextant::Error& e) {
      return e;
    }
    return std::nullopt;
  };
  // The file alone: given twice at the file's checkpoint, the hint offering a --set of one.
  const auto file_two = error_of(two, {});
  ASSERT_TRUE(file_two);
  EXPECT_EQ(file_two->where().file, "two.yaml");
  EXPECT_GT(file_two->where().line, 0);
  EXPECT_NE(std::string(file_two->what()).find("given twice: interval_s and interval_minutes"), std::string::npos) << file_two->what();
  EXPECT_NE(file_two->hint().find("--set of one replaces them"), std::string::npos) << file_two->hint();
  // The hint's remedy works, whichever key the --set names (one of the file's or another).
  const auto daly = parse_goodput(two, "two.yaml", {{"checkpoint.interval", "daly"}});
  EXPECT_EQ(daly.checkpoint.interval_rule, "daly");
  EXPECT_TRUE(std::any_of(daly.notes.begin(), daly.notes.end(), [](const std::string& n) {
    return n.find("checkpoint.interval_s and checkpoint.interval_minutes of the file are replaced by --set checkpoint.interval") !=
           std::string::npos;
  }));
  EXPECT_DOUBLE_EQ(parse_goodput(two, "two.yaml", {{"checkpoint.interval_s", "60"}}).checkpoint.interval_s, 60);
  EXPECT_DOUBLE_EQ(parse_goodput(two, "two.yaml", {{"checkpoint.interval_minutes", "2"}}).checkpoint.interval_s, 120);
  // Two by --set, on a file of one or of two: the overrides' error and remedy.
  const std::string one = "job: {num_gpus: 64, work_days: 1}\nfailures: {preset: meta-rsc1}\n"
                          "checkpoint: {strategy: sync-remote, write_s: 10, read_s: 10, interval_minutes: 10}\n";
  for (const auto& y : {one, two}) {
    const auto by_set = error_of(y, {{"checkpoint.interval", "daly"}, {"checkpoint.interval_s", "600"}});
    ASSERT_TRUE(by_set);
    EXPECT_EQ(by_set->where().file, "two.yaml (--set)");
    EXPECT_EQ(by_set->where().line, 0);
    const std::string w = by_set->what();
    EXPECT_NE(w.find("given twice by --set: interval_s and interval"), std::string::npos) << w;
    EXPECT_EQ(w.find("interval_minutes and"), std::string::npos) << w;  // the file's is not counted
    EXPECT_NE(by_set->hint().find("give one --set"), std::string::npos) << by_set->hint();
    EXPECT_EQ(by_set->hint().find("a --set of one replaces"), std::string::npos) << by_set->hint();
  }
}

// Review of 2026-12-07: a tuning key of elastic: turned elastic continuation on (enabled
// defaulted to true inside the block, false without it): --set elastic.reconfigure_s=60, the
// default, moved the 405B example with two state copies from 0.9013 to 0.9603. Only enabled: true
// turns it on; tuning keys without it are said to be ignored.
TEST(Input, AnElasticTuningKeyDoesNotEnableElasticContinuation) {
  const std::string y = "job: {num_gpus: 64, gpus_per_node: 8, dp: 8, nodes_per_replica: 1, duration_days: 10}\n"
                        "failures: {processes: [{name: crash, mtbf_hours: 6, node_lost: true}]}\n"
                        "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_minutes: 30, state_copies: 2}\n";
  auto said = [](const GoodputConfig& c, const std::string& what) {
    return std::any_of(c.notes.begin(), c.notes.end(), [&](const std::string& n) { return n.find(what) != std::string::npos; });
  };
  const auto tuned = parse_goodput(y + "elastic: {reconfigure_s: 60, throughput: proportional}\n", "el.yaml");
  EXPECT_FALSE(tuned.elastic.enabled);
  EXPECT_TRUE(tuned.elastic.throughput_fraction.empty());
  EXPECT_TRUE(said(tuned, "elastic.reconfigure_s, elastic.throughput set but elastic.enabled is not given (default false): ignored"));
  const auto by_set = parse_goodput(y, "el.yaml", {{"elastic.min_replica_fraction", "0.5"}});
  EXPECT_FALSE(by_set.elastic.enabled);
  EXPECT_TRUE(said(by_set, "elastic.min_replica_fraction set but elastic.enabled"));
  const auto off = parse_goodput(y + "elastic: {enabled: false, reconfigure_s: 30}\n", "el.yaml");
  EXPECT_FALSE(off.elastic.enabled);
  EXPECT_TRUE(said(off, "elastic.reconfigure_s set but elastic.enabled is false: ignored"));
  const auto on = parse_goodput(y + "elastic: {enabled: true, reconfigure_s: 60, throughput: proportional}\n", "el.yaml");
  EXPECT_TRUE(on.elastic.enabled);
  EXPECT_FALSE(on.elastic.throughput_fraction.empty());
  EXPECT_FALSE(said(on, "but elastic.enabled"));
  EXPECT_FALSE(said(parse_goodput(y, "el.yaml"), "but elastic.enabled"));
}

// Review of 2026-12-07: failures.remove ran after the listed processes were merged, so a process
// named in both failures.processes and failures.remove was deleted without a word. remove drops a
// preset's processes: naming a listed one is an error naming both keys.
TEST(Input, RemovingAProcessTheFileListsIsAnError) {
  const std::string job = "job: {num_gpus: 16384, gpus_per_node: 8, duration_days: 54}\n"
                          "checkpoint: {strategy: sync-remote, write_s: 60, read_s: 60, interval_s: 1800}\n";
  auto error_of = [&](const std::string& failures) -> std::optional<sextant::Error> {
    try {
      parse_goodput(job + failures, "rm.yaml");
    } catch (const sextant::Error& e) {
      return e;
    }
    return std::nullopt;
  };
  const std::string listed = "    - {name: rack-power, component: rack, rate_per_job_day: 0.1}\n";
  // a process of the file's own, and one that replaces the preset's of its name
  for (const std::string& name : {std::string("rack-power"), std::string("planned-maintenance")}) {
    const std::string proc = name == "rack-power" ? listed : "    - {name: planned-maintenance, component: operations, kind: preemption, "
                                                             "rate_per_job_day: 0.5, notice_s: 0, downtime_s: 0}\n";
    const auto e = error_of("failures:\n  preset: llama3-54day\n  remove: [" + name + "]\n  processes:\n" + proc);
    ASSERT_TRUE(e) << name;
    const std::string w = e->what();
    EXPECT_NE(w.find("'" + name + "' is named in both failures.processes and failures.remove"), std::string::npos) << w;
    EXPECT_NE(w.find("rm.yaml:"), std::string::npos) << w;
    EXPECT_NE(e->hint().find("delete its entry from failures.processes"), std::string::npos) << e->hint();
  }
  // remove of a preset's process beside a listed one of another name still drops it
  const auto c = parse_goodput(job + "failures:\n  preset: llama3-54day\n  remove: [planned-maintenance]\n  processes:\n" + listed, "rm.yaml");
  auto named = [&](const std::string& n) {
    return std::any_of(c.processes.begin(), c.processes.end(), [&](const FailureProcess& p) { return p.name == n; });
  };
  EXPECT_TRUE(named("rack-power"));
  EXPECT_FALSE(named("planned-maintenance"));
}

// Review of 2026-12-07: `copies` (an option of strategy in-memory) under another strategy read
// "unknown key ... did you mean 'state_copies'?", an unrelated key. A key of another strategy's
// options names the strategies that take it and which strategy takes which keys.
TEST(Input, AnotherStrategysOptionNamesTheStrategiesThatTakeIt) {
  const std::string y = "job: {num_gpus: 64, gpus_per_node: 8, duration_days: 10}\n"
                        "failures: {processes: [{name: crash, mtbf_hours: 6}]}\n"
                        "checkpoint: {write_s: 60, read_s: 60, interval_minutes: 30}\n";
  auto error_of = [&](const std::vector<std::pair<std::string, std::string>>& set) -> std::optional<sextant::Error> {
    try {
      parse_goodput(y, "s.yaml", set);
    } catch (const sextant::Error& e) {
      return e;
    }
    return std::nullopt;
  };
  const auto copies = error_of({{"checkpoint.copies", "2"}});
  ASSERT_TRUE(copies);
  std::string w = copies->what();
  EXPECT_NE(w.find("key 'checkpoint.copies': is an option of checkpoint.strategy in-memory, not of sync-remote"), std::string::npos) << w;
  EXPECT_EQ(w.find("state_copies"), std::string::npos) << w;
  EXPECT_NE(copies->hint().find("give checkpoint.strategy: in-memory"), std::string::npos) << copies->hint();
  EXPECT_NE(copies->hint().find("in-memory: copies, placement, remote_every; multi-level: fast_level, remote_every"), std::string::npos)
      << copies->hint();
  const auto every = error_of({{"checkpoint.strategy", "async-remote"}, {"checkpoint.remote_every", "3"}});
  ASSERT_TRUE(every);
  w = every->what();
  EXPECT_NE(w.find("is an option of checkpoint.strategy in-memory and multi-level, not of async-remote"), std::string::npos) << w;
  const auto fast = error_of({{"checkpoint.strategy", "in-memory"}, {"checkpoint.fast_level", "local-nvme"}});
  ASSERT_TRUE(fast);
  EXPECT_NE(std::string(fast->what()).find("is an option of checkpoint.strategy multi-level, not of in-memory"), std::string::npos)
      << fast->what();
  // each strategy's own keys are taken; a key nobody takes is still an unknown key
  EXPECT_FALSE(error_of({{"checkpoint.strategy", "in-memory"}, {"checkpoint.copies", "2"}, {"checkpoint.remote_every", "3"}}));
  EXPECT_FALSE(error_of({{"checkpoint.strategy", "multi-level"}, {"checkpoint.fast_level", "local-nvme"}, {"checkpoint.remote_every", "3"}}));
  const auto unknown = error_of({{"checkpoint.copis", "2"}});
  ASSERT_TRUE(unknown);
  EXPECT_NE(std::string(unknown->what()).find("unknown key"), std::string::npos) << unknown->what();
}
