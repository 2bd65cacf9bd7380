#include "bench/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "bench/stats.hpp"
#include "core/error.hpp"
#include "core/result.hpp"

namespace sextant::bench {

const std::vector<std::string>& compare_test_names() {
  static const std::vector<std::string> n = {"mann-whitney", "welch"};
  return n;
}

const std::vector<std::string>& compare_correction_names() {
  static const std::vector<std::string> n = {"none", "holm", "benjamini-hochberg"};
  return n;
}

namespace {
// The software a case ran on (the NCCL library of nccl-tests' version line, the BLAS of the
// GEMMs): what a before/after comparison of an upgrade changes. It is not the case's
// configuration: a change is named (Comparison::software_changes) and the case is judged as
// usual; before 2026-12-03 it made the case parameters_differ, out of the gate, so a 2x slower
// NCCL upgrade passed with exit 0.
bool software(const std::string& key) { return key == "nccl_tests_version" || key == "blas"; }

// Parameters that describe a measurement without configuring it: a peak read from the clock of
// the moment, repetition counts the harness tuned, the command (the case itself), exit statuses.
bool descriptive(const std::string& key) {
  static const char* const kDescriptive[] = {"peak_flops_per_s", "peak_source", "inner_count", "repetition_count", "exit_statuses",
                                             "iterations_per_repetition", "steps_per_call", "file", "samples", "wrong", "command",
                                             "origin", "mpirun", "wrong_in_place", "max_rss_floor_bytes"};
  for (const char* k : kDescriptive)
    if (key == k) return true;
  return software(key);
}

// The error count an nccl-tests row printed in its #wrong column ("0", "N/A", a count); 0 when
// the case has none.
int64_t wrong_count(const Measurement& m) {
  if (!m.has_param("wrong")) return 0;
  int64_t total = 0;
  for (const std::string& part : {m.param("wrong"), m.has_param("wrong_in_place") ? m.param("wrong_in_place") : std::string()}) {
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    if (end != part.c_str() && *end == '\0' && v > 0) total += v;
  }
  return total;
}

// The distinct exit statuses of a `bench run` case's repetitions ("0,0,3" -> {0, 3}); empty
// for cases without them (suites, imports).
std::vector<std::string> exit_statuses(const Measurement& m) {
  std::vector<std::string> out;
  if (!m.has_param("exit_statuses")) return out;
  const std::string& s = m.param("exit_statuses");
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == ',') {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The resolution of a case's metric in its unit, 0 where none is known: a `bench run` command's
// rusage user and system times are split between the two by whole scheduler ticks (compare.hpp,
// kRusageCpuResolutionS; 2026-12-06 review).
double resolution_of(const Measurement& m) {
  return m.suite == "command" && (m.metric == "user_s" || m.metric == "sys_s") ? kRusageCpuResolutionS : 0.0;
}

std::string parameter_changes(const Measurement& a, const Measurement& b) {
  std::string out;
  auto value = [](const Measurement& m, const std::string& k) { return m.has_param(k) ? m.param(k) : std::string("(absent)"); };
  std::vector<std::string> keys;
  for (const auto* m : {&a, &b})
    for (const auto& [k, v] : m->params)
      if (!descriptive(k) && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  for (const auto& k : keys) {
    const std::string va = value(a, k), vb = value(b, k);
    if (va != vb) out += (out.empty() ? "" : "; ") + k + " " + va + " -> " + vb;
  }
  return out;
}

// What makes two measurements of one case unlike beyond their parameters: the settings of their
// runs that change what is measured (warm-up repetitions, the minimum repetition time) and the
// machine (CPU or GPU model). Before 2026-12-04 a run without warm-up was judged against one with
// it (-58%, "regression") and a run on another CPU model was judged case by case, flagged only by
// same_host false.
std::string run_changes(const RunRecord& ra, const Measurement& a, const RunRecord& rb, const Measurement& b) {
  std::string out = parameter_changes(a, b);
  auto add = [&](const std::string& what, const std::string& va, const std::string& vb) {
    if (va != vb) out += (out.empty() ? "" : "; ") + what + " " + va + " -> " + vb;
  };
  // The suites timed by time_repeated run at least one warm-up whatever --warmup says; runs stored
  // before 2026-12-05 recorded --warmup 0 as 0: both count as the one that ran.
  auto warmups = [](const Measurement& m) {
    static const std::set<std::string> at_least_one = {"gemm_cpu", "cache_bandwidth", "memory_bandwidth", "memory_latency"};
    return at_least_one.count(m.suite) ? std::max<int64_t>(m.warmup_count, 1) : m.warmup_count;
  };
  add("warmup_count", std::to_string(warmups(a)), std::to_string(warmups(b)));
  if (ra.config.contains("min_rep_s") && rb.config.contains("min_rep_s"))
    add("min_rep_s", ra.config["min_rep_s"].dump(), rb.config["min_rep_s"].dump());
  if (!ra.host.cpu.model.empty() && !rb.host.cpu.model.empty()) add("cpu_model", ra.host.cpu.model, rb.host.cpu.model);
  add("gpu", ra.host.gpu.empty() ? "(none)" : ra.host.gpu, rb.host.gpu.empty() ? "(none)" : rb.host.gpu);
  return out;
}

// Adjusted p-values, in the input order (Holm 1979 step-down; Benjamini-Hochberg 1995 step-up).
std::vector<double> adjust(const std::vector<double>& p, const std::string& method) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  for (size_t i = 0; i < m; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return p[x] < p[y]; });
  std::vector<double> q(m);
  if (method == "holm") {
    double run = 0;
    for (size_t r = 0; r < m; ++r) {
      run = std::max(run, std::min(1.0, double(m - r) * p[order[r]]));
      q[order[r]] = run;
    }
  } else {
    double run = 1;
    for (size_t r = m; r-- > 0;) {
      run = std::min(run, std::min(1.0, double(m) / double(r + 1) * p[order[r]]));
      q[order[r]] = run;
    }
  }
  return q;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? std::nan("") : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Quantile of chi-square with k degrees of freedom at the standard normal quantile z, over k
// (Wilson-Hilferty: within 1% of the exact value from k = 1 at the median and the 99th percentile).
double chi2_over_k(double k, double z) {
  const double a = 2.0 / (9.0 * k);
  const double c = 1 - a + z * std::sqrt(a);
  return c * c * c;
}

// The drift between runs (CaseComparison::run_to_run_sd_log) from each case's log medians over
// the history runs (`logs`, parallel to c.cases; A is not among them), robust to what is no drift:
//  - A is left out (2026-12-06 review): A may hold a change of its own (an optimisation that
//    landed), and with A among the points that change was counted twice, in A-B and in the
//    "drift": A 10% faster over a flat history widened the drift from 1.4% to 3.2% and B losing
//    it again (-9.3%) read within_run_noise in all 17 cases, exit 0.
//  - A history run whose cases of one suite and metric ran, as a whole, far from the others
//    (another process on the host, a throttled clock) is left out of their drift: its shift is the
//    median over those cases of its log median less the case's median over the runs; it is left
//    out when that shift lies further from the median shift than max(5 robust deviations (1.4826 x
//    MAD), 10%). A drift shared by the runs is kept; a run that moved every case at once is no
//    sample of it. Needs 5 cases with history and 4 runs with shifts (review of 2026-12-05: a
//    uniform 30% slow-down passed as within_run_noise after one run had run under load).
//  - Level shifts (2026-12-06 review): the runs kept, in time order (started_at, then id; the
//    caller's order where neither is set), are split where the cases of a suite and metric moved
//    together, between two consecutive runs, by more than max(5 robust deviations of such moves
//    (1.4826 x their median absolute value, about 0), --min-effect): a new build, not drift. Each
//    case's deviation is taken within the stretches between them (successive differences within
//    each stretch, below). A move is the median over the
//    cases of the difference of their log medians; needs 3 moves (4 runs). A 25% step half-way
//    through a flat history had read as a 12% drift and a 35% slow-down passed the gate. A run
//    alone between two shifts (under load) forms a stretch of one and adds nothing.
//  - A trend (2026-12-07 review): a steady creep of 2% a run is no level shift (each move is below
//    --min-effect), and taken as drift it had excused a 30% slow-down. The deviation is the
//    successive-difference (von Neumann) one, from consecutive runs, with its own degrees of
//    freedom (see Part below): a trend adds its slope^2 / 2 to the variance, not its range.
//  - Within a suite and metric, whose cases drift alike and are pooled, a case whose variance
//    exceeds the pool's median variance by more than the 99.9th over the 50th percentile of its
//    chi-square is left out of the pool (one case that dipped 2x in one run had raised the pooled
//    deviation of 68 cases from 2.7% to 13%); it is then judged with the pool's deviation.
// Pooling (2026-12-04 review): a case's own 4-6 medians give a deviation as likely to read 1% as
// 6%, so the cases of one suite and metric on one host share one variance, with the degrees of
// freedom of every case with enough history. A variance estimate is used, not a MAD: a MAD of
// 4-6 medians about their own median read 2.3% for a 3.0% drift and 24% of identical runs failed
// the gate (2026-12-06 review).
void estimate_drift(Comparison& c, const std::vector<std::vector<std::pair<int, double>>>& logs, const CompareOptions& opt) {
  // Each history run's place in time (the caller may give them newest first, as `history compare`
  // does, or oldest first).
  std::vector<size_t> by_time(opt.history.size());
  for (size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
  std::stable_sort(by_time.begin(), by_time.end(), [&](size_t x, size_t y) {
    return std::tie(opt.history[x]->started_at, opt.history[x]->id) < std::tie(opt.history[y]->started_at, opt.history[y]->id);
  });
  std::vector<size_t> time_rank(opt.history.size());
  for (size_t k = 0; k < by_time.size(); ++k) time_rank[by_time[k]] = k;
  // The cases of each suite and metric (those whose drift is pooled), and the runs each group
  // leaves out: a run's shift is judged among cases that drift alike, with at least 5 of them (a
  // `bench run` command's wall, CPU and memory cases are three metrics of one case each, and the
  // CPU time of a sleep scatters by 35%: judged together they had left a quiet run out).
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < c.cases.size(); ++i)
    if (logs[i].size() >= 2) groups[c.cases[i].suite + "\n" + c.cases[i].metric].push_back(i);
  std::map<std::string, std::set<int>> left_out;
  for (const auto& [key, members] : groups) {
    if (members.size() < 5) continue;
    std::map<int, std::vector<double>> deviations;
    for (size_t i : members) {
      std::vector<double> v;
      for (const auto& p : logs[i]) v.push_back(p.second);
      const double ref = median_of(v);
      for (const auto& p : logs[i]) deviations[p.first].push_back(p.second - ref);
    }
    std::map<int, double> shift;
    for (const auto& [run, d] : deviations) shift[run] = median_of(d);
    if (shift.size() < 4) continue;
    std::vector<double> all;
    for (const auto& [run, x] : shift) all.push_back(x);
    const double center = median_of(all);
    std::vector<double> abs_dev;
    for (double x : all) abs_dev.push_back(std::fabs(x - center));
    const double scale = 1.4826 * median_of(abs_dev);
    const double limit = std::max(5 * scale, std::log(1.10));
    for (const auto& [run, x] : shift)
      if (std::fabs(x - center) > limit) {
        left_out[key].insert(run);
        const int64_t id = opt.history[static_cast<size_t>(run)]->id;
        c.history_runs_left_out.push_back(id);
        c.history_runs_left_out_shift_fraction.push_back(std::expm1(x - center));
        c.history_runs_left_out_cases.push_back(c.cases[members.front()].suite + " " + c.cases[members.front()].metric);
      }
  }
  // Level shifts between consecutive runs kept, per suite and metric: the stretch of each run.
  std::map<std::string, std::map<int, int>> stretch_of;
  for (const auto& [key, members] : groups) {
    const auto lo = left_out.find(key);
    std::set<int> held;
    for (size_t i : members)
      for (const auto& p : logs[i])
        if (lo == left_out.end() || !lo->second.count(p.first)) held.insert(p.first);
    std::vector<int> runs(held.begin(), held.end());
    std::sort(runs.begin(), runs.end(), [&](int x, int y) { return time_rank[static_cast<size_t>(x)] < time_rank[static_cast<size_t>(y)]; });
    std::vector<double> move(runs.empty() ? 0 : runs.size() - 1, std::nan(""));
    std::vector<double> sizes;
    for (size_t j = 0; j < move.size(); ++j) {
      std::vector<double> d;
      for (size_t i : members) {
        double before = std::nan(""), after = std::nan("");
        for (const auto& p : logs[i]) {
          if (p.first == runs[j]) before = p.second;
          if (p.first == runs[j + 1]) after = p.second;
        }
        if (std::isfinite(before) && std::isfinite(after)) d.push_back(after - before);
      }
      if (d.empty()) continue;
      move[j] = median_of(d);
      sizes.push_back(std::fabs(move[j]));
    }
    std::vector<bool> shifted(move.size(), false);
    if (sizes.size() >= 3) {
      const double limit = std::max(5 * 1.4826 * median_of(sizes), std::log1p(opt.min_effect_fraction));
      for (size_t j = 0; j < move.size(); ++j)
        if (std::isfinite(move[j]) && std::fabs(move[j]) > limit) {
          shifted[j] = true;
          c.drift_level_shift_runs.push_back(opt.history[static_cast<size_t>(runs[j + 1])]->id);
          c.drift_level_shift_fraction.push_back(std::expm1(move[j]));
          c.drift_level_shift_cases.push_back(c.cases[members.front()].suite + " " + c.cases[members.front()].metric);
        }
    }
    int stretch = 0;
    for (size_t j = 0; j < runs.size(); ++j) {
      if (j > 0 && shifted[j - 1]) ++stretch;
      stretch_of[key][runs[j]] = stretch;
    }
  }
  // Each case's successive differences over the runs kept, in time order, within each stretch
  // (2026-12-07 review: the sample deviation about each stretch's mean counted a steady creep as
  // drift: ten runs slowing 2% each read a 6.6% "drift", a t cut-off of ~40%, and a 30% slow-down
  // after them passed as within_run_noise, exit 0). The von Neumann mean square successive
  // difference estimates the variance from consecutive runs only, sigma^2 = sum (x[j+1] - x[j])^2 /
  // (2 (n - 1)): a linear trend adds slope^2 / 2 to it (2% a run: a deviation of 1.4%), not the
  // trend's whole range, and what it measures, the spread of the difference of two consecutive run
  // medians, is what A against B is. Under no trend it is unbiased. Its degrees of freedom are fewer than
  // n - 1: for independent normal medians sum (x[j+1] - x[j])^2 / (2 sigma^2) over a stretch of m
  // differences has mean m and variance 3 m - 1 (von Neumann 1941; m = 1 is a chi-square of 1), so
  // summed over stretches (and over the cases pooled) the estimate matches a chi-square of
  // 2 M^2 / sum (3 m - 1) degrees of freedom in its first two moments (Satterthwaite), M = sum m:
  // 2 (n - 1)^2 / (3 n - 4) for one stretch of n runs, about 2 n / 3 (ten runs: 6.2, against 9).
  struct Part {
    double ss = 0;         // half the sum of the squared successive differences
    int64_t diffs = 0;     // the number of differences (M)
    double var_units = 0;  // sum over the stretches of 3 m - 1: the variance of ss / sigma^2 (its mean: diffs)
    double dof() const { return var_units > 0 ? 2.0 * static_cast<double>(diffs) * static_cast<double>(diffs) / var_units : 0.0; }
  };
  std::vector<Part> part(c.cases.size());
  std::map<std::string, std::vector<size_t>> pools;  // suite + metric -> cases with a deviation
  for (size_t i = 0; i < c.cases.size(); ++i) {
    auto& cc = c.cases[i];
    const std::string key = cc.suite + "\n" + cc.metric;
    const auto lo = left_out.find(key);
    const auto st = stretch_of.find(key);
    std::vector<std::pair<int, double>> in_time = logs[i];
    std::stable_sort(in_time.begin(), in_time.end(), [&](const auto& x, const auto& y) {
      return time_rank[static_cast<size_t>(x.first)] < time_rank[static_cast<size_t>(y.first)];
    });
    std::map<int, std::vector<double>> by_stretch;  // in time order within each
    int64_t kept = 0;
    for (const auto& p : in_time)
      if (lo == left_out.end() || !lo->second.count(p.first)) {
        int s = 0;  // (a case held by one run alone is in no group: one stretch)
        if (st != stretch_of.end()) {
          const auto at = st->second.find(p.first);
          if (at != st->second.end()) s = at->second;
        }
        by_stretch[s].push_back(p.second);
        ++kept;
      }
    cc.history_count = kept;
    if (cc.history_count < kMinHistoryRuns) continue;
    for (const auto& [s, v] : by_stretch) {
      if (v.size() < 2) continue;  // a stretch of one run adds nothing
      for (size_t j = 0; j + 1 < v.size(); ++j) part[i].ss += 0.5 * (v[j + 1] - v[j]) * (v[j + 1] - v[j]);
      const auto m = static_cast<int64_t>(v.size()) - 1;
      part[i].diffs += m;
      part[i].var_units += 3.0 * static_cast<double>(m) - 1.0;
    }
    if (part[i].diffs < 1) continue;
    cc.run_to_run_sd_log = std::sqrt(part[i].ss / static_cast<double>(part[i].diffs));
    cc.run_to_run_dof = part[i].dof();
    pools[key].push_back(i);
  }
  for (const auto& [k, members] : pools) {
    std::vector<double> var;
    for (size_t i : members) var.push_back(part[i].ss / static_cast<double>(part[i].diffs));
    const double med = median_of(var);
    Part pooled;
    for (size_t i : members) {
      const double k_i = part[i].dof();
      // (A pool whose typical case never moves, a peak RSS, has a median variance of 0: nothing
      // is an outlier of it.)
      const bool outlier = members.size() >= 3 && med > 0 &&
                           part[i].ss / static_cast<double>(part[i].diffs) > med * chi2_over_k(k_i, 3.0902) / chi2_over_k(k_i, 0);
      if (outlier) {
        ++c.drift_cases_left_out;
        continue;
      }
      pooled.ss += part[i].ss;
      pooled.diffs += part[i].diffs;
      pooled.var_units += part[i].var_units;
    }
    for (size_t i : members) {
      auto& cc = c.cases[i];
      if (pooled.diffs > 0 && pooled.dof() > cc.run_to_run_dof) {
        cc.run_to_run_sd_log = std::sqrt(pooled.ss / static_cast<double>(pooled.diffs));
        cc.run_to_run_dof = pooled.dof();
      }
    }
  }
}
}  // namespace

Comparison compare_runs(const RunRecord& a, const RunRecord& b, const CompareOptions& opt) {
  const auto& corrections = compare_correction_names();
  if (std::find(corrections.begin(), corrections.end(), opt.correction) == corrections.end())
    throw Error(SourceLocation{"", 0, 0, "--correction"}, "unknown correction '" + opt.correction + "'",
                valid_choices_hint(opt.correction, corrections));
  const auto& tests = compare_test_names();
  if (std::find(tests.begin(), tests.end(), opt.test) == tests.end())
    throw Error(SourceLocation{"", 0, 0, "--test"}, "unknown test '" + opt.test + "'", valid_choices_hint(opt.test, tests));
  if (!(opt.alpha > 0 && opt.alpha < 1)) throw Error(SourceLocation{"", 0, 0, "--alpha"}, "alpha must lie in (0, 1)");
  // A fraction: 5 meant as 5% had made a gate that no throughput metric can fail (2026-12-04).
  if (!(opt.min_effect_fraction >= 0 && opt.min_effect_fraction < 1))
    throw Error(SourceLocation{"", 0, 0, "--min-effect"}, "the minimum effect is a fraction from 0 to below 1, got " + format_double(opt.min_effect_fraction),
                "e.g. 0.05 for 5%");
  // A --suite or --metric that neither run has is a typo, not "nothing changed": a CI gate that
  // compares nothing must not pass.
  for (const auto& [flag, wanted_values, field] :
       {std::tuple<const char*, const std::vector<std::string>*, int>{"--suite", &opt.suites, 0}, {"--metric", &opt.metrics, 1}}) {
    std::vector<std::string> present;
    for (const RunRecord* r : {&a, &b})
      for (const auto& m : r->measurements) {
        const std::string& v = field == 0 ? m.suite : m.metric;
        if (std::find(present.begin(), present.end(), v) == present.end()) present.push_back(v);
      }
    std::sort(present.begin(), present.end());
    for (const auto& w : *wanted_values)
      if (std::find(present.begin(), present.end(), w) == present.end())
        throw Error(SourceLocation{"", 0, 0, flag}, "neither run has " + std::string(field == 0 ? "suite" : "metric") + " '" + w + "'",
                    valid_choices_hint(w, present));
  }
  // Each value present, but no case has both a wanted suite and a wanted metric (`--suite gemm_cpu
  // --metric latency_s`): say so, with what each names. Before 2026-12-06 this read "no case of
  // run B matches one of run A (0 only in A, 0 only in B)... compare two runs of the same suites",
  // of two runs of the same suites (review).
  if (!opt.suites.empty() && !opt.metrics.empty()) {
    auto in = [](const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    std::vector<std::string> metrics_of_suites, suites_of_metrics;
    bool any = false;
    for (const RunRecord* r : {&a, &b})
      for (const auto& m : r->measurements) {
        const bool suite_wanted = in(opt.suites, m.suite), metric_wanted = in(opt.metrics, m.metric);
        any = any || (suite_wanted && metric_wanted);
        if (suite_wanted && !in(metrics_of_suites, m.metric)) metrics_of_suites.push_back(m.metric);
        if (metric_wanted && !in(suites_of_metrics, m.suite)) suites_of_metrics.push_back(m.suite);
      }
    if (!any) {
      auto joined = [](std::vector<std::string> v) {
        std::sort(v.begin(), v.end());
        std::string out;
        for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
        return out;
      };
      throw Error(SourceLocation{"", 0, 0, "--metric"},
                  "--suite " + joined(opt.suites) + " and --metric " + joined(opt.metrics) + " select no case of run " +
                      std::to_string(a.id) + " or run " + std::to_string(b.id) + ": each is present, never together",
                  "metrics of --suite " + joined(opt.suites) + ": " + joined(metrics_of_suites) + "; suites with --metric " +
                      joined(opt.metrics) + ": " + joined(suites_of_metrics));
    }
  }
  Comparison c;
  c.same_host = a.host.fingerprint() == b.host.fingerprint();
  // One command on each side: its cases match by metric, whatever the command line or label.
  auto one_command = [](const RunRecord& r) {
    std::string name;
    for (const auto& m : r.measurements)
      if (m.suite == "command") {
        if (!name.empty() && m.name != name) return false;
        name = m.name;
      }
    return !name.empty();
  };
  const bool commands_match = one_command(a) && one_command(b);
  auto key = [&](const Measurement& m) {
    return m.suite + "\x1f" + (m.suite == "command" && commands_match ? std::string() : m.name) + "\x1f" + m.metric;
  };
  std::map<std::string, const Measurement*> in_b;
  for (const auto& m : b.measurements) in_b[key(m)] = &m;
  std::map<std::string, bool> matched;
  auto wanted = [&](const Measurement& m) {
    auto in = [](const std::vector<std::string>& v, const std::string& x) { return v.empty() || std::find(v.begin(), v.end(), x) != v.end(); };
    return in(opt.suites, m.suite) && in(opt.metrics, m.metric);
  };
  // Per case (parallel to c.cases): the log medians of the history runs that hold it, as (history
  // index, log median). The drift is estimated from them after every case is read.
  std::vector<std::vector<std::pair<int, double>>> case_logs;
  for (const auto& ma : a.measurements) {
    if (!wanted(ma)) continue;
    auto it = in_b.find(key(ma));
    if (it == in_b.end()) {
      c.only_in_a.push_back(ma.suite + "/" + ma.name + " [" + ma.metric + "]");
      continue;
    }
    matched[it->first] = true;
    const Measurement& mb = *it->second;
    CaseComparison cc;
    cc.suite = ma.suite;
    cc.name = ma.name == mb.name ? ma.name : ma.name + " | " + mb.name;
    cc.parameter_changes = run_changes(a, ma, b, mb);
    for (const auto& [k, v] : ma.params)
      if (software(k) && mb.has_param(k) && mb.param(k) != v) {
        const std::string change = k + " " + v + " -> " + mb.param(k);
        if (std::find(c.software_changes.begin(), c.software_changes.end(), change) == c.software_changes.end())
          c.software_changes.push_back(change);
      }
    cc.metric = ma.metric;
    cc.higher_is_better = ma.higher_is_better;
    cc.resolution = std::max(resolution_of(ma), resolution_of(mb));
    cc.count_a = static_cast<int64_t>(ma.samples.size());
    cc.count_b = static_cast<int64_t>(mb.samples.size());
    cc.median_a = ma.summary().median;
    cc.median_b = mb.summary().median;
    cc.mean_a = ma.summary().mean;
    cc.mean_b = mb.summary().mean;
    // A baseline median of 0 (a coarse rusage time, a counter that was idle): any other median
    // is an unbounded change, not none.
    cc.change_fraction = cc.median_a != 0 ? cc.median_b / cc.median_a - 1
                                          : cc.median_b == 0 ? 0.0 : std::copysign(INFINITY, cc.median_b);
    cc.spread_a = ma.summary().spread_fraction;
    cc.spread_b = mb.summary().spread_fraction;
    // Run-to-run drift from the history: the case's median in each earlier run of B's host that
    // ran it with B's parameters. Not A's: A may hold a change of its own, which had widened the
    // "drift" it was judged against (2026-12-06 review; see estimate_drift).
    std::vector<std::pair<int, double>> logs;
    if (!opt.history.empty() && cc.median_a > 0 && cc.median_b > 0) {
      for (size_t hi = 0; hi < opt.history.size(); ++hi) {
        const RunRecord* h = opt.history[hi];
        if (h->host.fingerprint() != b.host.fingerprint()) continue;
        for (const auto& mh : h->measurements)
          // A `bench run` case is its command: history runs of other commands are no drift of
          // this one (they matched by metric alone: a 64% slower command read as within noise
          // of four other commands' spread; review of 2026-12-05).
          if (key(mh) == key(mb) && (mh.suite != "command" || mh.name == mb.name || mh.name == ma.name) &&
              run_changes(*h, mh, b, mb).empty() && !mh.samples.empty()) {
            const double med = mh.summary().median;
            if (med > 0) logs.push_back({static_cast<int>(hi), std::log(med)});
            break;
          }
      }
    }
    const bool testable = cc.count_a >= 2 && cc.count_b >= 2;
    // Fewer than two repetitions a side: no test runs, p is 1 and nothing below it can be reached
    // (before 2026-12-06 min_p_value read 0 there, as if any significance were within reach; review).
    cc.min_p_value = 1;
    // Mann-Whitney's p and the smallest p its values can give: the test on the most extreme split
    // of the pooled values, A lowest or A highest: with ties and unequal counts the two differ
    // (before 2026-12-02 only A lowest was tried, and {6 x 0.01, 4 x 0.012} read "cannot go below
    // p = 0.076" where its own p was 0.0048). A split has the pooled values, hence their ties and
    // counts, so it takes the case's own path: exact, or the normal approximation beyond 100
    // samples (whose smallest p min_p_value was not, reading 0 until 2026-12-06; review).
    auto mann_whitney = [&] {
      const MannWhitney u = mann_whitney_u(ma.samples, mb.samples);
      cc.p_value = u.p_two_sided;
      cc.method = u.method;
      std::vector<double> pooled = ma.samples;
      pooled.insert(pooled.end(), mb.samples.begin(), mb.samples.end());
      std::sort(pooled.begin(), pooled.end());
      const auto na = static_cast<std::ptrdiff_t>(ma.samples.size());
      const auto nb = static_cast<std::ptrdiff_t>(mb.samples.size());
      const std::vector<double> a_low(pooled.begin(), pooled.begin() + na), b_high(pooled.begin() + na, pooled.end());
      const std::vector<double> b_low(pooled.begin(), pooled.begin() + nb), a_high(pooled.begin() + nb, pooled.end());
      // Without ties this is 2 / C(na + nb, na); with ties it can be lower as well as higher (six
      // tied values against four higher ones: 1 / 210).
      cc.min_p_value = std::min(mann_whitney_u(a_low, b_high).p_two_sided, mann_whitney_u(a_high, b_low).p_two_sided);
    };
    if (testable) {
      if (opt.test == "welch") {
        // (Every value equal, not a stddev of 0: the mean of three 0.1 s is not 0.1 in floating point.)
        auto constant = [](const std::vector<double>& v) { return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end(); };
        if (constant(ma.samples) && constant(mb.samples)) {
          // No scatter on either side: Welch's t is 0 / 0 or infinite. Equal constants are no
          // change (p 1). Different constants are a certain difference, but p = 0 whatever the
          // counts would read two repetitions a side as a regression where no split of four can go
          // below 1/3: they are tested by Mann-Whitney, which weighs the counts (method exact; 5
          // a side: p 2 / 252). Before, both read `untestable` ("fewer than 2 repetitions", p 0):
          // a 25% slow-down of 5 constant repetitions a side passed under --allow-unchecked
          // (2026-12-06 review).
          if (cc.median_a == cc.median_b) {
            cc.p_value = 1;
            cc.method = "welch";
            cc.min_p_value = 0;  // (Welch's column: t is unbounded as the sides move apart)
          } else {
            mann_whitney();
          }
        } else {
          const Welch w = welch_t_test(ma.samples, mb.samples);
          cc.p_value = w.p_two_sided;
          cc.method = "welch";
          // Welch's t grows without bound as the two sides move apart: with two repetitions a side
          // any p is reachable.
          cc.min_p_value = 0;
        }
      } else {
        mann_whitney();
      }
    }
    cc.verdict = !testable ? "untestable" : cc.min_p_value >= opt.alpha ? "underpowered" : "";
    if (wrong_count(ma) > 0 || wrong_count(mb) > 0) cc.verdict = "wrong_results";
    // A command that exits otherwise in B than in A (it crashed under --ignore-failure) did other
    // work: its times are no verdict on speed (a crash in 0.1 s compared as an improvement).
    if (exit_statuses(ma) != exit_statuses(mb)) cc.verdict = "exit_status_differs";
    // A peak resident set within 25% of Sextant's own at the spawn (max_rss_floor_bytes, kept by
    // Linux across exec) measured Sextant, not the command: no verdict on the command's memory.
    // Before 2026-12-03 two such runs, Sextant's own memory grown between them, compared as a
    // +279% regression of the command.
    {
      auto at_floor = [](const Measurement& m, double median) {
        if (m.metric != "max_rss_bytes" || !m.has_param("max_rss_floor_bytes")) return false;
        const double floor = std::atof(m.param("max_rss_floor_bytes").c_str());
        return floor > 0 && median <= 1.25 * floor;
      };
      if ((cc.verdict.empty() || cc.verdict == "underpowered" || cc.verdict == "untestable") &&
          (at_floor(ma, cc.median_a) || at_floor(mb, cc.median_b))) cc.verdict = "at_rss_floor";
    }
    c.cases.push_back(std::move(cc));
    case_logs.push_back(std::move(logs));
  }
  estimate_drift(c, case_logs, opt);
  // Verdicts, after the p-values of the testable cases are adjusted together.
  {
    std::vector<size_t> idx;
    std::vector<double> p;
    for (size_t i = 0; i < c.cases.size(); ++i)
      if (c.cases[i].verdict.empty()) {
        idx.push_back(i);
        p.push_back(c.cases[i].p_value);
      }
    // Under Holm a case that cannot reach its share of alpha is never significant. Tarone's rule
    // (1990) leaves such cases out of the family without losing the family-wise error control:
    // K is the smallest count such that at most K cases can reach alpha / K; the cases whose
    // smallest p reaches alpha / K are underpowered, the others are adjusted among themselves.
    if (opt.correction == "holm" && !idx.empty()) {
      size_t K = 1;
      for (; K <= idx.size(); ++K) {
        size_t can = 0;
        for (size_t j : idx) can += c.cases[j].min_p_value < opt.alpha / static_cast<double>(K);
        if (can <= K) break;
      }
      std::vector<size_t> keep_idx;
      std::vector<double> keep_p;
      c.family_alpha = opt.alpha / static_cast<double>(K);
      for (size_t j = 0; j < idx.size(); ++j) {
        auto& cc = c.cases[idx[j]];
        if (cc.min_p_value >= opt.alpha / static_cast<double>(K)) {
          cc.verdict = "underpowered";
          cc.family_excluded = true;  // (its min_p_value is below alpha: it was testable alone)
        } else {
          keep_idx.push_back(idx[j]);
          keep_p.push_back(p[j]);
        }
      }
      idx.swap(keep_idx);
      p.swap(keep_p);
    }
    if (opt.correction != "none" && !p.empty()) {
      const auto q = adjust(p, opt.correction);
      for (size_t j = 0; j < idx.size(); ++j) c.cases[idx[j]].p_value = q[j];
      // Under Benjamini-Hochberg a case's adjusted p depends on the others' p-values. A case that
      // stays above alpha even with its smallest reachable p (the others unchanged) could not have
      // been found whatever its change: it is underpowered in this family, as Tarone's rule makes
      // it under Holm, and keeps its own p. Before 2026-12-03 a case of 5 repetitions a side whose
      // bus bandwidth halved, among 20, read `unchanged` (adjusted p 0.159) and the gate passed.
      if (opt.correction == "benjamini-hochberg")
        for (size_t j = 0; j < idx.size(); ++j) {
          auto& cc = c.cases[idx[j]];
          if (!(cc.p_value >= opt.alpha)) continue;
          std::vector<double> best = p;
          best[j] = std::min(p[j], cc.min_p_value);
          if (adjust(best, opt.correction)[j] < opt.alpha) continue;
          cc.verdict = "underpowered";
          cc.family_excluded = true;
          cc.p_value = p[j];
        }
    }
    // history_z standard deviations of a known drift, as a Student t cut-off of the same tail
    // for a deviation estimated from run_to_run_dof (effective, fractional since the 2026-12-07
    // review) degrees of freedom, of which at least kMinDriftDof (8: 4.28 for z 3). With 3 of them
    // (a command with 3 earlier runs) the cut-off was 9.22 and an 18% slow-down at a 3.7% drift
    // passed as within_run_noise (2026-12-06 review).
    auto within_drift = [&](const CaseComparison& cc) {
      return std::isfinite(cc.run_to_run_sd_log) && cc.run_to_run_dof >= kMinDriftDof && cc.median_a > 0 && cc.median_b > 0 &&
             std::fabs(std::log(cc.median_b / cc.median_a)) <=
                 student_t_cutoff(opt.history_z, cc.run_to_run_dof) * std::sqrt(2.0) * cc.run_to_run_sd_log;
    };
    for (auto& cc : c.cases) {
      if (std::isfinite(cc.run_to_run_sd_log) && cc.run_to_run_dof >= kMinDriftDof)
        cc.drift_cutoff_fraction = std::expm1(student_t_cutoff(opt.history_z, cc.run_to_run_dof) * std::sqrt(2.0) * cc.run_to_run_sd_log);
      // Direction from the medians; where they are equal (a change of 0, which only passes the
      // effect filter at --min-effect 0), from the means, so a shifted tail is not an improvement.
      const double direction = cc.change_fraction != 0 ? cc.change_fraction : cc.mean_b - cc.mean_a;
      const bool worse = cc.higher_is_better ? direction < 0 : direction > 0;
      cc.direction = direction == 0 ? "same" : worse ? "worse" : "better";
      // Within a relative rounding tolerance of --min-effect (2026-12-06 review: B = 0.95 x A read
      // a change of -0.04999999999999993, "unchanged" at p 0.008).
      const bool large = std::fabs(cc.change_fraction) >= opt.min_effect_fraction * (1 - kMinEffectRelativeTolerance);
      if (!cc.parameter_changes.empty()) {
        cc.verdict = "parameters_differ";
        ++c.parameters_differ_count;
        continue;
      }
      // Medians closer than the metric's resolution (a tick of rusage CPU time charged to user in
      // one run and to system in the other): no verdict, whatever the test says, and no gate
      // failure (2026-12-06 review: identical `sleep 0.05` runs failed on user_s 0 -> 4.3 ms). The
      // case stays in the correction's family above: it is relabelled, not left out.
      if (cc.resolution > 0 && std::fabs(cc.median_b - cc.median_a) < cc.resolution &&
          (cc.verdict.empty() || cc.verdict == "underpowered" || cc.verdict == "untestable")) {
        cc.verdict = "below_resolution";
        ++c.below_resolution_count;
        continue;
      }
      if (!cc.verdict.empty()) {
        ++c.unchecked_count;
        cc.unchecked_failure = cc.verdict == "wrong_results" || cc.verdict == "exit_status_differs" ||
                               (cc.verdict != "at_rss_floor" && worse && large && cc.change_fraction != 0 &&
                                (!cc.family_excluded || cc.p_value < opt.alpha) && !within_drift(cc));
        c.unchecked_failure_count += cc.unchecked_failure;
        continue;
      }
      if (cc.p_value < opt.alpha && large && direction != 0) cc.verdict = worse ? "regression" : "improvement";
      else cc.verdict = "unchanged";
      // A change the test finds within a run but no larger than the case drifts between runs of
      // this host: B's median against A's differs by a difference of two run medians, whose sd is
      // sqrt(2) x the run-to-run sd. Within history_z of those it is the host's drift, not a
      // verdict (two back-to-back runs of one build read a -7.6% "regression" at p 0.029, with
      // 1% spreads within each run; 2026-12-04 review).
      if ((cc.verdict == "regression" || cc.verdict == "improvement") && within_drift(cc)) cc.verdict = "within_run_noise";
      if (cc.verdict == "regression") ++c.regression_count;
      if (cc.verdict == "improvement") ++c.improvement_count;
    }
  }
  for (const auto& mb : b.measurements)
    if (wanted(mb) && !matched.count(key(mb))) c.only_in_b.push_back(mb.suite + "/" + mb.name + " [" + mb.metric + "]");
  if (c.cases.empty())
    throw Error(SourceLocation{"", 0, 0, "compare"},
                "nothing to compare: no case of run " + std::to_string(b.id) + " matches one of run " + std::to_string(a.id) + " (" +
                    std::to_string(c.only_in_a.size()) + " only in A, " + std::to_string(c.only_in_b.size()) + " only in B)",
                "cases match by suite, case name and metric: compare two runs of the same suites");
  // Every case in common ran with other parameters: nothing was judged, and a gate that judged
  // nothing must not pass (before 2026-12-03 a 1-thread run against a 2-thread one, 52% slower,
  // exited 0 with 17 parameters_differ cases).
  if (c.parameters_differ_count == static_cast<int>(c.cases.size()))
    throw Error(SourceLocation{"", 0, 0, "compare"},
                "nothing compared: all " + std::to_string(c.cases.size()) + " case(s) in common ran with different parameters (e.g. " +
                    c.cases.front().suite + "/" + c.cases.front().name + ": " + c.cases.front().parameter_changes + ")",
                "compare two runs of one configuration (the same threads, dtype, timer, ranks)");
  // Every case in common below its metric's resolution (with any others parameters_differ): no
  // case was judged either, and a gate that judged nothing must not pass. Before 2026-12-06
  // `--metric user_s` of two runs exited 0 with case_count 1, below_resolution_count 1 (review).
  if (c.below_resolution_count > 0 && c.parameters_differ_count + c.below_resolution_count == static_cast<int>(c.cases.size())) {
    const CaseComparison* first = nullptr;
    for (const auto& x : c.cases)
      if (x.verdict == "below_resolution") {
        first = &x;
        break;
      }
    auto short_number = [](double v) {  // 0.0044729999999999995 read as 0.00447
      char text[32];
      std::snprintf(text, sizeof text, "%.3g", v);
      return std::string(text);
    };
    throw Error(SourceLocation{"", 0, 0, "compare"},
                "nothing compared: " + std::to_string(c.below_resolution_count) + " of " + std::to_string(c.cases.size()) +
                    " case(s) in common changed by less than their metric's resolution (below_resolution, e.g. " + first->suite + "/" +
                    first->name + " " + first->metric + ": median " + short_number(first->median_a) + " -> " + short_number(first->median_b) +
                    " s, resolution " + short_number(first->resolution) + " s)" +
                    (c.parameters_differ_count > 0 ? " and " + std::to_string(c.parameters_differ_count) + " ran with different parameters" : std::string()) +
                    ": rusage user_s and sys_s are charged by whole scheduler ticks of 1-10 ms, so CPU-time changes this small tell nothing",
                "compare --metric wall_s (timed by a monotonic clock and judged at any size), or measure longer work (more repetitions "
                "of the work inside each run) so that the CPU time changes by at least the resolution");
  }
  return c;
}

}  // namespace sextant::bench
