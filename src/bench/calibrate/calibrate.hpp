#pragma once
// Calibration: from a benchmark run, fit the host's efficiency model and write it as a catalog
// accelerator entry (data/catalog/accelerators/*.yaml format, parse_accelerator), optionally
// with a network entry from the communication suite.
//
// GEMM: per dtype, the efficiency e = achieved / peak of every shape (achieved: the best
// repetition, since interference from other work only ever slows a repetition) is fitted to the
// catalog's model, the one `estimate` evaluates (catalog.hpp gemm_shape_factor):
//   e = gemm_peak_fraction x gemm_shape_factor(m, n, k, {h_m, h_n, h_k})
// by least squares on log e, each shape weighted by its measured time and the fraction held so
// that no shape of at least the mean time is predicted more than kMaxGemmOverpredictionFraction
// fast (GemmFitTerms; 2026-12-07 review), yet at most kMaxGemmCapDragFraction below the weighted
// fit, a long shape far below the others left out as an outlier (find_gemm_outliers; both from a
// second review that day), twice: with one symmetric half-dimension (h_m = h_n =
// h_k = gemm_half_dim, fit_catalog_gemm_model) and with one per role (fit_catalog_gemm_model_roles).
// The entry always carries gemm_half_dim; it carries gemm_half_dim_m/_n/_k too when the per-role
// fit has the lower AICc (corrected Akaike criterion: the two extra parameters must buy a
// material drop in the residual, e.g. about 45% of the sum of squares over 13 shapes). The entry's
// model is what `estimate` evaluates; predictions and hold-out errors are that model's.
// Shapes outside the
// fitted range (largest dimension above max_fit_dim, or skew max/min above max_fit_skew) are
// held out and predicted, which measures how far the model extrapolates.
// Operand traffic (CPU runs that include the cache_bandwidth suite): the sweep's best repetition
// per working set is written as bandwidth_by_working_set, and the largest operand footprint of the
// fitted shapes as efficiency.gemm_fitted_footprint_mib; estimate then adds
// gemm_operand_traffic_s to the compute time of larger GEMMs, and every prediction here includes it.
// GPU runs (suite gpu) fit the whole time model estimate evaluates for a GEMM op, not only the
// shape factor: time = max(2mnk / (peak x e), footprint / bandwidth) + kernel_overhead_s, with
// the achievable bandwidth twice the best device-to-device copy rate and the overhead searched
// in [0, shortest measured GEMM time] with every shape weighted alike (per dtype; the entry carries
// the primary dtype's, written as kernel_overhead_us). Without these terms small GEMMs (launch-bound) and skinny ones
// (memory-bound) are forced onto the shape factor and spoil the whole fit.
// Memory: the best multi-threaded STREAM median (triad/copy/add/scale) is the achievable
// bandwidth; with a published peak given, memory_bandwidth_fraction = achievable / peak.
// Network: ping-pong one-way time t(s) = latency + s / bandwidth fitted by least squares over
// sizes (sizes spanning less than kMinSizeSpreadForLatency: their mean rate, the latency written
// as not measured); achievable_fraction = largest-size all_reduce busbw / that bandwidth, at most 1.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/db/results_db.hpp"
#include "catalog/catalog.hpp"
#include "core/result.hpp"

namespace sextant::bench {

struct CalibrateOptions {
  std::string id = "host-calibrated";   // catalog id of the new entry
  std::string name;                     // display name (default: CPU model + " (calibrated)")
  std::string suite;                    // GEMM suite: gemm_cpu or gpu (default: whichever the run has)
  double max_fit_dim = 0;               // 0: no size hold-out
  double max_fit_skew = 0;              // 0: no skew hold-out
  double memory_peak_bytes_per_s = 0;   // published peak memory bandwidth (0: unknown)
  std::string memory_peak_source;       // its citation
  std::string memory_peak_option;       // the option that gave it, for errors (default --memory-peak-gb-per-s)
  double device_memory_bytes = 0;       // GPU runs: the device's memory (from --peak-from's entry), written as memory_gib
  std::string network_id;               // id of the network entry (default: <id>-mpi)
  std::string network_kind = "scale_out";
  // Peak FLOP/s per dtype for measurements that carry none (the CUDA backend does not know its
  // GPU's peak): taken from a catalog accelerator (`calibrate --peak-from ID`), with its source.
  std::map<std::string, double> peak_flops_by_dtype;
  std::string peak_source;
  // Peaks given on the command line (`calibrate --peak-tflops DTYPE=X`): they replace the run's own
  // (a CPU's peak derived from the clock of the moment is below its turbo clock's, and a fit above
  // it could not be calibrated at all before 2026-12-03).
  std::map<std::string, double> peak_override_by_dtype;
  // The --peak-from catalog entry (GPU runs): what the run does not measure is carried from it as
  // the trace calibration carries its --device entry (base_*_lines below). Before 2026-12-05 the
  // entry kept only the measured dtypes' peaks and the memory size, and lost the fp8/fp64/int8
  // peaks, TDP, year, SM count, sustained and fp8 block-scale fractions.
  std::optional<Accelerator> peak_from_entry;
  // The catalog's accelerator ids, those like the run's GPU first (accelerator_ids_like): the
  // choices a refused --peak-from lists (2026-12-07 review: it named none). Empty: not listed.
  std::vector<std::string> accelerator_choices;
};

// The lowest GEMM peak fraction a fit may return (the lower end of the GPU fit's search on log f):
// a fraction at it is a peak some thousand times what the GEMMs reach, refused (a --peak-tflops
// bf16=1e9 had been fitted to 0.001 with an rms error of 483% and written, 2026-12-05 review).
inline constexpr double kMinGemmPeakFraction = 1e-3;
// A peak given with --peak-tflops more than this many times the --peak-from entry's published
// peak of the dtype is refused as a unit slip (GFLOP/s given as TFLOP/s) or a typo.
inline constexpr double kMaxPeakOverReference = 10;

// A GEMM measured above the run's own derived CPU peak (clock x vector width x FMA pipes) ran at
// a turbo clock above the clock read, up to this many times that peak: a VM, acpi-cpufreq or the
// model name gives the base clock, and no current CPU's single-core turbo reaches twice its base
// (Xeon Platinum 8480+: 3.8 / 2.0 GHz = 1.9, the largest among current server parts; EPYC 9654:
// 3.7 / 2.4 = 1.54; EPYC 7763: 3.5 / 2.45 = 1.43), while a GEMM runs below its clock's peak (and
// AVX-512 GEMMs at a lower clock than the single-core turbo). Such a rate is a note and the fitted
// fraction is held at 1 at most; a rate beyond it is no clock but a bad measurement (a timer or
// FLOP count off) or a wrong derivation (a missed FMA pipe or half the vector width is 2x),
// refused (2026-12-06 review: a GEMM at 3.3x the peak had been fitted in under a note that said
// "held at 1", and pulled the fraction from 0.345 to 0.457).
inline constexpr double kMaxGemmRateOverDerivedPeak = 2.0;
// The lowest memory_bandwidth_fraction a published peak may give. STREAM triad on every core of a
// machine reaches 60-90% of its published peak, but a few threads, or a small VM, on a large
// server reach far less of the socket's peak: one thread 10-15 GB/s of a two-socket 920 GB/s
// (0.011), and this project's 2-vCPU VM 6.1 GB/s of 460 (0.013), half that on a loaded host. A
// unit slip (MB/s given as GB/s) divides a fraction by 1000: at most 0.0009. A fraction below the
// floor is refused naming the option (--memory-peak-gb-per-s 460000 had written
// memory_bandwidth_fraction 1.3e-5 without a word, 2026-12-06 review); a 10x typo above it is not
// told from a small slice of a large machine.
inline constexpr double kMinMemoryBandwidthFraction = 0.002;

// How much faster than measured the fitted model may predict a GEMM that carries at least its
// share of the fitted time (gemm_time_capped): a few per cent, the scatter of repeated
// measurements. The fit's fraction is held below the value that would predict one of them faster
// (2026-12-07 review: a least-squares fit that weighted every shape alike had written bf16 0.6985
// for a trace whose GEMMs all ran at 0.6064, predicting 8192^3 14.9% fast, and 0.7206 for the
// H200 bench run, above every bf16 efficiency measured, 16384x8192x1280 14.2% fast).
inline constexpr double kMaxGemmOverpredictionFraction = 0.03;

// How far the cap (kMaxGemmOverpredictionFraction) may lower the fraction below the time-weighted
// fit's: 15%. On a clean run the cap lowers it less (the H200 run, every dtype, and the H200
// training-step trace are fitted as under the cap alone), so its long shapes stay within 3%; where
// the model cannot follow the long shapes (HTA's sampled_rank-0: two GEMMs of one shape factor
// traced at 0.35 and 0.71 of the peak), the cap had held the fraction at a third of the weighted
// fit's, one slow shape setting every other (2026-12-07 review). The long shapes then left more
// than 3% fast are named in a note (gemm_far_notes).
inline constexpr double kMaxGemmCapDragFraction = 0.15;

// How far below the rate the other shapes give it a long GEMM (at least the mean time) may run
// before it is left out of the fit as an outlier: the time-weighted fit through the other shapes
// (under its own half-dimension, without the cap) predicts it more than this fraction faster than
// measured. An outlier is named in a note and reported (table gemm_fit, role outlier) with the
// entry's prediction; the others are fitted and capped without it. Outliers are taken one at a
// time, the worst first, while the shapes left hold more than half the dtype's time and at least
// the shapes the fit needs (find_gemm_outliers). A quarter is far beyond the scatter of repeated
// measurements (a few per cent) and beyond what the shape model misses on a clean run (the H200
// run's long shapes within 20% of the fit through the others; a shape below that can hold the
// others down under the cap by at most kMaxGemmCapDragFraction). Before
// 2026-12-07 (review) every long shape was capped: one GEMM at half the rate of seven others (29%
// of the time) held them all at its rate, predicted -48.5%, the fitted GEMM time 1.66x the traced.
inline constexpr double kGemmOutlierFraction = 0.25;
// ... and beyond this many times the scatter of the other shapes about that fit (their time-weighted
// rms log error): where the model misses the shapes by tens of per cent anyway (HTA's traces of
// tiny and skewed GEMMs, rms errors of 60%), a shape 25% below the fit is not set apart from them.
inline constexpr double kGemmOutlierScatters = 3.0;

// The terms and the objective of a GEMM fit beyond the shape factor.
//  - Time terms (GPU runs, traces): estimate's compute_time is max(flops / (peak x e),
//    bytes / bandwidth) + overhead, so per point the memory time and the overhead are expressed in
//    units of its time at peak (flops / peak), and the model efficiency is
//    1 / (max(1 / (f x factor), memory_units) + overhead_s / peak_time_s). Inactive (no peak
//    times): the efficiency is f x factor, as for CPU entries.
//  - Weights: each point's residual of log efficiency counts in proportion to its measured time
//    (gemm_time_weights), so the shapes that take the time, what a step is made of, are fitted
//    first. Before 2026-12-07 (review) every shape counted alike, and a few microsecond-long GEMMs
//    moved the fraction that 8192^3 is predicted at. Empty: equal weights.
//  - Capped points: the fraction is held at most at the value that predicts none of them faster
//    than measured by more than kMaxGemmOverpredictionFraction (gemm_time_capped), but no more
//    than kMaxGemmCapDragFraction below the weighted fit's. Empty: none.
struct GemmFitTerms {
  std::vector<double> peak_time_s;   // flops / peak per point; empty: no time terms
  std::vector<double> memory_units;  // (footprint / bandwidth) / peak_time_s per point; 0 without a bandwidth
  double overhead_s = 0;
  // The fraction is held at 1 where the fit would exceed it, rather than the half-dimension being
  // rejected: a CPU dtype some of whose GEMMs ran above the run's derived peak (a turbo clock).
  bool clamp_fraction_at_1 = false;
  std::vector<double> weight;  // per point, mean 1
  std::vector<char> capped;    // per point
  bool active() const { return !peak_time_s.empty(); }
  double memory_units_of(size_t i) const { return i < memory_units.size() ? memory_units[i] : 0.0; }
  double efficiency(double f_times_factor, size_t i) const {
    if (!active()) return f_times_factor;
    return 1.0 / (std::max(1.0 / f_times_factor, memory_units_of(i)) + overhead_s / peak_time_s[i]);
  }
};
// The weights of points measured at these times: their shares of the total, scaled to a mean of 1.
std::vector<double> gemm_time_weights(const std::vector<double>& time_s);
// The points that carry at least their share of the total time (time >= the mean): the large
// shapes a fit may not predict faster than measured.
std::vector<char> gemm_time_capped(const std::vector<double>& time_s);

// A long GEMM left out of a fit as an outlier: its index among the points, and the error, predicted
// / measured - 1, the time-weighted fit through the shapes kept gives it (above kGemmOutlierFraction).
struct GemmOutlier {
  size_t index = 0;
  double error_fraction = 0;
};
// The outliers among these points (see kGemmOutlierFraction), in the order they were taken (the
// worst first). time_s: each point's measured time (its weight); terms: the time terms (peak
// times, memory units, overhead; weight and capped are ignored, set here from time_s); at least
// min_points are kept. Each round fits the kept points (symmetric half-dimension, time-weighted,
// uncapped), and each long point's reference is the fraction fitted without it under that
// half-dimension.
std::vector<GemmOutlier> find_gemm_outliers(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                                            const std::vector<double>& e, const std::vector<double>& time_s, const GemmFitTerms& terms,
                                            size_t min_points);

// Weighted sum of squared residuals of log e against the model under half-dimensions h, at the best
// fraction f (written to f_out) within the cap. For no time terms, or no overhead and no memory
// term, log f is closed-form (the weighted mean of log(e / factor)); otherwise searched on a grid
// refined by golden section. Infinity when the best f exceeds 1, unless reject_above_1 is false
// (the trace calibration's joint fit reports such fractions).
double gemm_fit_log_rss(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                        const std::vector<double>& e, const GemmHalfDims& h, const GemmFitTerms& terms, double* f_out,
                        bool reject_above_1 = true);

// Fit of the catalog GEMM model with one symmetric half-dimension: returns (gemm_peak_fraction,
// gemm_half_dim). Log grid of h refined by golden section.
std::pair<double, double> fit_catalog_gemm_model(const std::vector<double>& m, const std::vector<double>& n,
                                                 const std::vector<double>& k, const std::vector<double>& e);
std::pair<double, double> fit_catalog_gemm_model(const std::vector<double>& m, const std::vector<double>& n,
                                                 const std::vector<double>& k, const std::vector<double>& e, const GemmFitTerms& terms);
// The per-kernel overhead in [0, max_s] that gives the symmetric fit under `terms` the lowest
// residual: a grid of 24 refined by golden section, both ends tried.
double fit_gemm_overhead(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                         const std::vector<double>& e, const GemmFitTerms& terms, double max_s);

// Fit of the catalog GEMM model with one half-dimension per role: f = gemm_peak_fraction, the
// half-dimensions in [0.1, 1e5], log_rss the sum of squared residuals of log e.
struct RoleFit {
  double f = 0, h_m = 0, h_n = 0, h_k = 0;
  double log_rss = 0;
};
RoleFit fit_catalog_gemm_model_roles(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                                     const std::vector<double>& e);

// Corrected Akaike information criterion of a least-squares fit with `parameters` free parameters
// over `points` points from its residual sum of squares (lower is better; infinity when there are
// too few points for the parameter count).
double gemm_fit_aicc(double log_rss, size_t points, int parameters);

struct GemmPoint {
  std::string case_name;  // the measurement's name (bench runs), for messages
  std::string dtype;
  double m = 0, n = 0, k = 0;
  double achieved_flops_per_s = 0, peak_flops_per_s = 0;
  double efficiency_fraction = 0;
  // The written entry's model (what estimate evaluates): prediction and predicted / measured - 1.
  double predicted_efficiency_fraction = 0;
  double error_fraction = 0;
  // The two fits of this dtype (symmetric and per-role half-dimensions).
  double symmetric_predicted_efficiency_fraction = 0, symmetric_error_fraction = 0;
  double role_predicted_efficiency_fraction = 0, role_error_fraction = 0;
  // Operand footprint (A, B and C once) and the operand-traffic time the entry's model adds to
  // this shape's compute time (catalog.hpp gemm_operand_traffic_s; 0 without a cache_bandwidth
  // sweep in the run). Every prediction above includes it.
  double footprint_bytes = 0;
  double operand_traffic_s = 0;
  bool held_out = false;
  // Left out of the fit as an outlier (kGemmOutlierFraction, 2026-12-07 review), with the
  // efficiency the fit through the shapes kept gives it; still predicted by the written model.
  bool outlier = false;
  double outlier_reference_efficiency_fraction = 0;
  // Trace calibration: the FLOPs of one operator call (batch included), and the shape's kernel time
  // summed over its calls (its weight in the fit). predicted_efficiency_fraction and error_fraction
  // are then the fitted kernel model's (compute plus the fixed time per call,
  // Calibration::trace_kernel_fixed_time_s), these estimate's on the entry (compute plus the
  // entry's whole kernel_overhead_us, which holds the launch gap a kernel's duration does not).
  double flops_per_call = 0;
  double traced_time_s = 0;
  double estimate_efficiency_fraction = 0, estimate_error_fraction = 0;
};

struct GemmFit {
  std::string dtype;
  double peak_flops_per_s = 0;
  std::string peak_source;
  double gemm_peak_fraction = 0;  // the written model's (this dtype's f under the entry's half-dimensions)
  double gemm_half_dim = 0;       // the symmetric fit's half-dimension
  double symmetric_peak_fraction = 0;
  double half_dim_m = 0, half_dim_n = 0, half_dim_k = 0;  // the per-role fit
  double role_peak_fraction = 0;
  double symmetric_aicc = 0, role_aicc = 0;
  bool roles_written = false;  // the entry carries per-role half-dimensions (decided on the primary dtype)
  bool primary = false;        // this dtype's half-dimensions are the entry's
  // False for a dtype whose fraction under the entry's half-dimensions leaves (0, 1] (its shapes
  // scale differently: fp64 GEMMs of half-dimension 20 beside fp32 ones of 500): no fraction is
  // written for it (the catalog's default applies), and its points are predicted by its own fit.
  bool fraction_written = true;
  int64_t fitted_count = 0, held_out_count = 0, outlier_count = 0;
  double fit_rms_error_fraction = 0;  // the written model over fitted shapes
  double symmetric_rms_error_fraction = 0, role_rms_error_fraction = 0;  // the two fits over fitted shapes
  double held_out_max_error_fraction = 0;  // |predicted/measured - 1| of the written model over held-out shapes
  double held_out_rms_error_fraction = 0;
  double overhead_s = 0;  // GPU runs: this dtype's own fit of the per-kernel overhead (the entry's is Calibration::kernel_overhead_s)
  // Trace calibration: the dtype's own symmetric fit. gemm_half_dim (half_dim_m/_n/_k where the
  // base's per-role values are kept, roles_written) is then the entry's, the one gemm_peak_fraction
  // is fitted under.
  double own_peak_fraction = 0, own_half_dim = 0;
};

// The notes on a dtype's GEMMs whose rate the written model misses far: the outliers left out of the
// fit (p.outlier, each with the rate the other shapes give it), and the fitted shapes of at least
// the mean time predicted more than kGemmOutlierFraction from measured (the shape model cannot
// follow them). time_s per point (traced_time_s for a trace, the time per call for a bench run),
// `what`: "traced" or "measured". Empty strings are no notes.
std::vector<std::string> gemm_far_notes(const std::string& dtype, const std::vector<GemmPoint>& points, const std::vector<double>& time_s,
                                        const std::string& what);

struct NetworkFit {
  bool present = false;
  double latency_s = 0, bandwidth_bytes_per_s = 0;
  // False where the sizes do not span kMinSizeSpreadForLatency (one message size, or sizes too
  // close together): latency and bandwidth cannot be told apart, latency_s is 0 (not measured),
  // and bandwidth_bytes_per_s is the calls' mean effective rate, latency included.
  bool latency_separated = true;
  int64_t distinct_sizes = 0;  // sizes differing by more than 1e-6 relative
  double all_reduce_busbw_bytes_per_s = 0, achievable_fraction = 0;
  double all_reduce_to_pingpong_ratio = 0;  // before the cap of achievable_fraction at 1
  int64_t ranks = 0, points = 0;
  double fit_rms_error_fraction = 0;
};

// Trace calibration: the collectives of one operation and bus factor (the factor is set by the
// communicator's size, so one fit per size of communicator), with the process groups they ran in.
struct CollectiveFit {
  std::string operation;
  double bus_factor = 0;  // busbw / algbw (nccl-tests: 2(n-1)/n for an all-reduce of n ranks)
  std::vector<std::string> process_groups;
  NetworkFit fit;
};

struct Calibration {
  std::vector<GemmFit> gemm;
  std::vector<GemmPoint> points;
  // GPU runs: the fitted per-kernel overhead written as kernel_overhead_us (the primary dtype's);
  // negative when not fitted (CPU runs, whose entries keep estimate's default).
  double kernel_overhead_s = -1;
  double memory_bandwidth_bytes_per_s = 0;  // achievable (measured; GPU runs: 2 x the best device-to-device copy rate)
  std::string memory_case;
  // GEMM operand traffic (CPU runs with a cache_bandwidth sweep): the read bandwidth of one thread
  // per working set (the best repetition of each size) and the largest footprint among the fitted
  // GEMM shapes of every dtype; written as bandwidth_by_working_set and
  // efficiency.gemm_fitted_footprint_mib. Empty / 0 when the run has no sweep.
  // bandwidth_by_working_set is the non-increasing envelope of the measured table
  // (non_increasing_envelope: bandwidth cannot rise as the working set grows), which the fit and
  // the written model use; bandwidth_by_working_set_measured is the best repetition per size as
  // measured, written beside it in the entry (comments) and reported; bandwidth_points_lowered is
  // how many sizes the envelope lowered (review, 2026-12-07).
  std::vector<WorkingSetBandwidth> bandwidth_by_working_set;
  std::vector<WorkingSetBandwidth> bandwidth_by_working_set_measured;
  int64_t bandwidth_points_lowered = 0;
  int64_t bandwidth_repetitions = 0;
  double gemm_fitted_footprint_bytes = 0;
  NetworkFit network;
  // CPU runs: the threads the GEMMs and the best STREAM case ran on (0: not recorded). Below the
  // host's logical CPUs the entry describes that many, not the host (compute_units, name, notes).
  int64_t gemm_threads = 0, memory_threads = 0;
  double gemm_joint_half_dim = 0;  // trace calibration: the one half-dimension fitted over every dtype
  // Trace calibration: the fixed time per GEMM call inside the traced kernels, fitted in [0, the
  // entry's kernel_overhead_us] (from_trace.cpp); -1 where not fitted.
  double trace_kernel_fixed_time_s = -1;
  // Trace calibration: every collective fit; `network` is the one with the most calls, of this
  // operation and bus factor.
  std::vector<CollectiveFit> collective_fits;
  std::string collective_operation;
  double collective_bus_factor = 0;
  std::vector<std::string> notes;  // what a user must know about the entry
  std::string accelerator_yaml;  // a complete catalog file
  std::string network_yaml;      // empty when the run has no communication measurements
};

// The smallest ratio of the largest to the smallest message size over which a latency-bandwidth
// fit separates the two. Below it the calls cost about the same bytes, and the intercept of the
// line through them is set by their timing noise: three jittered 64 MB all-reduces had been fitted
// to a latency of 235 us and a bus bandwidth of 2^37 B/s, written without a word (2026-12-06
// review). Over a factor of 2 a 5% timing noise still leaves the latency of bandwidth-bound calls
// loose, but their line, what estimate reads, is held at both ends.
inline constexpr double kMinSizeSpreadForLatency = 2.0;

// Latency-bandwidth fit t = latency + x / bandwidth over (x_i, t_i), relative least squares
// (weights 1/t^2), refitted through the origin when the latency or the slope would be negative.
// Where the sizes span less than kMinSizeSpreadForLatency (one size among them) the two are not
// separated: latency_separated is false, latency_s 0 and bandwidth_bytes_per_s the mean effective
// rate, sum x / sum t (the caller says so, and writes the latency as not measured).
// Fills present, latency_s, bandwidth_bytes_per_s, latency_separated, distinct_sizes, points and
// fit_rms_error_fraction.
void fit_latency_bandwidth(const std::vector<double>& x, const std::vector<double>& t, NetworkFit& out);

// The non-increasing envelope of a read-bandwidth table ordered by increasing working set: each
// point's bandwidth becomes the smallest at its working set or any smaller one (a running minimum
// from the smallest working set), since a larger working set is served by the same or a slower
// memory level. A point read faster than a smaller working set is a repetition count too small for
// the noise of the host (the best of 5 read 45 GB/s at 1 MiB and 78 at 2 MiB), and the operand-
// traffic term (catalog.hpp gemm_operand_traffic_s) then gave a larger GEMM less time than a
// smaller one. Lowering, not raising: the written model never credits a working set with more
// bandwidth than a smaller one reached. Returns how many points were lowered (review, 2026-12-07).
int64_t non_increasing_envelope(std::vector<WorkingSetBandwidth>& table);

Calibration calibrate_from_run(const RunRecord& run, const CalibrateOptions& opt);

// What a calibration that refines a catalog entry (the base: a trace's --device, a GPU run's
// --peak-from) keeps of it: everything it does not measure, each value with the base's source, an
// estimate staying an estimate with the base's basis. One implementation for both paths (the
// bench path had dropped them while the trace path carried them, 2026-12-05 review). Each returns
// lines of the catalog file for their place in the entry; `written` holds what the caller writes
// itself (dtypes, or keys such as "memory_bandwidth_gb_per_s").
//  - one value, in the file's units (v), as a flow map {value, source} or {value, estimated};
std::string carried_value(const Sourced& from, double v, const std::string& source = "base");
//  - the dtypes' peak_tflops lines (6 spaces);
std::string base_peak_lines(const Accelerator& base, const std::set<std::string>& written);
//  - platform, year, memory_gib, memory_bandwidth_gb_per_s, cache_mib, compute_units, tdp_w,
//    idle_w, price_usd, fp8_block_scaling and power_caps (4 spaces);
std::string base_device_lines(const Accelerator& base, const std::set<std::string>& written);
//  - gemm_peak_fraction of the dtypes not fitted (8 spaces). The base's fractions are burst (MAMF)
//    rates scaled down by its sustained_compute_fraction; where the new entry's rates are sustained
//    (sustained_compute_fraction written as 1) each is written times the base's sustained fraction,
//    so that the dtype keeps the base's rate;
std::string base_fraction_lines(const Accelerator& base, const std::set<std::string>& fitted, bool rates_sustained);
//  - attention_fraction, comm_compute_interference, fp8_block_scaled_gemm_fraction,
//    memory_bandwidth_fraction and kernel_overhead_us (6 spaces);
std::string base_efficiency_lines(const Accelerator& base, const std::set<std::string>& written);
//  - the base's gemm_half_dim and per-role half-dimensions where known (6 spaces).
std::string base_half_dim_lines(const Accelerator& base);
// The dtype whose GEMMs an entry's one set of half-dimensions stands for: bf16 where the entry has a
// bf16 peak (the dtype training and inference run in, and what the catalog's half-dimensions were
// fitted on), else fp16, else fp32; "" where it has none of them.
std::string base_main_dtype(const Accelerator& base);

Result calibration_result(const Calibration& c, const RunRecord& run, const CalibrateOptions& opt);

}  // namespace sextant::bench

namespace sextant {
struct Accelerator;
}

namespace sextant::bench {

// Calibration from a profiler trace (`sextant calibrate --trace FILE --device ID`): the tables of
// `sextant analyze` (workload analysis: table `roofline`, operators with their Input Dims, GPU
// time of the kernels each launched and achieved FLOP/s; collectives analysis: table
// `collectives`, NCCL calls matched across ranks with size and duration) are turned into
//  - GEMM points: aten::mm, addmm, bmm, baddbmm, linear and matmul shapes (m, n, k from the Input
//    Dims, batch folded into the count), efficiency = achieved FLOP/s / the device's peak for the
//    dtype; fitted per dtype with fit_catalog_gemm_model (at least 3 distinct shapes);
//  - a network fit per collective operation and bus factor (set by the communicator's size):
//    duration = latency + size x factor / busbw by least squares over the matched calls, the
//    factor analyze's (the bus bandwidth of each call in its table times the call's duration)
//    (reported; the one of the most calls as scalars, every one in table collective_fits).
// The accelerator entry written is the base catalog entry (peaks, memory) with the fitted GEMM
// efficiency; the trace's rates are the sustained in-training rates, so
// sustained_compute_fraction is written as 1. estimate adds the entry's kernel_overhead_us (the
// base's, else estimate's default, written into the entry) to every op, GEMMs included: it stands
// for the launch and the gap between kernels as well as a kernel's own fixed time, and a traced
// kernel's duration holds only the last. So the model is fitted to each call's kernel time with a
// fixed time per call t0 in [0, that overhead] (Calibration::trace_kernel_fixed_time_s, fitted as
// the bench path fits its overhead), each shape weighted by its share of the traced GEMM time and
// the long ones capped (GemmFitTerms). Before 2026-12-07 (review) t0 was the whole overhead, and
// calls shorter than it plus their time at the peak were left out.
struct TraceCalibrateOptions {
  std::string id = "trace-calibrated";
  std::string name;        // default: base name + " (calibrated from trace)"
  std::string trace_ref;   // file names, for the sources
  int min_shapes = 3;      // distinct (m, n, k) per dtype
  // What the traced GEMM rates are: "sustained" (a training step's: sustained_compute_fraction 1)
  // or "burst" (a short benchmark's, before the power cap bites: the base's sustained fraction kept).
  std::string trace_rates = "sustained";
};

// The (m, n, k) of a GEMM-like aten operator from its Input Dims (JSON list of lists); false
// when the operator is not GEMM-like or the dims do not fit it.
bool gemm_shape_of(const std::string& op, const std::string& input_dims_json, double& m, double& n, double& k, double& batch);

Calibration calibrate_from_trace(const Result& analysis, const Accelerator& base, const TraceCalibrateOptions& opt);
Result trace_calibration_result(const Calibration& c, const Accelerator& base, const TraceCalibrateOptions& opt);

}  // namespace sextant::bench
