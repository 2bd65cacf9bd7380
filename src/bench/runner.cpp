#include <array>
#include <set>
#include "bench/runner.hpp"

#include <cmath>
#include <cstdlib>
#include <map>

#include "bench/timing.hpp"
#include "core/error.hpp"

namespace sextant::bench {

std::vector<const Suite*> select_suites(const SuiteRegistry& reg, const std::vector<std::string>& names) {
  if (names.empty()) return reg.all();
  std::vector<const Suite*> out;
  for (const Suite* s : reg.all())
    if (std::find(names.begin(), names.end(), s->name()) != names.end()) out.push_back(s);
  for (const auto& n : names) reg.get(n);  // throws on an unknown name
  return out;
}

double expected_duration_s(const std::vector<const Suite*>& suites, const SuiteConfig& config) {
  double t = 0;
  for (const Suite* s : suites) t += s->expected_duration_s(config);
  return t;
}

// Text with every byte that is not part of a well-formed UTF-8 sequence replaced by '?'.
std::string valid_utf8(const std::string& in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    const auto c = static_cast<unsigned char>(in[i]);
    const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= in.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(in[i + k]) >> 6) == 0x2;
    if (ok) {
      out.append(in, i, n);
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

RunRecord run_suites(const std::vector<const Suite*>& suites, const SuiteConfig& config) {
  RunRecord r;
  r.kind = "suite";
  r.host = config.host;
  r.started_at = utc_now_iso();
  std::string label;
  for (const Suite* s : suites) label += (label.empty() ? "" : ",") + s->name();
  r.label = (config.quick ? "quick: " : "") + label;
  r.config = {{"quick", config.quick},
              {"repetition_count", config.repetition_count},
              {"warmup_count", config.warmup_count},
              {"threads", config.effective_threads()},
              {"min_rep_s", config.min_rep_s},
              {"mpi_ranks", config.mpi_ranks},
              {"suites", label}};
  std::string ran, skipped, failed;  // the label names the suites that measured something, then the skipped and failed ones
  for (const Suite* s : suites) {
    const double t0 = now_s();
    SuiteOutput o;
    // A suite that fails (mpirun exiting non-zero, a GPU lost mid-run) costs its own measurements
    // only: before 2026-12-03 its error threw away every suite measured before it, and a full
    // `sextant bench` whose comm_mpi failed stored nothing. The failure is a note and in
    // config.failed_suites; `sextant bench` stores the run, then exits 2 naming it.
    try {
      o = s->run(config);
    } catch (const std::exception& e) {
      // Stored as JSON: an error quoting a tool's output cut mid-character must still be UTF-8
      // (json::dump threw on it, and the run was lost after all).
      const std::string what = valid_utf8(e.what());
      r.notes.push_back(s->name() + " failed: " + what);
      r.config["failed_suites"][s->name()] = what;
      failed += (failed.empty() ? "" : ",") + s->name();
      r.config["suite_wall_s"][s->name()] = now_s() - t0;
      continue;
    }
    std::string& into = o.measurements.empty() ? skipped : ran;
    into += (into.empty() ? "" : ",") + s->name();
    for (auto& m : o.measurements) r.measurements.push_back(std::move(m));
    for (auto& n : o.notes) r.notes.push_back(std::move(n));
    for (auto& [title, text] : o.text_blocks) r.notes.push_back(title + ":\n" + text);
    r.config["suite_wall_s"][s->name()] = now_s() - t0;
  }
  r.label = (config.quick ? "quick: " : "") + ran + (skipped.empty() ? "" : " (skipped: " + skipped + ")") +
            (failed.empty() ? "" : " (failed: " + failed + ")");
  r.finished_at = utc_now_iso();
  return r;
}

Result run_result(const RunRecord& run, const std::string& command, bool with_params) {
  Result res;
  res.command = command;
  if (run.id) res.set("run_id", run.id);
  res.set("kind", run.kind);
  res.set("label", run.label);
  res.set("started_at", run.started_at);
  res.set("finished_at", run.finished_at);
  res.set("host_fingerprint", run.host.fingerprint());
  res.set("hostname", run.host.hostname);
  // A host fact the run does not know (an imported nccl-tests log names no CPU, memory, kernel or
  // driver) is missing, as every unknown number is (null in JSON, nan in CSV, - in the table), and
  // an unknown text is left out, as the GPU of a host without one is. They had read as 0 CPUs,
  // 0 GHz, 0 bytes and empty text (review of 2026-12-06). The host keeps 0 and "" for unknown, as
  // its fingerprint and the database (shared with older Sextant versions) always have.
  const double unknown = std::nan("");
  if (!run.host.cpu.model.empty()) res.set("cpu_model", run.host.cpu.model);
  res.set("logical_cpu_count", run.host.cpu.logical_cpus > 0 ? Value{int64_t{run.host.cpu.logical_cpus}} : Value{unknown});
  res.set("cpu_ghz", run.host.cpu_ghz > 0 && std::isfinite(run.host.cpu_ghz) ? run.host.cpu_ghz : unknown);
  res.set("memory_bytes", run.host.memory_bytes > 0 ? Value{run.host.memory_bytes} : Value{unknown});
  if (!run.host.kernel.empty()) res.set("kernel", run.host.kernel);
  if (!run.host.gpu.empty()) {
    res.set("gpu", run.host.gpu);
    if (!run.host.gpu_driver.empty()) res.set("gpu_driver", run.host.gpu_driver);
  }
  res.set("sextant_version", run.host.sextant_version);
  res.set("measurement_count", static_cast<int64_t>(run.measurements.size()));
  // What `bench` and `bench run` print beside the tables, read back from the stored run, so that
  // `history show` reproduces it (before 2026-12-06 these scalars were `bench run`'s only; review).
  if (run.config.contains("expected_duration_s") && run.config["expected_duration_s"].is_number())
    res.set("expected_duration_s", run.config["expected_duration_s"].get<double>());
  if (run.kind == "command") {
    auto metric = [&](const std::string& name) -> const Measurement* {
      for (const auto& m : run.measurements)
        if (m.suite == "command" && m.metric == name && !m.samples.empty()) return &m;
      return nullptr;
    };
    if (const Measurement* wall = metric("wall_s")) {
      const Summary w = wall->summary();
      res.set("wall_median_s", w.median);
      res.set("wall_mean_s", w.mean);
      res.set("wall_stddev_s", w.stddev);
      res.set("wall_min_s", w.min);
      res.set("wall_max_s", w.max);
    }
    if (const Measurement* m = metric("user_s")) res.set("user_median_s", m->summary().median);
    if (const Measurement* m = metric("sys_s")) res.set("sys_median_s", m->summary().median);
    if (const Measurement* rss = metric("max_rss_bytes")) {
      res.set("max_rss_median_bytes", rss->summary().median);
      res.set("max_rss_floor_bytes", rss->has_param("max_rss_floor_bytes")
                                         ? static_cast<int64_t>(std::atoll(rss->param("max_rss_floor_bytes").c_str()))
                                         : int64_t{0});
    }
    // The repetitions that exited non-zero (a negative status: killed by that signal).
    if (const Measurement* wall = metric("wall_s"); wall && wall->has_param("exit_statuses")) {
      int64_t failed = 0;
      const std::string& codes = wall->param("exit_statuses");
      size_t start = 0;
      for (size_t i = 0; i <= codes.size(); ++i)
        if (i == codes.size() || codes[i] == ',') {
          if (i > start && codes.substr(start, i - start) != "0") ++failed;
          start = i + 1;
        }
      res.set("failed_run_count", failed);
    }
  }
  // Group by (suite, metric) in order of first appearance.
  std::vector<std::pair<std::string, std::string>> groups;
  for (const auto& m : run.measurements)
    if (std::find(groups.begin(), groups.end(), std::make_pair(m.suite, m.metric)) == groups.end()) groups.emplace_back(m.suite, m.metric);
  for (const auto& [suite, metric] : groups) {
    Table& t = res.add_table(suite + "_" + metric, "median and spread over repetitions");
    t.add_str("case");
    t.add_f64("median_" + metric);
    t.add_f64("min_" + metric);
    t.add_f64("max_" + metric);
    t.add_f64("iqr_" + metric);
    t.add_f64("spread_fraction");
    t.add_i64("repetition_count");
    t.add_i64("warmup_count");
    const bool flops = metric == "flops_per_s";
    if (flops) {
      t.add_f64("peak_flops_per_s");
      t.add_f64("efficiency_fraction");
    }
    for (const auto& m : run.measurements) {
      if (m.suite != suite || m.metric != metric) continue;
      const Summary s = m.summary();
      std::vector<Value> row = {m.name, s.median, s.min, s.max, s.iqr, s.spread_fraction, s.count, m.warmup_count};
      if (flops) {
        const double peak = m.has_param("peak_flops_per_s") ? m.param_f64("peak_flops_per_s") : std::nan("");
        row.push_back(peak);
        row.push_back(peak > 0 ? s.median / peak : std::nan(""));
      }
      t.add_row(row);
    }
  }
  bool any_counters = false;
  for (const auto& m : run.measurements) any_counters = any_counters || !m.counters.empty();
  if (any_counters) {
    // Status once per counter (a counter is unavailable for the whole run when it cannot be
    // opened); values only where they were read.
    std::vector<std::string> names;
    std::map<std::string, std::string> status;
    for (const auto& m : run.measurements)
      for (const auto& c : m.counters) {
        if (!status.count(c.name)) names.push_back(c.name);
        if (c.available) status[c.name] = "available";
        else if (!status.count(c.name)) status[c.name] = "unavailable: " + c.reason;
      }
    Table& st = res.add_table("counter_status", "hardware counters and RAPL energy: read, or why not (never reported as 0)");
    st.add_str("counter");
    st.add_str("status");
    for (const auto& n : names) st.add_row({n, status[n]});
    bool any_value = false;
    for (const auto& n : names) any_value = any_value || status[n] == "available";
    if (any_value) {
      Table& t = res.add_table("counters", "counter values over all repetitions of a case (warm-up included)");
      t.add_str("suite");
      t.add_str("case");
      t.add_str("counter");
      t.add_f64("value");
      for (const auto& m : run.measurements)
        for (const auto& c : m.counters)
          if (c.available) t.add_row({m.suite, m.name, c.name, c.value});
    }
  }
  if (with_params) {
    Table& t = res.add_table("parameters", "parameters each case ran with");
    t.add_str("suite");
    t.add_str("case");
    t.add_str("key");
    t.add_str("value");
    // A case measured under several metrics (a command's wall, user, sys and RSS) stores its
    // parameters with each: list each (suite, case, key, value) once, in first-seen order.
    std::set<std::array<std::string, 4>> seen;
    for (const auto& m : run.measurements)
      for (const auto& [k, v] : m.params)
        if (seen.insert({m.suite, m.name, k, v}).second) t.add_row({m.suite, m.name, k, v});
  }
  res.notes = run.notes;
  return res;
}

}  // namespace sextant::bench
