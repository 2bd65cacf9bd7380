#pragma once
// Comparison of two runs for `sextant history compare A B`: cases are matched by (suite, name,
// metric); each pair of repetition samples goes through a two-sample test, and a case is a
// regression only when the test rejects equality at `alpha` AND B's median is worse than A's
// by at least min_effect_fraction (statistically significant and large enough to matter).
// With n repetitions on each side the exact Mann-Whitney test cannot go below
// 2 / C(2n, n): n >= 4 is needed for alpha = 0.05. A case whose test cannot reach alpha with
// its repetition counts is `underpowered` (fewer than two repetitions: `untestable`); one whose
// nccl-tests check counted wrong results (#wrong > 0 on either side) is `wrong_results`. Such a
// case is unchecked: when it is worse by at least min_effect_fraction, or has wrong results, it
// counts in unchecked_failure_count, which fails a CI gate as a regression does (a gate that
// cannot test a 4x slowdown must not pass it).
//
// Like for like: a case whose configuring parameters differ between the runs (threads, dtype,
// timer, BLAS, ranks: every recorded parameter except the descriptive ones listed in
// compare.cpp) gets the verdict `parameters_differ` with the change spelled out, never
// `regression`: two thread counts are a comparison, not a regression. The cases of `bench run`
// (suite `command`) match by metric when each run holds one command, whatever the commands or
// labels, so a command before and after a change can be compared.
//
// Resolution (2026-12-06 review): a `bench run` command's user_s and sys_s come from the kernel's
// rusage, which splits a process's CPU time between user and system by whole scheduler ticks (1 to
// 10 ms; HZ 1000 to 100): one tick charged to user in one run and to system in the other moved
// both medians by a tick, 0 -> 4.3 ms read as an infinite regression of user_s and identical
// commands failed the gate. A case whose medians differ by less than its metric's resolution
// (kRusageCpuResolutionS for those two; no floor for other metrics) is `below_resolution`: no
// verdict, and it fails no gate. Its wall_s, timed by a monotonic clock, is judged as usual.
//
// Multiple comparisons: `correction` holm (family-wise error) or benjamini-hochberg (false
// discovery rate) adjusts the p-values over the testable cases before alpha; none (default)
// tests each case at alpha, so about alpha x cases false alarms are expected among unchanged cases.
#include <cmath>
#include <string>
#include <vector>

#include "bench/db/results_db.hpp"

namespace sextant::bench {

struct CompareOptions {
  double alpha = 0.05;
  double min_effect_fraction = 0.05;
  std::string test = "mann-whitney";  // mann-whitney | welch
  std::string correction = "none";     // none | holm | benjamini-hochberg
  std::vector<std::string> suites, metrics;  // compare only these (empty: all)
  // Runs of B's host made before A and B (the caller's choice, in any order: they are put in time
  // order by started_at, then id; one between A and B may hold the change itself): the medians of
  // a case over them estimate the drift between runs, which the test within a run does not see.
  // A's median is not among them: A may hold a change of its own (2026-12-06 review). With at
  // least kMinHistoryRuns earlier medians of a case and kMinDriftDof degrees of freedom in its
  // (pooled) deviation, a change within history_z standard deviations of the difference of two run
  // medians (a Student t cut-off of the same tail, the deviation being estimated) is
  // within_run_noise, not a verdict (see compare.cpp, estimate_drift).
  std::vector<const RunRecord*> history;
  double history_z = 3.0;
};
inline constexpr int kMinHistoryRuns = 3;
// The drift excuses a change only where its deviation rests on at least this many degrees of
// freedom (pooled over the cases of a suite and metric): there the Student t cut-off for z 3 is
// 4.28, within 1.5x of the normal 3. With fewer the cut-off explodes (9.22 at 3 dof, 6.62 at 4,
// 4.53 at 7): a `bench run` command with 3 earlier runs and a 3.7% drift passed an 18% slow-down,
// 4.6 of its run-to-run deviations, as within_run_noise (up to +61% would have passed) (2026-12-06 review). The deviation is
// still reported; the within-run verdict stands. The degrees of freedom are the successive-difference
// estimate's effective ones (2026-12-07 review; compare.cpp, estimate_drift): 2 (n - 1)^2 / (3 n - 4)
// for one case over n earlier runs in one stretch, so a case alone in its suite and metric (a
// `bench run` command) needs 13 earlier runs (8.2; 12 give 7.6).
inline constexpr double kMinDriftDof = 8;
// Two scheduler ticks at the coarsest Linux rate (HZ 100, also USER_HZ): the smallest change of a
// median of rusage user or system time that is not the attribution of a tick (see above).
inline constexpr double kRusageCpuResolutionS = 0.02;
// A change equal to --min-effect within rounding counts as reaching it (0.95 x A read -4.99999...%
// against 5%, and a 5% slow-down at p 0.008 read unchanged; 2026-12-06 review).
inline constexpr double kMinEffectRelativeTolerance = 1e-9;

struct CaseComparison {
  std::string suite, name, metric;
  bool higher_is_better = true;
  int64_t count_a = 0, count_b = 0;
  double median_a = 0, median_b = 0;
  double mean_a = 0, mean_b = 0;  // tell the direction where the medians are equal
  double change_fraction = 0;  // median_b / median_a - 1 (+-inf from a median of 0)
  double spread_a = 0, spread_b = 0;  // within-run spread: IQR / |median| of each side
  double p_value = 1;          // adjusted when a correction is applied
  // The smallest p the test can give with these counts and ties: Mann-Whitney's p on the most
  // extreme splits of the pooled values (exact, without ties: 2 / C(na + nb, na); beyond 100
  // samples under the normal approximation), Welch 0 (its t is unbounded), 1 with fewer than two
  // repetitions a side (no test runs).
  double min_p_value = 1;
  std::string parameter_changes;  // "threads 2 -> 1; ..." (empty when like for like)
  std::string method;          // exact | normal | welch
  std::string direction;       // worse | better | same: from the medians, or the means where the medians are equal
  std::string verdict;         // regression | improvement | unchanged | within_run_noise | untestable | underpowered | wrong_results | parameters_differ
                               // | exit_status_differs | at_rss_floor (a peak RSS that measured Sextant's own, not the command's)
                               // | below_resolution (the medians differ by less than resolution)
  double resolution = 0;       // the metric's resolution in its unit (0: none known); see kRusageCpuResolutionS
  bool unchecked_failure = false;  // untestable / underpowered and worse by at least min_effect, or wrong_results
  // Underpowered in the family only: its test can reach alpha alone but not the family's share
  // (Holm: Tarone's rule left it out; Benjamini-Hochberg: its adjusted p stays above alpha even
  // at its smallest reachable p; p_value is then its own, unadjusted). It fails a gate only when worse by min_effect AND its own p is
  // below alpha (before 2026-12-02 any such case 5% worse failed, p 0.69 included).
  bool family_excluded = false;
  // Drift between runs: the standard deviation of log(median) between the history runs that hold
  // the case with its parameters (not A; within the stretches between level shifts), from the
  // successive differences of consecutive runs (von Neumann; a steady trend is no drift: 2026-12-07
  // review), pooled over the cases of its suite and metric; NaN with fewer than kMinHistoryRuns of
  // them. history_count: how many; run_to_run_dof: the effective degrees of freedom of the (pooled)
  // deviation, 2 M^2 / sum (3 m - 1) over its stretches of m differences, M = sum m (0: none).
  double run_to_run_sd_log = std::nan("");
  double run_to_run_dof = 0;
  int64_t history_count = 0;
  // The largest change |B / A - 1| (the larger side of the log-symmetric cut-off) that reads as the
  // host's drift (within_run_noise): exp(t x sqrt(2) x run_to_run_sd_log) - 1; NaN where the drift
  // is not trusted (fewer than kMinDriftDof degrees of freedom). Printed, so that a verdict's
  // threshold is not left to the reader's arithmetic (review, 2026-12-07).
  double drift_cutoff_fraction = std::nan("");
};

struct Comparison {
  std::vector<CaseComparison> cases;
  int regression_count = 0, improvement_count = 0, parameters_differ_count = 0;
  int below_resolution_count = 0;   // cases whose medians differ by less than their metric's resolution
  int unchecked_count = 0;          // untestable, underpowered or wrong_results
  int unchecked_failure_count = 0;  // of those, the ones that fail a gate (see above)
  double family_alpha = 0;          // Holm with Tarone's rule: alpha / K, the level a case had to be able to reach
  // The measurements of one run that the other lacks, as "suite/case [metric]": the key compare
  // matches on is (suite, case, metric), so a case whose other metrics B still has is named with the
  // metric it lacks (review, 2026-12-07: a run B without max_rss_bytes listed `command/sleep 0.02`
  // as missing, though B had its wall_s and the other metrics).
  std::vector<std::string> only_in_a, only_in_b;
  bool same_host = true;
  // Software versions that differ between the runs ("blas OpenBLAS 0.3.21 -> 0.3.26"): the cases
  // are judged as usual, the change named beside the verdicts.
  std::vector<std::string> software_changes;
  // The drift estimate's exclusions (compare.cpp, estimate_drift): history runs whose cases of one
  // suite and metric ran as a whole far from the other runs' (their id, shift as a fraction and
  // the cases' suite and metric; a run can be named once per suite and metric), and cases whose history
  // varied far beyond their suite's, left out of its pooled deviation.
  std::vector<int64_t> history_runs_left_out;
  std::vector<double> history_runs_left_out_shift_fraction;
  std::vector<std::string> history_runs_left_out_cases;  // "SUITE METRIC" of the cases it was left out of
  int64_t drift_cases_left_out = 0;
  // Level shifts in the history (2026-12-06 review): where the cases of one suite and metric moved
  // together between two consecutive runs by more than max(5 robust deviations of such moves,
  // min_effect_fraction), a change of the build and no drift. The id of the first run at the new
  // level, the move as a fraction, "SUITE METRIC". The drift is taken within the stretches between.
  std::vector<int64_t> drift_level_shift_runs;
  std::vector<double> drift_level_shift_fraction;
  std::vector<std::string> drift_level_shift_cases;
};

const std::vector<std::string>& compare_test_names();
const std::vector<std::string>& compare_correction_names();
Comparison compare_runs(const RunRecord& a, const RunRecord& b, const CompareOptions& opt);

}  // namespace sextant::bench
