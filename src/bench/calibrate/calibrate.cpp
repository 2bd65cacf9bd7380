#include "bench/calibrate/calibrate.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.hpp"
#include "catalog/device_name.hpp"
#include "core/error.hpp"

namespace sextant::bench {

namespace {
std::string q(const std::string& s) { return nlohmann::json(s).dump(); }  // a JSON string is a YAML scalar
std::string num(double v) { return format_double(v); }

std::string sourced(double v, const std::string& source) { return fmt::format("{{value: {}, source: {}}}", num(v), q(source)); }
std::string estimated(double v, const std::string& basis) { return fmt::format("{{value: {}, estimated: {}}}", num(v), q(basis)); }

std::string vendor_of(const std::string& model) {
  std::string l = model;
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* v : {"amd", "intel", "nvidia", "apple", "ampere", "arm", "ibm"})
    if (l.find(v) != std::string::npos) return v;
  return "unknown";
}
}  // namespace

int64_t non_increasing_envelope(std::vector<WorkingSetBandwidth>& table) {
  int64_t lowered = 0;
  for (size_t i = 1; i < table.size(); ++i)
    if (table[i].bytes_per_s > table[i - 1].bytes_per_s) {
      table[i].bytes_per_s = table[i - 1].bytes_per_s;
      ++lowered;
    }
  return lowered;
}

// An estimate stays an estimate with the base's basis (before 2026-12-03 every carried value was
// written as `source: base`, and the base's estimated 500 W peak read as a cited one).
std::string carried_value(const Sourced& from, double v, const std::string& source) {
  if (!from.estimated.empty())
    return fmt::format("{{value: {}, estimated: {}}}", num(v), q(source + " (estimated there: " + from.estimated + ")"));
  return sourced(v, source);
}

std::string base_peak_lines(const Accelerator& base, const std::set<std::string>& written) {
  std::string y;
  for (const auto& [d, s] : base.peak_flops)
    if (s.known && !written.count(to_string(d))) y += "      " + to_string(d) + ": " + carried_value(s, s.value / 1e12) + "\n";
  return y;
}

std::string base_device_lines(const Accelerator& base, const std::set<std::string>& written) {
  std::string y;
  if (!base.platform.empty() && !written.count("platform")) y += "    platform: " + q(base.platform) + "\n";
  if (base.year > 0 && !written.count("year")) y += "    year: " + std::to_string(base.year) + "\n";
  // In the catalog's units: GiB, GB/s, MiB.
  for (const auto& [key, v, scale] : {std::tuple<const char*, const Sourced*, double>{"memory_gib", &base.memory_bytes, 1.0 / (1024.0 * 1024 * 1024)},
                                      {"memory_bandwidth_gb_per_s", &base.memory_bandwidth_bytes_per_s, 1e-9},
                                      {"cache_mib", &base.cache_bytes, 1.0 / (1024.0 * 1024)},
                                      {"compute_units", &base.compute_units, 1.0},
                                      {"tdp_w", &base.tdp_w, 1.0},
                                      {"idle_w", &base.idle_w, 1.0},
                                      {"price_usd", &base.price_usd, 1.0}})
    if (v->known && !written.count(key)) y += std::string("    ") + key + ": " + carried_value(*v, v->value * scale) + "\n";
  // Whether the part runs block-scaled FP8 is the base's fact, not the run's: an entry calibrated
  // from an L40S had let fp8_recipe blockwise run again (review of 2026-12-07).
  if (base.fp8_block_scaling.known && !written.count("fp8_block_scaling")) {
    const std::string v = base.fp8_block_scaling.value != 0 ? "true" : "false";
    y += "    fp8_block_scaling: " +
         (!base.fp8_block_scaling.estimated.empty()
              ? fmt::format("{{value: {}, estimated: {}}}", v, q("base (estimated there: " + base.fp8_block_scaling.estimated + ")"))
              : fmt::format("{{value: {}, source: {}}}", v, q("base"))) +
         "\n";
  }
  if (!base.power_caps.empty() && !written.count("power_caps")) {
    y += "    power_caps:\n";
    for (const auto& pc : base.power_caps) {
      y += "      - power_w: " + num(pc.power_w) + "\n";
      if (pc.clock_mhz.known) y += "        clock_mhz: " + carried_value(pc.clock_mhz, pc.clock_mhz.value) + "\n";
      if (pc.bf16_tflops.known) y += "        bf16_tflops: " + carried_value(pc.bf16_tflops, pc.bf16_tflops.value / 1e12) + "\n";
    }
  }
  return y;
}

std::string base_fraction_lines(const Accelerator& base, const std::set<std::string>& fitted, bool rates_sustained) {
  const double scale = rates_sustained && base.sustained_compute_fraction.known ? base.sustained_compute_fraction.value : 1.0;
  std::string y;
  for (const auto& [d, fr] : base.gemm_peak_fraction)
    if (fr.known && !fitted.count(to_string(d)))
      y += "        " + to_string(d) + ": " +
           carried_value(fr, fr.value * scale, scale != 1.0 ? "base, x the base's sustained_compute_fraction " + num(scale) : "base") + "\n";
  return y;
}

std::string base_efficiency_lines(const Accelerator& base, const std::set<std::string>& written) {
  struct Carried {
    const char* key;
    const Sourced* value;
    double scale;  // to the catalog's units (kernel overhead is written in us)
  };
  std::string y;
  for (const Carried& cr : {Carried{"memory_bandwidth_fraction", &base.memory_bandwidth_fraction, 1.0},
                            Carried{"attention_fraction", &base.attention_fraction, 1.0},
                            Carried{"kernel_overhead_us", &base.kernel_overhead_s, 1e6},
                            Carried{"comm_compute_interference", &base.comm_compute_interference, 1.0},
                            // The tensor cores' block-scale cost rides with the base's FP8 rate (it was
                            // dropped, and block-scaled FP8 ran at the per-tensor rate on a calibrated
                            // H200; review of 2026-12-05).
                            Carried{"fp8_block_scaled_gemm_fraction", &base.fp8_block_scaled_gemm_fraction, 1.0}})
    if (cr.value->known && !written.count(cr.key)) y += std::string("      ") + cr.key + ": " + carried_value(*cr.value, cr.value->value * cr.scale) + "\n";
  return y;
}

std::string base_half_dim_lines(const Accelerator& base) {
  std::string y;
  for (const auto& [key, v] : {std::pair<const char*, const Sourced*>{"gemm_half_dim", &base.gemm_half_dim},
                               {"gemm_half_dim_m", &base.gemm_half_dim_m},
                               {"gemm_half_dim_n", &base.gemm_half_dim_n},
                               {"gemm_half_dim_k", &base.gemm_half_dim_k}})
    if (v->known) y += std::string("      ") + key + ": " + carried_value(*v, v->value) + "\n";
  return y;
}

std::string base_main_dtype(const Accelerator& base) {
  for (DType d : {DType::BF16, DType::FP16, DType::FP32})
    if (base.has_peak(d)) return to_string(d);
  return "";
}

std::vector<double> gemm_time_weights(const std::vector<double>& time_s) {
  double total = 0;
  for (double t : time_s) total += t > 0 && std::isfinite(t) ? t : 0;
  std::vector<double> w(time_s.size(), 1.0);
  if (!(total > 0)) return w;
  const double mean = total / static_cast<double>(time_s.size());
  for (size_t i = 0; i < time_s.size(); ++i) w[i] = time_s[i] > 0 && std::isfinite(time_s[i]) ? time_s[i] / mean : 0.0;
  return w;
}

std::vector<char> gemm_time_capped(const std::vector<double>& time_s) {
  double total = 0;
  for (double t : time_s) total += t > 0 && std::isfinite(t) ? t : 0;
  const double mean = time_s.empty() ? 0 : total / static_cast<double>(time_s.size());
  std::vector<char> c(time_s.size(), 0);
  for (size_t i = 0; i < time_s.size(); ++i) c[i] = mean > 0 && time_s[i] >= mean * (1 - 1e-12);
  return c;
}

namespace {
using TimeTerms = GemmFitTerms;

double weight_of(const GemmFitTerms& t, size_t i) { return t.weight.empty() ? 1.0 : t.weight[i]; }

// The highest log f under which no capped point is predicted faster than measured by more than
// kMaxGemmOverpredictionFraction (+infinity without capped points). The model efficiency rises
// with f, so each capped point bounds f: f x factor <= (1 + tol) e without time terms, and with
// them 1 / (f x factor) >= 1 / ((1 + tol) e) - overhead / peak time, where that is above the
// point's memory units (else no f predicts it that fast, and it bounds nothing).
double capped_log_f(const std::vector<double>& e, const std::vector<double>& factor, const GemmFitTerms& t) {
  double bound = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < t.capped.size() && i < e.size(); ++i) {
    if (!t.capped[i]) continue;
    const double top = (1 + kMaxGemmOverpredictionFraction) * e[i];
    if (!t.active()) {
      bound = std::min(bound, std::log(top / factor[i]));
      continue;
    }
    const double inv = 1.0 / top - t.overhead_s / t.peak_time_s[i];
    if (!(inv > 0) || inv <= t.memory_units_of(i)) continue;
    bound = std::min(bound, -std::log(factor[i] * inv));
  }
  return bound;
}

// The fitted log f under the cap: the weighted fit's (free_log_f) where the cap is above it, else the
// cap, but at most kMaxGemmCapDragFraction below the weighted fit: the cap holds the long shapes'
// rate where the model can follow them, and no shape the model cannot follow holds every other down
// (2026-12-07 review: on HTA's sampled_rank-0, one tf32 shape at 0.156 of the peak bound the fraction
// at a third of the weighted fit's, 512x8192x8192 -74%; the shapes the cap then leaves more than
// 3% fast are named in a note, gemm_far_notes).
double held_log_f(double free_log_f, double cap_log_f) {
  // A cap below the floor of the fit is rates some thousand times below the peak (a peak given far
  // too high): the fraction goes to the floor, where the fit refuses it.
  if (cap_log_f < std::log(kMinGemmPeakFraction)) return std::min(free_log_f, cap_log_f);
  return std::min(free_log_f, std::max(cap_log_f, free_log_f - std::log1p(kMaxGemmCapDragFraction)));
}

// Weighted sum of squared residuals of log e against log(f x gemm_shape_factor(m, n, k, h)) with
// log f at its closed-form optimum (the weighted mean of log(e / factor)), held at the cap;
// infinity when that f exceeds 1 (an efficiency above the peak at the 8192^3 reference) and
// reject_above_1. With clamp_fraction_at_1, an optimum above 1 is held at 1 (the least-squares
// optimum under f <= 1, the residual convex in log f) instead.
double catalog_model_log_rss(const std::vector<double>& e, const std::vector<double>& factor, const GemmFitTerms& t, double* f_out,
                             bool reject_above_1) {
  double sl = 0, sw = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const double w = weight_of(t, i);
    sl += w * std::log(e[i] / factor[i]);
    sw += w;
  }
  double logf = sw > 0 ? sl / sw : 0;
  if (t.clamp_fraction_at_1 && logf > 0) logf = 0;
  logf = held_log_f(logf, capped_log_f(e, factor, t));  // the residual is convex in log f: the cap's optimum
  double ss = 0;
  for (size_t i = 0; i < e.size(); ++i) {
    const double r = logf + std::log(factor[i]) - std::log(e[i]);
    ss += weight_of(t, i) * r * r;
  }
  if (f_out) *f_out = std::exp(logf);
  return reject_above_1 && std::exp(logf) > 1.0 ? std::numeric_limits<double>::infinity() : ss;
}

// The model with time terms: log f searched on a grid in [kMinGemmPeakFraction, 1.25] (1 with
// clamp_fraction_at_1; 1000 where fractions above 1 are reported, not rejected; at most the cap,
// but not below the floor) refined by golden section (the closed form does not hold once the terms
// are there). Without an overhead or a memory term the model is f x factor, and the closed form is
// taken.
double terms_model_log_rss(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                           const std::vector<double>& e, const GemmHalfDims& h, const TimeTerms& t, double* f_out,
                           bool reject_above_1 = true) {
  std::vector<double> factor(e.size());
  for (size_t i = 0; i < e.size(); ++i) factor[i] = gemm_shape_factor(m[i], n[i], k[i], h);
  const bool plain = !t.active() || (t.overhead_s == 0 && std::all_of(t.memory_units.begin(), t.memory_units.end(),
                                                                         [](double u) { return u == 0; }));
  if (plain) return catalog_model_log_rss(e, factor, t, f_out, reject_above_1);
  auto rss = [&](double logf) {
    const double f = std::exp(logf);
    double ss = 0;
    for (size_t i = 0; i < e.size(); ++i) {
      const double r = std::log(t.efficiency(f * factor[i], i) / e[i]);
      ss += weight_of(t, i) * r * r;
    }
    return ss;
  };
  // The weighted fit's optimum is searched, then held under the cap (held_log_f: the residual is
  // unimodal in log f), never below the floor of the search (a fraction there is refused).
  const double lo = std::log(kMinGemmPeakFraction);
  const double hi = std::max(lo, t.clamp_fraction_at_1 ? 0.0 : reject_above_1 ? std::log(1.25) : std::log(1e3));
  constexpr int steps = 64;
  double best_l = hi, best = rss(hi);
  if (hi > lo) {
    for (int i = 0; i < steps; ++i) {
      const double l = lo + (hi - lo) * i / steps;
      const double v = rss(l);
      if (v < best) {
        best = v;
        best_l = l;
      }
    }
    const double step = (hi - lo) / steps;
    double a = std::max(lo, best_l - step), b = std::min(best_l + step, hi);
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 40; ++it) {
      const double x1 = b - g * (b - a), x2 = a + g * (b - a);
      if (rss(x1) < rss(x2)) b = x2;
      else a = x1;
    }
    const double mid = (a + b) / 2;
    if (rss(mid) < best) {
      best = rss(mid);
      best_l = mid;
    }
  }
  if (const double held = std::max(lo, held_log_f(best_l, capped_log_f(e, factor, t))); held < best_l) {
    best_l = held;
    best = rss(held);
  }
  if (f_out) *f_out = std::exp(best_l);
  return reject_above_1 && std::exp(best_l) > 1.0 ? std::numeric_limits<double>::infinity() : best;
}

void check_gemm_points(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                       const std::vector<double>& e) {
  if (e.empty() || m.size() != e.size() || n.size() != e.size() || k.size() != e.size())
    throw Error("GEMM efficiency fit needs at least one shape (and m, n, k for each)");
  for (size_t i = 0; i < e.size(); ++i)
    if (!(e[i] > 0) || !(m[i] > 0) || !(n[i] > 0) || !(k[i] > 0))
      throw Error("GEMM efficiency fit: shape " + format_double(m[i]) + " x " + format_double(n[i]) + " x " + format_double(k[i]) +
                  " has efficiency " + format_double(e[i]) +
                  ": the efficiencies and dimensions must be positive (a measured rate that is 0, negative or not a number)");
}

// Nelder-Mead minimisation of f over R^3 from x0 with initial step `step` per coordinate
// (coefficients 1, 2, 1/2, 1/2); stops when the simplex's values agree to 1e-15 relative or after
// max_iter iterations. Deterministic.
template <class F>
std::array<double, 3> nelder_mead3(F f, std::array<double, 3> x0, double step, int max_iter) {
  using P = std::array<double, 3>;
  std::array<P, 4> x;
  std::array<double, 4> v;
  x[0] = x0;
  for (int i = 0; i < 3; ++i) {
    x[i + 1] = x0;
    x[i + 1][i] += step;
  }
  for (int i = 0; i < 4; ++i) v[i] = f(x[i]);
  for (int it = 0; it < max_iter; ++it) {
    std::array<int, 4> o = {0, 1, 2, 3};
    std::sort(o.begin(), o.end(), [&](int a, int b) { return v[a] < v[b] || (v[a] == v[b] && a < b); });
    const int best = o[0], worst = o[3], second = o[2];
    if (std::isfinite(v[worst]) && std::fabs(v[worst] - v[best]) <= 1e-15 * (1e-30 + std::fabs(v[best]))) break;
    P c = {0, 0, 0};
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) c[i] += x[o[j]][i] / 3;
    auto along = [&](double t) {
      P p;
      for (int i = 0; i < 3; ++i) p[i] = c[i] + t * (x[worst][i] - c[i]);
      return p;
    };
    const P r = along(-1);
    const double vr = f(r);
    if (vr < v[best]) {
      const P ex = along(-2);
      const double ve = f(ex);
      if (ve < vr) {
        x[worst] = ex;
        v[worst] = ve;
      } else {
        x[worst] = r;
        v[worst] = vr;
      }
    } else if (vr < v[second]) {
      x[worst] = r;
      v[worst] = vr;
    } else {
      const P ct = vr < v[worst] ? along(-0.5) : along(0.5);
      const double vc = f(ct);
      if (vc < std::min(vr, v[worst])) {
        x[worst] = ct;
        v[worst] = vc;
      } else {  // shrink towards the best vertex
        for (int j = 0; j < 4; ++j) {
          if (j == best) continue;
          for (int i = 0; i < 3; ++i) x[j][i] = x[best][i] + 0.5 * (x[j][i] - x[best][i]);
          v[j] = f(x[j]);
        }
      }
    }
  }
  int b = 0;
  for (int i = 1; i < 4; ++i)
    if (v[i] < v[b]) b = i;
  return x[b];
}
}  // namespace

// Fit of the catalog's GEMM model (catalog.hpp gemm_shape_factor, the one `estimate` uses):
// e = f x gemm_shape_factor(m, n, k, h). For each h, log f is the weighted mean of log(e / factor)
// (least squares on log efficiency, GemmFitTerms' weights and cap), or searched with time terms; h
// is searched on a log grid refined by golden section.
// Candidates whose f would exceed 1 at the 8192^3 reference are rejected.
namespace {
std::pair<double, double> fit_symmetric(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                                        const std::vector<double>& e, const TimeTerms& terms) {
  check_gemm_points(m, n, k, e);
  auto eval = [&](double h, double* f_out) { return terms_model_log_rss(m, n, k, e, GemmHalfDims{h, h, h}, terms, f_out); };
  double best_h = 0, best = eval(0, nullptr);
  for (int i = 0; i <= 120; ++i) {
    const double h = std::pow(10.0, -1.0 + 5.5 * i / 120.0);  // 0.1 .. ~3e4
    const double v = eval(h, nullptr);
    if (v < best) {
      best = v;
      best_h = h;
    }
  }
  if (best_h > 0) {  // golden-section refinement in log h around the grid optimum
    double lo = std::log(best_h) - 0.11, hi = std::log(best_h) + 0.11;
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 40; ++it) {
      const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
      if (eval(std::exp(a), nullptr) < eval(std::exp(b), nullptr)) hi = b;
      else lo = a;
    }
    const double h = std::exp((lo + hi) / 2);
    if (eval(h, nullptr) < best) best_h = h;
  }
  double f = 0;
  eval(best_h, &f);
  return {f, best_h};
}
}  // namespace

std::pair<double, double> fit_catalog_gemm_model(const std::vector<double>& m, const std::vector<double>& n,
                                                 const std::vector<double>& k, const std::vector<double>& e) {
  return fit_symmetric(m, n, k, e, TimeTerms{});
}

std::pair<double, double> fit_catalog_gemm_model(const std::vector<double>& m, const std::vector<double>& n,
                                                 const std::vector<double>& k, const std::vector<double>& e, const GemmFitTerms& terms) {
  return fit_symmetric(m, n, k, e, terms);
}

double gemm_fit_log_rss(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                        const std::vector<double>& e, const GemmHalfDims& h, const GemmFitTerms& terms, double* f_out,
                        bool reject_above_1) {
  check_gemm_points(m, n, k, e);
  return terms_model_log_rss(m, n, k, e, h, terms, f_out, reject_above_1);
}

double fit_gemm_overhead(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                         const std::vector<double>& e, const GemmFitTerms& terms, double max_s) {
  if (!terms.active() || !(max_s > 0)) return 0;
  // Every shape counts alike here, and the fraction is not capped: the overhead is what the short,
  // launch-bound calls measure, and a weighting by time (the fraction's and half-dimension's
  // objective, 2026-12-07 review) all but ignores them (the H200 run's bf16 overhead fell from 8.0
  // to 6.7 us under it, and 256^3 read 38% fast).
  auto score = [&](double t0) {
    TimeTerms t = terms;
    t.weight.clear();
    t.capped.clear();
    t.overhead_s = t0;
    const auto [f, h] = fit_symmetric(m, n, k, e, t);
    return terms_model_log_rss(m, n, k, e, GemmHalfDims{h, h, h}, t, nullptr);
  };
  constexpr int steps = 24;
  double best_t0 = 0, best = score(0);
  for (int i = 1; i <= steps; ++i) {
    const double t0 = max_s * i / steps;
    const double v = score(t0);
    if (v < best) {
      best = v;
      best_t0 = t0;
    }
  }
  double a = std::max(0.0, best_t0 - max_s / steps), b = std::min(max_s, best_t0 + max_s / steps);
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 30; ++it) {
    const double x1 = b - g * (b - a), x2 = a + g * (b - a);
    if (score(x1) < score(x2)) b = x2;
    else a = x1;
  }
  if (score((a + b) / 2) < best) best_t0 = (a + b) / 2;
  return best_t0;
}

std::vector<GemmOutlier> find_gemm_outliers(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                                            const std::vector<double>& e, const std::vector<double>& time_s, const GemmFitTerms& terms,
                                            size_t min_points) {
  // A shape far below the others had been capped like every long one, and held them all at its
  // rate (2026-12-07 review: seven shapes at 600 TFLOP/s -48.5% under one at 300, 29% of the time;
  // a bench run's 16384x8192x1280 at 0.7x moved 8192x8192x1024 from -1.2% to -36%).
  check_gemm_points(m, n, k, e);
  std::vector<GemmOutlier> out;
  if (time_s.size() != e.size()) return out;
  double total_s = 0;
  for (double t : time_s) total_s += t > 0 && std::isfinite(t) ? t : 0;
  if (!(total_s > 0)) return out;
  std::vector<size_t> kept(e.size());
  for (size_t i = 0; i < e.size(); ++i) kept[i] = i;
  double out_s = 0;
  // The fit inputs of a subset of the points: time-weighted, uncapped.
  struct Subset {
    std::vector<double> m, n, k, e;
    GemmFitTerms terms;
  };
  auto subset = [&](const std::vector<size_t>& idx) {
    Subset s;
    std::vector<double> t;
    s.terms.overhead_s = terms.overhead_s;
    s.terms.clamp_fraction_at_1 = terms.clamp_fraction_at_1;
    for (size_t i : idx) {
      s.m.push_back(m[i]);
      s.n.push_back(n[i]);
      s.k.push_back(k[i]);
      s.e.push_back(e[i]);
      t.push_back(time_s[i]);
      if (terms.active()) {
        s.terms.peak_time_s.push_back(terms.peak_time_s[i]);
        s.terms.memory_units.push_back(terms.memory_units_of(i));
      }
    }
    s.terms.weight = gemm_time_weights(t);
    return s;
  };
  while (kept.size() > min_points) {
    const Subset all = subset(kept);
    const double h = fit_symmetric(all.m, all.n, all.k, all.e, all.terms).second;
    const GemmHalfDims hd{h, h, h};
    double kept_s = 0;
    for (size_t i : kept) kept_s += time_s[i];
    const double mean_s = kept_s / static_cast<double>(kept.size());
    GemmOutlier worst;
    bool found = false;
    for (size_t j = 0; j < kept.size(); ++j) {
      const size_t i = kept[j];
      if (!(time_s[i] >= mean_s * (1 - 1e-12))) continue;  // a long shape
      if (!((out_s + time_s[i]) * 2 < total_s)) continue;   // the shapes kept hold most of the time
      std::vector<size_t> others = kept;
      others.erase(others.begin() + static_cast<std::ptrdiff_t>(j));
      const Subset o = subset(others);
      double f = 0;
      const double rss = terms_model_log_rss(o.m, o.n, o.k, o.e, hd, o.terms, &f, false);
      const double err = terms.efficiency(f * gemm_shape_factor(m[i], n[i], k[i], hd), i) / e[i] - 1;
      // Far beyond the others' own scatter too (their time-weighted rms log error, the weights of
      // mean 1): where the model misses every shape by tens of per cent, no one is an outlier.
      const double scatter = std::sqrt(rss / static_cast<double>(o.e.size()));
      const double beyond = std::max(std::log1p(kGemmOutlierFraction), kGemmOutlierScatters * scatter);
      if (std::log1p(err) > beyond && (!found || err > worst.error_fraction)) {
        worst = GemmOutlier{i, err};
        found = true;
      }
    }
    if (!found) break;
    out.push_back(worst);
    out_s += time_s[worst.index];
    kept.erase(std::find(kept.begin(), kept.end(), worst.index));
  }
  return out;
}

std::vector<std::string> gemm_far_notes(const std::string& dtype, const std::vector<GemmPoint>& points, const std::vector<double>& time_s,
                                        const std::string& time_what) {
  std::vector<std::string> notes;
  double total_s = 0;
  size_t counted = 0;
  for (size_t i = 0; i < points.size() && i < time_s.size(); ++i)
    if (!points[i].held_out) {
      total_s += time_s[i];
      ++counted;
    }
  if (!(total_s > 0)) return notes;
  auto shape = [](const GemmPoint& p) { return fmt::format("{:g}x{:g}x{:g}", p.m, p.n, p.k); };
  auto pct = [](double x) { return fmt::format("{:+.1f}%", 100 * x); };
  // Longest first.
  std::vector<size_t> order;
  for (size_t i = 0; i < points.size() && i < time_s.size(); ++i)
    if (!points[i].held_out) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return time_s[a] > time_s[b]; });
  std::string outliers;
  size_t outlier_count = 0;
  for (size_t i : order) {
    const GemmPoint& p = points[i];
    if (!p.outlier) continue;
    ++outlier_count;
    outliers += fmt::format("{}{} at {:.3f} of the peak, where the fit through the other shapes gives {:.3f} ({:.0f}% of {}; the entry "
                            "predicts it {})",
                            outliers.empty() ? "" : "; ", shape(p), p.efficiency_fraction, p.outlier_reference_efficiency_fraction,
                            100 * time_s[i] / total_s, time_what, pct(p.error_fraction));
  }
  if (outlier_count)
    notes.push_back(fmt::format("{} {} GEMM shape{} ran far below the rate the other shapes give {}, and {} left out of the fit as {} "
                                "(more than {:.0f}% slower than the time-weighted fit through the others: a slow kernel choice, a "
                                "throttled stretch, or kernel time given to the wrong operator), so that {} not hold the other shapes "
                                "down: {} (table gemm_fit: role outlier)",
                                outlier_count == 1 ? "one" : std::to_string(outlier_count), dtype, outlier_count == 1 ? "" : "s",
                                outlier_count == 1 ? "it" : "them", outlier_count == 1 ? "is" : "are",
                                outlier_count == 1 ? "an outlier" : "outliers", 100 * kGemmOutlierFraction,
                                outlier_count == 1 ? "it does" : "they do", outliers));
  // The fitted long shapes the written model misses far: faster than the cap allows (where holding
  // them would lower the fraction more than kMaxGemmCapDragFraction below the weighted fit), or
  // more than kGemmOutlierFraction slower.
  const double mean_s = total_s / static_cast<double>(counted);
  std::string far;
  size_t far_count = 0, fast_count = 0;
  for (size_t i : order) {
    const GemmPoint& p = points[i];
    if (p.outlier || time_s[i] < mean_s * (1 - 1e-12)) continue;
    const bool fast = p.error_fraction > kMaxGemmOverpredictionFraction + 0.005;
    if (!fast && !(p.error_fraction < -kGemmOutlierFraction)) continue;
    fast_count += fast;
    if (++far_count <= 8) far += fmt::format("{}{} {}", far.empty() ? "" : ", ", shape(p), pct(p.error_fraction));
  }
  if (far_count > 8) far += fmt::format(" and {} more", far_count - 8);
  if (far_count)
    notes.push_back(fmt::format("the written model misses {} fitted {} GEMM shape{} of at least the mean time far (more than {:.0f}% fast or "
                                "{:.0f}% slow; the shape model cannot follow {}): {} (predicted / measured - 1, table gemm_fit){}",
                                far_count, dtype, far_count == 1 ? "" : "s", 100 * kMaxGemmOverpredictionFraction, 100 * kGemmOutlierFraction,
                                far_count == 1 ? "it" : "them", far,
                                fast_count ? fmt::format("; holding the {} fast one{} at {:.0f}% would lower the fraction more than {:.0f}% "
                                                         "below the time-weighted fit, and every other shape with it, so it is held no "
                                                         "further below",
                                                         fast_count, fast_count == 1 ? "" : "s", 100 * kMaxGemmOverpredictionFraction,
                                                         100 * kMaxGemmCapDragFraction)
                                           : std::string()));
  return notes;
}

// The per-role fit: log f closed-form for each (h_m, h_n, h_k); the half-dimensions searched in
// log space, h in [0.1, 1e5]: the symmetric fit and a 12^3 log grid (0.1 .. ~3e4) give the start,
// refined by Nelder-Mead, restarted once from its result.
namespace {
RoleFit fit_roles(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k, const std::vector<double>& e,
                  const TimeTerms& terms) {
  check_gemm_points(m, n, k, e);
  const double lo = std::log(0.1), hi = std::log(1e5);
  auto eval = [&](const std::array<double, 3>& l) {
    for (double x : l)
      if (!(x >= lo && x <= hi)) return std::numeric_limits<double>::infinity();
    return terms_model_log_rss(m, n, k, e, GemmHalfDims{std::exp(l[0]), std::exp(l[1]), std::exp(l[2])}, terms, nullptr);
  };
  const double h0 = std::max(fit_symmetric(m, n, k, e, terms).second, 0.1);
  std::array<double, 3> best = {std::log(h0), std::log(h0), std::log(h0)};
  double best_v = eval(best);
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 12; ++b)
      for (int c = 0; c < 12; ++c) {
        const double s = std::log(10.0) * 0.5;  // log10 steps of 0.5 from -1
        const std::array<double, 3> l = {std::log(0.1) + s * a, std::log(0.1) + s * b, std::log(0.1) + s * c};
        const double v = eval(l);
        if (v < best_v) {
          best_v = v;
          best = l;
        }
      }
  for (int restart = 0; restart < 2; ++restart) best = nelder_mead3(eval, best, restart == 0 ? 0.5 : 0.05, 4000);
  RoleFit r;
  r.h_m = std::exp(best[0]);
  r.h_n = std::exp(best[1]);
  r.h_k = std::exp(best[2]);
  r.log_rss = terms_model_log_rss(m, n, k, e, GemmHalfDims{r.h_m, r.h_n, r.h_k}, terms, &r.f);
  return r;
}
}  // namespace

RoleFit fit_catalog_gemm_model_roles(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                                     const std::vector<double>& e) {
  return fit_roles(m, n, k, e, TimeTerms{});
}

double gemm_fit_aicc(double log_rss, size_t points, int parameters) {
  const double nn = static_cast<double>(points), p = parameters;
  if (nn - p - 1 <= 0) return std::numeric_limits<double>::infinity();
  // A floor on the residual: fits with an rms log error below 1e-6 are exact to within the
  // precision of the fits themselves (a golden-section h is good to ~1e-9), none better than another.
  const double rss = std::max(log_rss, nn * 1e-12);
  return nn * std::log(rss / nn) + 2 * p + 2 * p * (p + 1) / (nn - p - 1);
}

void fit_latency_bandwidth(const std::vector<double>& x, const std::vector<double>& t, NetworkFit& out) {
  if (x.size() != t.size() || x.size() < 2) return;
  // One message size, or sizes within kMinSizeSpreadForLatency of each other: no line through
  // the calls separates latency from bandwidth (review of 2026-12-06: jittered 64 MB all-reduces
  // had been fitted to 235 us and 2^37 B/s). The mean effective rate, latency included, is what
  // they measured: written as the bandwidth, and the latency as not measured (0).
  const auto [lo_it, hi_it] = std::minmax_element(x.begin(), x.end());
  {
    std::vector<double> sorted = x;
    std::sort(sorted.begin(), sorted.end());
    out.distinct_sizes = 0;
    for (size_t i = 0; i < sorted.size(); ++i)
      if (i == 0 || sorted[i] > sorted[i - 1] * (1 + 1e-6)) ++out.distinct_sizes;
  }
  // Within rounding of the factor (a trace's sizes come back as bus bandwidth x duration: 2 MiB over
  // 1 MiB read 1.9999999999999996 and the latency was dropped; review of 2026-12-06).
  if (*hi_it < kMinSizeSpreadForLatency * *lo_it * (1 - 1e-9)) {
    double sum_x = 0, sum_t = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      sum_x += x[i];
      sum_t += t[i];
    }
    const double bw = sum_t > 0 ? sum_x / sum_t : 0;
    out.present = bw > 0 && std::isfinite(bw);
    out.latency_separated = false;
    out.latency_s = 0;
    out.bandwidth_bytes_per_s = out.present ? bw : 0;
    out.points = static_cast<int64_t>(x.size());
    double ss = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double r = out.present ? (x[i] / bw) / t[i] - 1 : 0;
      ss += r * r;
    }
    out.fit_rms_error_fraction = std::sqrt(ss / static_cast<double>(x.size()));
    return;
  }
  out.latency_separated = true;
  // t = alpha + x * inv_bw; least squares weighted by 1/t^2 (relative residuals).
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double w = 1 / (t[i] * t[i]);
    sw += w; sx += w * x[i]; sy += w * t[i]; sxx += w * x[i] * x[i]; sxy += w * x[i] * t[i];
  }
  const double det = sw * sxx - sx * sx;
  double inv_bw = det != 0 ? (sw * sxy - sx * sy) / det : 0;
  double alpha = (sy - inv_bw * sx) / sw;
  if (alpha < 0 || inv_bw <= 0) {  // refit through the origin
    alpha = 0;
    inv_bw = sxy / sxx;
  }
  out.present = inv_bw > 0;
  out.latency_s = alpha;
  out.bandwidth_bytes_per_s = inv_bw > 0 ? 1 / inv_bw : 0;
  out.points = static_cast<int64_t>(x.size());
  double ss = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = (alpha + x[i] * inv_bw) / t[i] - 1;
    ss += r * r;
  }
  out.fit_rms_error_fraction = std::sqrt(ss / static_cast<double>(x.size()));
}

Calibration calibrate_from_run(const RunRecord& run, const CalibrateOptions& opt) {
  Calibration c;
  // GEMM suite.
  std::string suite = opt.suite;
  if (suite.empty()) {
    for (const auto& m : run.measurements)
      if (m.metric == "flops_per_s" && (m.suite == "gemm_cpu" || m.suite == "gpu")) {
        suite = m.suite;
        break;
      }
  }
  if (suite.empty())
    throw Error(SourceLocation{"", 0, 0, "RUN"}, fmt::format("run {} has no GEMM measurements to calibrate from", run.id),
                "calibrate fits the accelerator entry from one run, and writes the network entry (--network-out) beside it "
                "from the same run: run `sextant bench --suite gemm_cpu --suite comm_mpi` (GPU: --suite gpu)");
  {
    // A --suite the run never measured is its own error (it read as a missing --peak-from).
    int64_t in_suite = 0;
    std::vector<std::string> present;
    for (const auto& m : run.measurements) {
      if (m.metric != "flops_per_s") continue;
      in_suite += m.suite == suite;
      if (std::find(present.begin(), present.end(), m.suite) == present.end()) present.push_back(m.suite);
    }
    if (in_suite == 0)
      throw Error(SourceLocation{"", 0, 0, "--suite"}, fmt::format("run {} has no '{}' GEMM measurements", run.id, suite),
                  present.empty() ? std::string("run `sextant bench --suite gemm_cpu` (or gpu on a GPU host) first")
                                  : valid_choices_hint(suite, present));
  }
  // A rate of 0, below 0 or not a number is no measurement (a damaged or edited database): refused
  // naming the case, for every rate the entries are fitted from. Bandwidth cases had been dropped
  // without a word: a working set missing from bandwidth_by_working_set, or no memory bandwidth
  // written at all with a note blaming the host's load (review of 2026-12-05).
  for (const auto& m : run.measurements) {
    if (m.metric != "bytes_per_s" && m.metric != "flops_per_s") continue;
    for (double v : m.samples)
      if (!(v > 0) || !std::isfinite(v))
        throw Error(SourceLocation{"", 0, 0, "RUN"},
                    fmt::format("run {}: case {}/{} holds a {} sample of {}: a rate must be positive and finite", run.id, m.suite, m.name,
                                m.metric, format_double(v)),
                    "the run's stored measurements are damaged or were edited; bench again and calibrate the new run");
  }
  // A case's parameters as the fit reads them: a number where one is read, and for a GEMM a dtype
  // sextant knows and positive dimensions. A damaged or edited row is refused naming the run and the
  // case (the command adds the database). Before 2026-12-07 (review) m = 'abc' named neither, m = 0
  // was blamed on "a measured rate that is 0, negative or not a number", and dtype 'bf17' was a note
  // suggesting --peak-tflops bf17=X, which the option refuses as an unknown dtype.
  auto damaged = [&](const Measurement& m, const std::string& what) {
    return Error(SourceLocation{"", 0, 0, "RUN"}, fmt::format("run {}: case {}/{} ({}) {}", run.id, m.suite, m.name, m.metric, what),
                 "the run's stored measurements are damaged or were edited; bench again and calibrate the new run");
  };
  auto param_number = [&](const Measurement& m, const std::string& key) {
    if (!m.has_param(key)) throw damaged(m, fmt::format("has no parameter {}", key));
    try {
      return m.param_f64(key);
    } catch (const Error&) {
      throw damaged(m, fmt::format("holds parameter {} = '{}', which is not a number", key, m.param(key)));
    }
  };
  for (const auto& m : run.measurements) {
    if (m.suite != suite || m.metric != "flops_per_s") continue;
    if (!m.has_param("dtype")) throw damaged(m, "has no dtype parameter");
    try {
      parse_dtype(m.param("dtype"), {});
    } catch (const Error&) {
      std::string known;
      for (const auto& d : dtype_names()) known += (known.empty() ? "" : ", ") + d;
      throw damaged(m, fmt::format("holds dtype '{}', which is no number format sextant knows ({})", m.param("dtype"), known));
    }
    for (const char* key : {"m", "n", "k"}) {
      const double v = param_number(m, key);
      if (!(v > 0) || !std::isfinite(v))
        throw damaged(m, fmt::format("holds GEMM dimension {} = {}: a GEMM's dimensions are positive", key, format_double(v)));
    }
    if (m.has_param("peak_flops_per_s")) param_number(m, "peak_flops_per_s");
  }
  // --peak-from is for a GPU run, whose suite cannot read the device's peaks: a CPU run measures
  // its host's, and the GPU's memory bandwidth had been written into the CPU entry (3,350 GB/s,
  // memory_bandwidth_fraction 0.02) with its FLOP peaks silently unused (2026-12-04 review).
  if (suite == "gemm_cpu" && (!opt.peak_flops_by_dtype.empty() || opt.memory_peak_option == "--peak-from")) {
    const bool has_gpu = std::any_of(run.measurements.begin(), run.measurements.end(),
                                     [](const Measurement& m) { return m.suite == "gpu" && m.metric == "flops_per_s"; });
    throw Error(SourceLocation{"", 0, 0, "--peak-from"},
                fmt::format("run {}'s GEMMs fitted here are the CPU's (gemm_cpu): they carry the host's own peaks, and a catalog device's do not apply", run.id),
                has_gpu ? "the run also measured the GPU: add --suite gpu to calibrate the GPU from it with --peak-from"
                        : "leave --peak-from out; to correct a CPU peak give --peak-tflops DTYPE=X, and the memory peak with --memory-peak-gb-per-s");
  }
  // The --peak-from entry must be the GPU the run measured: the entry is written under the run's
  // device name with that entry's vendor, memory, peaks and carried fractions, and its fractions
  // are of those peaks. Before 2026-12-06 (review) an H200 run with --peak-from mi300x was written
  // as "NVIDIA H200 (calibrated)", vendor amd, 192 GiB, with MI300X peaks, exit 0.
  if (suite == "gpu" && opt.peak_from_entry) {
    std::string device;
    for (const auto& m : run.measurements)
      if (m.suite == "gpu" && m.has_param("device")) {
        device = m.param("device");
        break;
      }
    const Accelerator& e = *opt.peak_from_entry;
    if (!device.empty() && !device_name_fits(e, device))
      throw Error(SourceLocation{"", 0, 0, "--peak-from"},
                  fmt::format("run {} measured '{}', and --peak-from {} is another GPU ({}): the entry would carry its vendor, memory and "
                              "peaks under the run's name",
                              run.id, device, e.id, e.name),
                  "give --peak-from the catalog accelerator of '" + device + "' (" +
                      (opt.accelerator_choices.empty() ? std::string("`sextant catalog list`") : valid_choices_hint(device, opt.accelerator_choices)) +
                      "); for a GPU the catalog does not have, leave --peak-from out and give its peaks with --peak-tflops DTYPE=X and "
                      "--memory-peak-gb-per-s");
  }
  std::map<std::string, std::vector<GemmPoint>> by_dtype;
  std::map<std::string, std::string> peak_source;
  // Per dtype: its peak was derived by the run (the clock read and vector width of its host), not
  // given (--peak-tflops, --peak-from): the entry then names the run with it.
  std::map<std::string, bool> peak_from_run;
  std::vector<double> gemm_spreads;
  double worst_spread = 0;
  std::string worst_case;
  std::vector<std::string> dtypes;
  // Measured dtypes without a peak to fit against, and their cases: named in a note (they had been
  // left out without a word; 2026-12-07 review).
  std::map<std::string, int64_t> no_peak_cases;
  for (const auto& m : run.measurements) {
    if (m.suite != suite || m.metric != "flops_per_s") continue;
    GemmPoint p;
    p.case_name = m.name;
    p.dtype = m.param("dtype");
    const auto given = opt.peak_flops_by_dtype.find(p.dtype);
    const auto forced = opt.peak_override_by_dtype.find(p.dtype);
    std::string source = m.has_param("peak_source") ? m.param("peak_source") : opt.peak_source;
    if (forced != opt.peak_override_by_dtype.end()) {
      p.peak_flops_per_s = forced->second;
      source = "given on the command line (--peak-tflops " + p.dtype + ")";
    } else if (m.has_param("peak_flops_per_s")) {
      p.peak_flops_per_s = param_number(m, "peak_flops_per_s");
    } else if (given != opt.peak_flops_by_dtype.end()) {
      p.peak_flops_per_s = given->second;
    } else {
      ++no_peak_cases[p.dtype];
      continue;
    }
    p.m = param_number(m, "m");
    p.n = param_number(m, "n");
    p.k = param_number(m, "k");
    if (!(p.peak_flops_per_s > 0)) {
      ++no_peak_cases[p.dtype];
      continue;
    }
    if (m.has_param("threads")) c.gemm_threads = std::max(c.gemm_threads, static_cast<int64_t>(param_number(m, "threads")));
    // Achievable rate. CPU: the best repetition (interference from other work only slows a run
    // down). GPU: the median, since a GPU timed by events on its own stream is not interfered
    // with, but it throttles its clock under its power cap within a case (the H200 of docs/bench.md
    // ran its first repetition of a large bf16 GEMM up to 8% faster than the rest, at 1980 MHz
    // before falling to 1290-1600 MHz at 700 W): the median is the sustained rate.
    p.achieved_flops_per_s = suite == "gpu" ? m.summary().median : m.summary().max;
    p.efficiency_fraction = p.achieved_flops_per_s / p.peak_flops_per_s;
    const double hi = std::max({p.m, p.n, p.k}), lo = std::min({p.m, p.n, p.k});
    p.held_out = (opt.max_fit_dim > 0 && hi > opt.max_fit_dim) || (opt.max_fit_skew > 0 && hi / lo > opt.max_fit_skew);
    if (!by_dtype.count(p.dtype)) dtypes.push_back(p.dtype);
    peak_source[p.dtype] = source;
    peak_from_run[p.dtype] = forced == opt.peak_override_by_dtype.end() && m.has_param("peak_flops_per_s");
    by_dtype[p.dtype].push_back(p);
    if (m.samples.size() >= 2) {
      const double sp = m.summary().spread_fraction;
      gemm_spreads.push_back(sp);
      if (sp > worst_spread) worst_spread = sp, worst_case = m.name;
    }
  }
  // A run whose repetitions scatter was shared with other work (a compile beside a bench read
  // fp32 gemm_peak_fraction 0.35 where a quiet run read 0.79, with spreads up to 50% and no word;
  // 2026-12-04 review): the entry is still written, with a note.
  if (!gemm_spreads.empty()) {
    std::vector<double> sorted = gemm_spreads;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted[sorted.size() / 2];
    if (median > 0.10 || worst_spread > 0.25)
      c.notes.push_back(fmt::format("run {} is noisy: its GEMM repetitions spread {:.0f}% (interquartile range over median) in the median "
                                    "case and {:.0f}% in the worst ({}): other work shared the host, and the rates it measured, so the "
                                    "fractions written, may be low; run `sextant bench` again on an idle host",
                                    run.id, 100 * median, 100 * worst_spread, worst_case));
  }
  // A peak given for a dtype the run did not measure would be dropped without a word.
  for (const auto& [dt, v] : opt.peak_override_by_dtype)
    if (!by_dtype.count(dt)) {
      std::string measured;
      for (const auto& d : dtypes) measured += (measured.empty() ? "" : ", ") + d;
      throw Error(SourceLocation{"", 0, 0, "--peak-tflops"}, "the run has no " + dt + " GEMMs to fit against that peak",
                  measured.empty() ? std::string("measure them first (sextant bench --gemm-dtype ") + dt + ")" : "the run measured " + measured);
    }
  if (dtypes.empty())
    throw Error(SourceLocation{"", 0, 0, "RUN"}, "the run's GEMM measurements carry no peak FLOP/s to fit efficiencies against",
                "pass --peak-from ACCELERATOR_ID to take the peaks from the catalog");
  std::erase_if(no_peak_cases, [&](const auto& kv) { return by_dtype.count(kv.first) > 0; });  // some of its cases have a peak: fitted
  if (!no_peak_cases.empty()) {
    std::string list, first;
    for (const auto& [dt, cases] : no_peak_cases) {
      list += fmt::format("{}{} ({} case{})", list.empty() ? "" : ", ", dt, cases, cases == 1 ? "" : "s");
      if (first.empty()) first = dt;
    }
    std::string fitted;
    for (const auto& d : dtypes) fitted += (fitted.empty() ? "" : ", ") + d;
    c.notes.push_back(fmt::format("the run also measured {} GEMMs: not fitted, as there is no peak to fit them against (the run stored "
                                  "none{}); only {} {} fitted. Give --peak-tflops DTYPE=X (e.g. --peak-tflops {}=X){} to fit them",
                                  list,
                                  opt.peak_from_entry ? ", and --peak-from " + opt.peak_from_entry->id + " has none for them" : std::string(),
                                  fitted, dtypes.size() == 1 ? "is" : "are", first,
                                  opt.peak_from_entry ? std::string() : ", or --peak-from the catalog accelerator the run measured"));
  }
  // A peak given far above the published one of the --peak-from entry is a unit slip or a typo,
  // not a clock: --peak-tflops bf16=989400 (GFLOP/s given as TFLOP/s) beside --peak-from
  // h200-sxm-141gb had been written with an rms error of 18% and no note (2026-12-05 review). The
  // run's own peak is no reference: it is the one --peak-tflops corrects (a CPU's, derived from the
  // clock of the moment); a peak some thousand times too high is refused by the fit below instead.
  for (const auto& [dt, v] : opt.peak_override_by_dtype) {
    const auto from = opt.peak_flops_by_dtype.find(dt);
    if (from == opt.peak_flops_by_dtype.end() || !(v > kMaxPeakOverReference * from->second)) continue;
    throw Error(SourceLocation{"", 0, 0, "--peak-tflops"},
                fmt::format("{}={:.6g} TFLOP/s is {:.4g} times the {} peak {:.6g} TFLOP/s ({}): more than {:g} times it", dt, v / 1e12,
                            v / from->second, dt, from->second / 1e12, opt.peak_source, kMaxPeakOverReference),
                "give the peak in TFLOP/s (10^12 FLOP/s), e.g. --peak-tflops " + dt + "=" + format_double(from->second / 1e12) +
                    ", or leave --peak-tflops out to fit against --peak-from's");
  }
  // A GEMM measured above the peak the fit divides by: the peak is wrong for this device or clock
  // (a --peak-tflops below the measured rate, a --peak-from of another part, a derived CPU peak
  // below a turbo clock). Checked on the measurements: the fit cannot report it, as it keeps its
  // fraction at 1 and bends the half-dimension to fit (--peak-tflops fp32=0.1 against 0.153 TFLOP/s
  // measured wrote fraction 1.0 and half-dimension 7.4, 2026-12-04 review).
  // Per dtype above its run's own derived peak (within kMaxGemmRateOverDerivedPeak): the fastest
  // such GEMM and how many there are, for the note written once the fit is known.
  struct AboveDerivedPeak {
    GemmPoint top;
    int64_t count = 0;
  };
  std::map<std::string, AboveDerivedPeak> above_derived_peak;
  for (const auto& dt : dtypes) {
    const auto& pts = by_dtype[dt];
    const auto top = std::max_element(pts.begin(), pts.end(),
                                      [](const GemmPoint& a, const GemmPoint& b) { return a.efficiency_fraction < b.efficiency_fraction; });
    if (top == pts.end() || !(top->efficiency_fraction > 1)) continue;
    const bool forced = opt.peak_override_by_dtype.count(dt) > 0;
    const bool from_catalog = !forced && peak_source[dt] == opt.peak_source && opt.peak_flops_by_dtype.count(dt) > 0;
    // The run's own peak, derived from the clock read (the base clock where a VM, acpi-cpufreq or
    // the model name gives it), is below a turbo clock on many hosts: up to
    // kMaxGemmRateOverDerivedPeak times it, a note and the fitted fraction held at 1 at most (the
    // fit's half-dimension is not bent to keep a fraction above 1 out), so that a calibration on
    // such a host still runs; beyond it, no turbo clock: the measurement is refused. A peak the
    // user gave is refused at any rate above it. Before 2026-12-06 the note said "held at 1" for
    // any rate: a GEMM at 3.3x the peak was fitted in (fraction 0.457 where the others fit 0.345),
    // and a run at 1.04x fitted 0.86 under that note (review).
    if (!forced && !from_catalog) {
      if (top->efficiency_fraction > kMaxGemmRateOverDerivedPeak) {
        throw Error(SourceLocation{"", 0, 0, "RUN"},
                    fmt::format("run {}: case {}/{} ran at {:.4g} TFLOP/s, {:.3f} times the run's derived {} peak {:.4g} TFLOP/s ({}): "
                                "more than {:g} times it, which no turbo clock above the clock read reaches",
                                run.id, suite, top->case_name, top->achieved_flops_per_s / 1e12, top->efficiency_fraction, dt, top->peak_flops_per_s / 1e12,
                                peak_source[dt], kMaxGemmRateOverDerivedPeak),
                    "a bad measurement (its timer or FLOP count) or a wrong peak derivation: bench again and calibrate the new "
                    "run, or give --peak-tflops " + dt + "=X, the CPU's peak at the clock it ran at");
      }
      AboveDerivedPeak& a = above_derived_peak[dt];
      a.top = *top;
      a.count = std::count_if(pts.begin(), pts.end(), [](const GemmPoint& p) { return p.efficiency_fraction > 1; });
      continue;
    }
    throw Error(SourceLocation{"", 0, 0, forced ? "--peak-tflops" : from_catalog ? "--peak-from" : "peak_flops_per_s"},
                fmt::format("the {} GEMM {:g}x{:g}x{:g} ran at {:.4g} TFLOP/s, {:.3f} of the peak {:.4g} TFLOP/s ({}): a measured rate "
                            "above the peak",
                            dt, top->m, top->n, top->k, top->achieved_flops_per_s / 1e12, top->efficiency_fraction, top->peak_flops_per_s / 1e12,
                            peak_source[dt]),
                forced         ? "give the peak of the clock the run ran at, or above"
                : from_catalog ? "give --peak-from the accelerator the run measured"
                               : "the run's peak, derived from the CPU's clock of the moment and its vector width, is below what it "
                                 "measured (a turbo clock): give --peak-tflops " + dt + "=X, the peak at the sustained clock");
  }
  // Operand traffic: the cache_bandwidth sweep (CPU runs) and the fitted shapes' largest footprint.
  for (const auto& dt : dtypes) {
    const double element_bytes = dtype_bytes(parse_dtype(dt, SourceLocation{"", 0, 0, "dtype"}));
    for (auto& p : by_dtype[dt]) p.footprint_bytes = gemm_footprint_bytes(p.m, p.n, p.k, element_bytes);
  }
  if (suite == "gemm_cpu") {
    std::map<double, double> best_by_ws;  // the best repetition per working set (interference only slows a pass down)
    for (const auto& m : run.measurements) {
      if (m.suite != "cache_bandwidth" || m.metric != "bytes_per_s" || !m.has_param("working_set_bytes") || m.samples.empty()) continue;
      double& b = best_by_ws[param_number(m, "working_set_bytes")];
      b = std::max(b, m.summary().max);
      c.bandwidth_repetitions = std::max<int64_t>(c.bandwidth_repetitions, static_cast<int64_t>(m.samples.size()));
    }
    for (const auto& [ws, bw] : best_by_ws)
      if (ws > 0 && bw > 0) c.bandwidth_by_working_set_measured.push_back(WorkingSetBandwidth{ws, bw});
    if (c.bandwidth_by_working_set_measured.size() < 2) c.bandwidth_by_working_set_measured.clear();
    // The model's table is the measured one's non-increasing envelope (review, 2026-12-07): the
    // best of a few repetitions per size is noisy, and a sweep that read 45 GB/s at 1 MiB but 78 at
    // 2 MiB (23.6 at 64 MiB, 27.1 at 128 MiB) gave a 1024x10240x1024 GEMM less operand-traffic
    // time (0.463 ms) than a 1024x5120x1024 one (0.497 ms). Both tables are kept: the measured
    // one is written beside the envelope (comments) and reported.
    c.bandwidth_by_working_set = c.bandwidth_by_working_set_measured;
    c.bandwidth_points_lowered = non_increasing_envelope(c.bandwidth_by_working_set);
    if (c.bandwidth_points_lowered > 0) {
      size_t top = 0;  // the point lowered the most (relative)
      for (size_t i = 0; i < c.bandwidth_by_working_set.size(); ++i)
        if (c.bandwidth_by_working_set_measured[i].bytes_per_s / c.bandwidth_by_working_set[i].bytes_per_s >
            c.bandwidth_by_working_set_measured[top].bytes_per_s / c.bandwidth_by_working_set[top].bytes_per_s)
          top = i;
      c.notes.push_back(fmt::format(
          "bandwidth_by_working_set: {} of {} working sets of the cache_bandwidth sweep read faster than a smaller one (the most, {} KiB: "
          "{:.4g} GB/s where a smaller one read {:.4g}; best of {} repetitions): a larger working set is served by the same or a "
          "slower memory level, so the entry's table is the sweep's non-increasing envelope, those points lowered (measured values: "
          "table bandwidth_by_working_set, measured_bytes_per_s, and comments in the entry); where it is noise, bench again with more --reps",
          c.bandwidth_points_lowered, c.bandwidth_by_working_set.size(), num(c.bandwidth_by_working_set[top].working_set_bytes / 1024),
          c.bandwidth_by_working_set_measured[top].bytes_per_s / 1e9, c.bandwidth_by_working_set[top].bytes_per_s / 1e9,
          c.bandwidth_repetitions));
    }
    if (!c.bandwidth_by_working_set.empty())
      for (const auto& dt : dtypes)
        for (const auto& p : by_dtype[dt])
          if (!p.held_out) c.gemm_fitted_footprint_bytes = std::max(c.gemm_fitted_footprint_bytes, p.footprint_bytes);
  }
  // GPU runs: the written entry's model has the memory roofline and a per-kernel overhead
  // (estimate's compute_time: max(flops / (peak x e), bytes / bandwidth) + kernel_overhead_s), so
  // both enter the fit. The achievable device-memory bandwidth is twice the device-to-device copy
  // rate of the largest copy measured (every byte copied is read and written; smaller copies can
  // stay in the GPU's L2 and overstate it).
  const bool gpu_terms = suite == "gpu";
  double gemm_bandwidth = 0;
  if (gpu_terms) {
    double largest = 0;
    for (const auto& m : run.measurements) {
      if (m.suite != "gpu" || m.metric != "bytes_per_s" || !m.has_param("copy") || m.param("copy") != "d2d" || m.samples.empty()) continue;
      if (param_number(m, "bytes") < largest) continue;
      largest = param_number(m, "bytes");
      c.memory_bandwidth_bytes_per_s = 2 * m.summary().median;
      c.memory_case = m.name + ": 2 x the median copy rate of the largest copy (each byte is read and written)";
    }
    gemm_bandwidth = c.memory_bandwidth_bytes_per_s;
  }
  auto peak_time_s = [](const GemmPoint& p) { return 2 * p.m * p.n * p.k / p.peak_flops_per_s; };
  auto memory_units = [&](const GemmPoint& p) { return gemm_bandwidth > 0 ? p.footprint_bytes / gemm_bandwidth / peak_time_s(p) : 0.0; };
  // The model's efficiency of point p at f x factor with kernel overhead overhead_s (GPU runs).
  auto gpu_efficiency = [&](const GemmPoint& p, double f_times_factor, double overhead_s) {
    return 1.0 / (std::max(1.0 / f_times_factor, memory_units(p)) + overhead_s / peak_time_s(p));
  };
  // The written model's time of a shape: compute at efficiency e plus the operand traffic
  // (estimate's compute_time: flops / (peak x e) + gemm_operand_traffic_s), as an efficiency.
  auto with_traffic = [&c](const GemmPoint& p, double e) {
    if (c.bandwidth_by_working_set.empty()) return e;
    const double flops = 2 * p.m * p.n * p.k;
    const double t = flops / (p.peak_flops_per_s * e) + p.operand_traffic_s;
    return flops / t / p.peak_flops_per_s;
  };
  // Per dtype: the symmetric and the per-role fit of the catalog model on the fitted shapes.
  struct DtypeFits {
    std::vector<double> m, n, k, e;
    std::vector<double> call_time_s;  // each fitted shape's measured time per call
    std::vector<size_t> point;        // each fitted shape's index in by_dtype[dt]
    size_t shapes = 0;                // the shapes measured and not held out, outliers included
    TimeTerms terms;  // GPU runs: roofline and overhead terms of the fitted points (terms.overhead_s: this dtype's fit)
    double sym_f = 0, sym_h = 0, sym_log_rss = 0;
    RoleFit roles;
  };
  std::map<std::string, DtypeFits> fits;
  for (const auto& dt : dtypes) {
    DtypeFits& d = fits[dt];
    d.terms.clamp_fraction_at_1 = above_derived_peak.count(dt) > 0;
    std::vector<double>& call_time_s = d.call_time_s;
    for (size_t pi = 0; pi < by_dtype[dt].size(); ++pi)
      if (const GemmPoint& p = by_dtype[dt][pi]; !p.held_out) {
        d.point.push_back(pi);
        d.m.push_back(p.m);
        d.n.push_back(p.n);
        d.k.push_back(p.k);
        d.e.push_back(p.efficiency_fraction);
        call_time_s.push_back(2 * p.m * p.n * p.k / p.achieved_flops_per_s);
        if (gpu_terms) {
          d.terms.peak_time_s.push_back(peak_time_s(p));
          d.terms.memory_units.push_back(memory_units(p));
        }
      }
    // Each shape counts by its time per call, and the long ones may not be predicted more than a
    // few per cent fast (GemmFitTerms; 2026-12-07 review: the H200 run's bf16 fraction, 0.7206 with
    // every shape alike, was above every bf16 efficiency measured and predicted 8192^3 6.9% and
    // 16384x8192x1280 14.2% fast).
    d.terms.weight = gemm_time_weights(call_time_s);
    d.terms.capped = gemm_time_capped(call_time_s);
    // The option that held the shapes out is named (--max-fit-skew alone had been reported as
    // --max-fit-dim, 2026-12-04 review), and only an option that was given: a run of too few
    // shapes is the run's (2026-12-06 review: a run of one bf16 shape, calibrated without either
    // option, was told to "loosen --max-fit-dim / --max-fit-skew").
    constexpr size_t kMinFitShapes = 4;
    if (d.e.size() < kMinFitShapes) {
      const auto& all = by_dtype[dt];
      auto shape_list = [](const std::vector<GemmPoint>& pts) {
        std::string l;
        for (const auto& p : pts) l += fmt::format("{}{:g}x{:g}x{:g}", l.empty() ? "" : ", ", p.m, p.n, p.k);
        return l;
      };
      if (all.size() < kMinFitShapes)
        throw Error(SourceLocation{"", 0, 0, "RUN"},
                    fmt::format("run {} measured {} {} GEMM shape(s) in suite {} ({}): the model needs {} to fit", run.id, all.size(), dt,
                                suite, shape_list(all), kMinFitShapes),
                    fmt::format("the run was cut short or its GEMM grid reduced: bench the {} suite again, whose grid has more than {} "
                                "shapes per dtype, and calibrate the new run",
                                suite, kMinFitShapes));
      int64_t by_dim = 0, by_skew = 0;
      for (const auto& p : all) {
        const double hi = std::max({p.m, p.n, p.k}), lo = std::min({p.m, p.n, p.k});
        by_dim += opt.max_fit_dim > 0 && hi > opt.max_fit_dim;
        by_skew += opt.max_fit_skew > 0 && hi / lo > opt.max_fit_skew;
      }
      std::string given, loosen;
      if (opt.max_fit_dim > 0) {
        given += fmt::format("--max-fit-dim {} holds out {}", format_double(opt.max_fit_dim), by_dim);
        loosen += "--max-fit-dim";
      }
      if (opt.max_fit_skew > 0) {
        given += fmt::format("{}--max-fit-skew {} holds out {}", given.empty() ? "" : " and ", format_double(opt.max_fit_skew), by_skew);
        loosen += std::string(loosen.empty() ? "" : " or ") + "--max-fit-skew";
      }
      throw Error(SourceLocation{"", 0, 0, by_skew > by_dim ? "--max-fit-skew" : opt.max_fit_dim > 0 ? "--max-fit-dim" : "--max-fit-skew"},
                  fmt::format("{} of run {}'s {} {} GEMM shapes, leaving {} to fit ({} needed)", given, run.id, all.size(), dt, d.e.size(),
                              kMinFitShapes),
                  "loosen " + loosen + (opt.max_fit_dim > 0 && opt.max_fit_skew > 0 ? ", or leave them out" : ", or leave it out"));
    }
    if (gpu_terms) {
      // The per-kernel overhead: between 0 and the shortest measured GEMM time, on a grid refined
      // by golden section, each candidate scored by the symmetric fit it allows.
      double t_min = std::numeric_limits<double>::infinity();
      for (size_t i = 0; i < d.e.size(); ++i) t_min = std::min(t_min, d.terms.peak_time_s[i] / d.e[i]);
      d.terms.overhead_s = fit_gemm_overhead(d.m, d.n, d.k, d.e, d.terms, t_min);
    }
    // A long shape far below the rate the others give it is left out as an outlier, named in a note
    // (kGemmOutlierFraction; 2026-12-07 review: one capped shape had held every other at its rate).
    for (const GemmOutlier& o : find_gemm_outliers(d.m, d.n, d.k, d.e, call_time_s, d.terms, kMinFitShapes)) {
      GemmPoint& p = by_dtype[dt][d.point[o.index]];
      p.outlier = true;
      p.outlier_reference_efficiency_fraction = p.efficiency_fraction * (1 + o.error_fraction);
    }
    {
      DtypeFits kept;
      kept.shapes = d.e.size();
      kept.terms = d.terms;
      kept.terms.peak_time_s.clear();
      kept.terms.memory_units.clear();
      for (size_t i = 0; i < d.e.size(); ++i) {
        if (by_dtype[dt][d.point[i]].outlier) continue;
        kept.m.push_back(d.m[i]);
        kept.n.push_back(d.n[i]);
        kept.k.push_back(d.k[i]);
        kept.e.push_back(d.e[i]);
        kept.call_time_s.push_back(d.call_time_s[i]);
        kept.point.push_back(d.point[i]);
        if (gpu_terms) {
          kept.terms.peak_time_s.push_back(d.terms.peak_time_s[i]);
          kept.terms.memory_units.push_back(d.terms.memory_units[i]);
        }
      }
      kept.terms.weight = gemm_time_weights(kept.call_time_s);
      kept.terms.capped = gemm_time_capped(kept.call_time_s);
      const bool dropped = kept.e.size() < d.e.size();
      d = std::move(kept);
      if (gpu_terms && dropped) {  // the overhead again, without the outliers
        double t_min = std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < d.e.size(); ++i) t_min = std::min(t_min, d.terms.peak_time_s[i] / d.e[i]);
        d.terms.overhead_s = fit_gemm_overhead(d.m, d.n, d.k, d.e, d.terms, t_min);
      }
    }
    std::tie(d.sym_f, d.sym_h) = fit_symmetric(d.m, d.n, d.k, d.e, d.terms);
    d.sym_log_rss = terms_model_log_rss(d.m, d.n, d.k, d.e, GemmHalfDims{d.sym_h, d.sym_h, d.sym_h}, d.terms, nullptr);
    d.roles = fit_roles(d.m, d.n, d.k, d.e, d.terms);
  }
  // The entry has one set of half-dimensions: bf16's fit when there is one (the dtype the
  // training and inference models use), else the first dtype's. Per-role values are written when
  // that dtype's per-role fit has the lower AICc (gemm_fit_aicc: 4 parameters against 2).
  std::string primary = dtypes.front();
  for (const auto& dt : dtypes)
    if (dt == "bf16" && fits[dt].shapes >= fits[primary].shapes) primary = dt;  // outliers count: the dtype measured them
  const DtypeFits& pf = fits[primary];
  const size_t pn = pf.e.size();
  const bool roles_written = gemm_fit_aicc(pf.roles.log_rss, pn, 4) < gemm_fit_aicc(pf.sym_log_rss, pn, 2);
  const GemmHalfDims written = roles_written ? GemmHalfDims{pf.roles.h_m, pf.roles.h_n, pf.roles.h_k}
                                             : GemmHalfDims{pf.sym_h, pf.sym_h, pf.sym_h};
  // The entry has one kernel overhead too (GPU runs): the primary dtype's fit.
  if (gpu_terms) c.kernel_overhead_s = pf.terms.overhead_s;
  auto model_efficiency = [&](const GemmPoint& p, double f_times_factor, double overhead_s) {
    return gpu_terms ? gpu_efficiency(p, f_times_factor, overhead_s) : with_traffic(p, f_times_factor);
  };
  for (const auto& dt : dtypes) {
    auto& pts = by_dtype[dt];
    const DtypeFits& d = fits[dt];
    GemmFit f;
    f.dtype = dt;
    f.peak_flops_per_s = pts.front().peak_flops_per_s;
    f.peak_source = peak_source[dt];
    f.gemm_half_dim = d.sym_h;
    f.symmetric_peak_fraction = d.sym_f;
    f.half_dim_m = d.roles.h_m;
    f.half_dim_n = d.roles.h_n;
    f.half_dim_k = d.roles.h_k;
    f.role_peak_fraction = d.roles.f;
    f.symmetric_aicc = gemm_fit_aicc(d.sym_log_rss, d.e.size(), 2);
    f.role_aicc = gemm_fit_aicc(d.roles.log_rss, d.e.size(), 4);
    f.roles_written = roles_written;
    f.primary = dt == primary;
    // The written model: the entry's half-dimensions with this dtype's best f under them (closed
    // form; for the primary dtype it is that dtype's own fit).
    f.overhead_s = d.terms.overhead_s;
    TimeTerms written_terms = d.terms;
    written_terms.overhead_s = c.kernel_overhead_s > 0 ? c.kernel_overhead_s : 0;
    terms_model_log_rss(d.m, d.n, d.k, d.e, written, written_terms, &f.gemm_peak_fraction);
    // A dtype that cannot share the primary's half-dimensions (its fraction under them leaves
    // (0, 1]) is not an error unless its own fit is above the peak too: before 2026-12-03 a fp32 +
    // fp64 CPU run was refused as "fp64 GEMMs fit 1.259 of the peak" with every rate below it.
    GemmHalfDims model_h = written;
    double model_f = f.gemm_peak_fraction;
    // A fraction at the floor of the search (within one step of its grid) is no fit: the best f lies
    // below what the fit can return, so the half-dimension and overhead were bent to compensate.
    auto at_floor = [](double fr) { return fr < kMinGemmPeakFraction * 1.12; };
    if (!f.primary && (!(f.gemm_peak_fraction > 0 && f.gemm_peak_fraction <= 1) || at_floor(f.gemm_peak_fraction)) && d.sym_f > 0 &&
        d.sym_f <= 1 && !at_floor(d.sym_f)) {
      f.fraction_written = false;
      c.notes.push_back(fmt::format("the {} GEMMs fit {:.3f} of the peak under the {} half-dimensions the entry carries ({:.1f} at their own "
                                    "half-dimension {:.1f}): their shapes scale differently, so no {} fraction is written ({}); write a "
                                    "separate entry from a {}-only run to model them",
                                    dt, f.gemm_peak_fraction, primary, d.sym_f, d.sym_h, dt,
                                    suite == "gpu" && opt.peak_from_entry ? "the --peak-from entry's is carried, if it has one"
                                                                          : "the catalog's default applies",
                                    dt));
      model_h = GemmHalfDims{d.sym_h, d.sym_h, d.sym_h};
      model_f = d.sym_f;
      written_terms.overhead_s = d.terms.overhead_s;
    }
    double ss = 0, ss_sym = 0, ss_role = 0;
    for (auto& p : pts) {
      if (!c.bandwidth_by_working_set.empty())
        p.operand_traffic_s = gemm_operand_traffic_s(p.m, p.n, p.k, dtype_bytes(parse_dtype(dt, SourceLocation{"", 0, 0, "dtype"})),
                                                     c.bandwidth_by_working_set, c.gemm_fitted_footprint_bytes);
      p.predicted_efficiency_fraction =
          model_efficiency(p, model_f * gemm_shape_factor(p.m, p.n, p.k, model_h), written_terms.overhead_s);
      p.error_fraction = p.predicted_efficiency_fraction / p.efficiency_fraction - 1;
      p.symmetric_predicted_efficiency_fraction = model_efficiency(p, d.sym_f * gemm_shape_factor(p.m, p.n, p.k, d.sym_h), d.terms.overhead_s);
      p.symmetric_error_fraction = p.symmetric_predicted_efficiency_fraction / p.efficiency_fraction - 1;
      p.role_predicted_efficiency_fraction = model_efficiency(
          p, d.roles.f * gemm_shape_factor(p.m, p.n, p.k, GemmHalfDims{d.roles.h_m, d.roles.h_n, d.roles.h_k}), d.terms.overhead_s);
      p.role_error_fraction = p.role_predicted_efficiency_fraction / p.efficiency_fraction - 1;
      if (p.held_out) {
        ++f.held_out_count;
        f.held_out_max_error_fraction = std::max(f.held_out_max_error_fraction, std::fabs(p.error_fraction));
        f.held_out_rms_error_fraction += p.error_fraction * p.error_fraction;
      } else if (p.outlier) {
        ++f.outlier_count;  // not fitted: named in a note (gemm_far_notes)
      } else {
        ++f.fitted_count;
        ss += p.error_fraction * p.error_fraction;
        ss_sym += p.symmetric_error_fraction * p.symmetric_error_fraction;
        ss_role += p.role_error_fraction * p.role_error_fraction;
      }
      c.points.push_back(p);
    }
    const double nf = static_cast<double>(f.fitted_count);
    f.fit_rms_error_fraction = std::sqrt(ss / nf);
    f.symmetric_rms_error_fraction = std::sqrt(ss_sym / nf);
    f.role_rms_error_fraction = std::sqrt(ss_role / nf);
    if (f.held_out_count) f.held_out_rms_error_fraction = std::sqrt(f.held_out_rms_error_fraction / static_cast<double>(f.held_out_count));
    {
      std::vector<double> call_s;
      for (const auto& p : pts) call_s.push_back(2 * p.m * p.n * p.k / p.achieved_flops_per_s);
      for (auto& note : gemm_far_notes(dt, pts, call_s, "the " + dt + " shapes' summed time per call")) c.notes.push_back(std::move(note));
    }
    // Name where a wrong peak came from: the option that gave it, else the run's own (a --peak-from
    // beside a run with its own peaks is not read, and was named here before 2026-12-03).
    const bool forced = opt.peak_override_by_dtype.count(dt) > 0;
    const bool from_catalog = !forced && f.peak_source == opt.peak_source && opt.peak_flops_by_dtype.count(dt) > 0;
    // Rates some thousand times below the peak: a peak far too high (a --peak-tflops bf16=1e9 had
    // been written as fraction 0.001, rms error 4.83, exit 0; 2026-12-05 review).
    if (at_floor(d.sym_f) || (f.fraction_written && at_floor(f.gemm_peak_fraction))) {
      const auto best = std::max_element(pts.begin(), pts.end(), [](const GemmPoint& a, const GemmPoint& b) {
        return a.achieved_flops_per_s < b.achieved_flops_per_s;
      });
      throw Error(SourceLocation{"", 0, 0, forced ? "--peak-tflops" : from_catalog ? "--peak-from" : "peak_flops_per_s"},
                  fmt::format("the {} GEMMs fit {:.4g} of the peak {:.6g} TFLOP/s ({}), the lowest fraction the fit reaches ({:g}): their "
                              "best measured rate, {:.4g} TFLOP/s ({:g}x{:g}x{:g}), is {:.3g} of that peak",
                              dt, std::min(d.sym_f, f.gemm_peak_fraction), f.peak_flops_per_s / 1e12, f.peak_source, kMinGemmPeakFraction,
                              best->achieved_flops_per_s / 1e12, best->m, best->n, best->k, best->achieved_flops_per_s / f.peak_flops_per_s),
                  forced         ? "give the " + dt + " peak in TFLOP/s (10^12 FLOP/s), the device's datasheet figure for dense GEMMs"
                  : from_catalog ? "give --peak-from the accelerator the run measured"
                                 : "the run's stored peak is wrong for its GEMMs: give --peak-tflops " + dt + "=X");
    }
    // Rates above the peak the fit divides by: the peak is wrong for this device or clock (a
    // --peak-from of another part), not the measurement. A dtype with GEMMs above its run's derived
    // peak never gets here: its fit holds the fraction at 1 (before 2026-12-06 it was refused here
    // when no half-dimension brought the fraction to 1 or below, e.g. every shape 3.2x faster).
    if (f.fraction_written && f.gemm_peak_fraction > 1) {
      throw Error(SourceLocation{"", 0, 0, forced ? "--peak-tflops" : from_catalog ? "--peak-from" : "peak_flops_per_s"},
                  fmt::format("the {} GEMMs fit {:.3f} of the peak {:.4g} TFLOP/s ({}): measured rates above the peak", dt, f.gemm_peak_fraction,
                              f.peak_flops_per_s / 1e12, f.peak_source),
                  forced         ? "give the peak of the clock the run ran at, or above"
                  : from_catalog ? "give --peak-from the accelerator the run measured"
                                 : "the run's peak, derived from the CPU's clock of the moment and its vector width, is below what it "
                                   "measured (a turbo clock): give --peak-tflops " + dt + "=X, the peak at the sustained clock");
    }
    // What the fit made of GEMMs above the run's derived peak (a turbo clock), said as it happened.
    if (const auto above = above_derived_peak.find(dt); above != above_derived_peak.end()) {
      const GemmPoint& top = above->second.top;
      const std::string outcome =
          !f.fraction_written ? fmt::format("no {} fraction is written (the note above)", dt)
          : f.gemm_peak_fraction >= 1
              ? std::string("the fit would exceed 1, so gemm_peak_fraction is held at 1 and the half-dimensions fitted under it")
              : fmt::format("the fitted gemm_peak_fraction, {:.4g}, is below 1 and stands", f.gemm_peak_fraction);
      c.notes.push_back(fmt::format("the {} GEMM {:g}x{:g}x{:g} ran at {:.4g} TFLOP/s, {:.3f} of the run's derived peak {:.4g} TFLOP/s "
                                    "({}); {} of the {} {} GEMMs ran above it: the CPU ran above the clock read (a turbo clock). They "
                                    "are fitted against that peak with the fraction limited to 1: {}; give --peak-tflops {}=X, the "
                                    "peak at the clock the run ran at, for a fraction against it",
                                    dt, top.m, top.n, top.k, top.achieved_flops_per_s / 1e12, top.efficiency_fraction, top.peak_flops_per_s / 1e12,
                                    f.peak_source, above->second.count, pts.size(), dt, outcome, dt));
    }
    c.gemm.push_back(f);
  }
  // Memory bandwidth: STREAM triad's median (STREAM's headline figure; reads and writes with
  // ordinary stores, as the memory-bound ops of a model do), the best over the thread counts the
  // run measured, else the best kernel of an older run without triad. Before 2026-12-03 it was the
  // best kernel, which was copy, and copy had been compiled into glibc's memcpy (non-temporal
  // stores, no write-allocate): 1.4-1.6x what scale or triad reach, so estimate's memory-bound ops
  // were optimistic. Before 2026-12-06 it was the triad at the most threads only: on a loaded
  // 2-core host the two-thread triad read 10.1 GB/s where one thread reached 15.5 (the achievable
  // rate is what a configuration reached: interference only slows, as for the GEMMs).
  bool triad = false;
  int most_threads = 0;
  for (const auto& m : run.measurements)
    if (m.suite == "memory_bandwidth" && m.metric == "bytes_per_s") most_threads = std::max(most_threads, static_cast<int>(param_number(m, "threads")));
  std::string memory_case_name;  // the case memory_bandwidth_gb_per_s is taken from
  double measured_max = 0;  // the fastest median of any memory-bandwidth case: a peak below it is wrong
  std::string measured_max_case;
  // A GPU run's memory is the device's (its copies, above): a host STREAM case in the same run
  // measured the CPU's DRAM.
  for (const auto& m : run.measurements) {
    if (gpu_terms || m.suite != "memory_bandwidth" || m.metric != "bytes_per_s" || m.samples.empty()) continue;
    const double v = m.summary().median;
    if (v > measured_max) {
      measured_max = v;
      measured_max_case = m.name;
    }
    const bool is_triad = m.param("kernel") == "triad";
    if ((is_triad && (!triad || v > c.memory_bandwidth_bytes_per_s)) || (!triad && !is_triad && v > c.memory_bandwidth_bytes_per_s)) {
      c.memory_bandwidth_bytes_per_s = v;
      c.memory_threads = static_cast<int>(param_number(m, "threads"));
      c.memory_case = m.name + (is_triad ? " (STREAM triad)" : " (the fastest kernel: the run has no triad)");
      memory_case_name = m.name;
      triad = triad || is_triad;
    }
  }
  // A peak given on the command line for a run that measured no memory bandwidth has nothing to
  // be the peak of: it was dropped without a word before 2026-12-02 (its source written, unused).
  if (opt.memory_peak_bytes_per_s > 0 && opt.memory_peak_option.empty() && c.memory_bandwidth_bytes_per_s <= 0)
    throw Error(SourceLocation{"", 0, 0, "--memory-peak-gb-per-s"},
                "the run has no memory-bandwidth measurement to set against the peak given",
                "run `sextant bench --suite memory_bandwidth` (with the GEMM suite) and calibrate that run, or leave the option out");
  // A GPU's achievable rate is its device-to-device copies' (it had not been checked, and a peak
  // below it failed in the catalog's parser, naming no option: --peak-from h100-sxm-80gb on an
  // H200 run wrote memory_bandwidth_fraction 1.258; 2026-12-05 review).
  if (gpu_terms && c.memory_bandwidth_bytes_per_s > measured_max) {
    measured_max = c.memory_bandwidth_bytes_per_s;
    measured_max_case = c.memory_case;
  }
  // A published peak below what was measured is a wrong peak (or the wrong unit), not a fraction
  // above 1: say which option, before the entry is written.
  // Every kernel counts: a copy or add faster than the peak (it had been checked against the
  // triad only, and a peak of 12 GB/s was written beside adds of 15.4; 2026-12-06 review).
  if (opt.memory_peak_bytes_per_s > 0 && measured_max > opt.memory_peak_bytes_per_s) {
    const bool from_catalog = opt.memory_peak_option == "--peak-from";
    throw Error(SourceLocation{"", 0, 0, opt.memory_peak_option.empty() ? "--memory-peak-gb-per-s" : opt.memory_peak_option},
                fmt::format("the peak memory bandwidth given, {:.4g} GB/s{}, is below the {:.4g} GB/s measured ({})", opt.memory_peak_bytes_per_s / 1e9,
                            opt.memory_peak_source.empty() ? std::string() : " (" + opt.memory_peak_source + ")", measured_max / 1e9,
                            measured_max_case),
                from_catalog ? "give --peak-from the accelerator the run measured, or its published peak with --memory-peak-gb-per-s"
                             : "give the device's published peak in GB/s (10^9 bytes/s), at least the measured rate");
  }
  // A published peak some thousand times what was measured: a unit slip (kMinMemoryBandwidthFraction).
  if (opt.memory_peak_bytes_per_s > 0 && c.memory_bandwidth_bytes_per_s > 0 &&
      c.memory_bandwidth_bytes_per_s / opt.memory_peak_bytes_per_s < kMinMemoryBandwidthFraction) {
    const bool from_catalog = opt.memory_peak_option == "--peak-from";
    throw Error(SourceLocation{"", 0, 0, opt.memory_peak_option.empty() ? "--memory-peak-gb-per-s" : opt.memory_peak_option},
                fmt::format("the peak memory bandwidth given, {} GB/s{}, is {:.4g} times the {:.4g} GB/s measured ({}): "
                            "memory_bandwidth_fraction {:.3g}, below the {:g} that even one thread on a large server reaches",
                            format_double(opt.memory_peak_bytes_per_s / 1e9),
                            opt.memory_peak_source.empty() ? std::string() : " (" + opt.memory_peak_source + ")",
                            opt.memory_peak_bytes_per_s / c.memory_bandwidth_bytes_per_s, c.memory_bandwidth_bytes_per_s / 1e9,
                            c.memory_case, c.memory_bandwidth_bytes_per_s / opt.memory_peak_bytes_per_s, kMinMemoryBandwidthFraction),
                from_catalog ? "give --peak-from the accelerator the run measured, or its published peak with --memory-peak-gb-per-s"
                             : "a unit slip: give the published peak in GB/s (10^9 bytes/s), e.g. --memory-peak-gb-per-s " +
                                   format_double(opt.memory_peak_bytes_per_s / 1e12) + " if " +
                                   format_double(opt.memory_peak_bytes_per_s / 1e9) + " was MB/s");
  }
  // Network: ping-pong alpha-beta fit, all-reduce busbw at the largest size.
  std::vector<double> sizes, times;
  int64_t ar_size = 0;
  for (const auto& m : run.measurements) {
    // The MPI suite's own: a GPU suite's NCCL all-reduce in the same run (other ranks, another
    // link) had been divided by the MPI ping-pong rate (14x, capped at 1; 2026-12-04 review).
    if (m.suite != "comm_mpi" || !m.has_param("collective")) continue;
    const std::string coll = m.param("collective");
    if (coll == "pingpong" && m.metric == "latency_s") {
      sizes.push_back(param_number(m, "size_bytes"));
      times.push_back(m.summary().median);
      c.network.ranks = static_cast<int64_t>(param_number(m, "ranks"));
    } else if (coll == "all_reduce" && m.metric == "busbw_bytes_per_s") {
      const auto s = static_cast<int64_t>(param_number(m, "size_bytes"));
      if (s >= ar_size) {
        ar_size = s;
        c.network.all_reduce_busbw_bytes_per_s = m.summary().median;
      }
    }
  }
  if (sizes.size() >= 2) {
    fit_latency_bandwidth(sizes, times, c.network);
    // Sizes that cannot separate latency from bandwidth (2026-12-06 review): the entry carries
    // the mean effective rate and no measured latency, and says so.
    if (c.network.present && !c.network.latency_separated) {
      const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
      c.notes.push_back(fmt::format("the run's {} ping-pong cases span {} message size(s), {} to {} bytes (less than a factor of {:g}): "
                                    "latency and bandwidth cannot be told apart, so the network entry's bandwidth_gb_per_s is their "
                                    "mean effective rate, {:.4g} GB/s, latency included, and its latency_us is 0, not measured; bench "
                                    "the comm_mpi suite's full size range for both",
                                    sizes.size(), c.network.distinct_sizes, format_double(*lo), format_double(*hi),
                                    kMinSizeSpreadForLatency, c.network.bandwidth_bytes_per_s / 1e9));
    }
    if (c.network.present && c.network.all_reduce_busbw_bytes_per_s > 0) {
      // A fraction of the link's bandwidth is at most 1 (the catalog refuses more). Through shared
      // memory the largest all-reduce can beat the ping-pong rate (1.07x measured on a 2-core
      // host): the collective then runs at the link's rate, and the entry says 1, with the ratio.
      c.network.all_reduce_to_pingpong_ratio = c.network.all_reduce_busbw_bytes_per_s / c.network.bandwidth_bytes_per_s;
      c.network.achievable_fraction = std::min(1.0, c.network.all_reduce_to_pingpong_ratio);
    }
  }

  // The catalog file.
  const std::string run_ref = fmt::format("sextant bench run {} ({}) on host {} [{}]", run.id, run.started_at,
                                          run.host.hostname, run.host.fingerprint());
  std::string device_name = run.host.cpu.model;
  if (suite == "gpu")
    for (const auto& m : run.measurements)
      if (m.suite == "gpu" && m.has_param("device")) {
        device_name = m.param("device");
        break;
      }
  // A run on fewer threads than the host has (bench --threads 1, a taskset) measured that many
  // CPUs: its peaks and rates are theirs, so the entry says so rather than passing for the host.
  const int64_t host_cpus = run.host.cpu.logical_cpus;
  const bool partial = suite == "gemm_cpu" && c.gemm_threads > 0 && host_cpus > 0 && c.gemm_threads < host_cpus;
  std::string name = opt.name.empty() ? device_name + " (calibrated)" : opt.name;
  if (partial && opt.name.empty()) name = device_name + fmt::format(" (calibrated, {} of {} CPUs)", c.gemm_threads, host_cpus);
  // More threads than CPUs time-share them: the rates measured contention, and the fractions fitted
  // to them are low for the host (a 3-thread run on 2 CPUs was written without a word, its peak
  // source calling the third thread an SMT sibling: 2026-12-04 review).
  if (suite == "gemm_cpu" && host_cpus > 0 && c.gemm_threads > host_cpus)
    c.notes.push_back(fmt::format("the GEMMs ran {} threads on the host's {} logical CPUs: oversubscribed threads time-share the CPUs, so "
                                  "the rates and the fractions fitted to them describe that contention, not the host; bench again with "
                                  "--threads {} or fewer",
                                  c.gemm_threads, host_cpus, host_cpus));
  if (partial)
    c.notes.push_back(fmt::format("the GEMMs ran on {} of the host's {} logical CPUs: the entry's peaks, fractions and compute_units "
                                  "describe {} CPUs, not the whole host (bench without --threads, CPU affinity or a CPU quota for the host)",
                                  c.gemm_threads, host_cpus, c.gemm_threads));
  // The notes on the STREAM figure say what is taken: the best triad median (the fastest kernel
  // only where the run has no triad), its rate and case, against the same kernel at the most
  // threads, and the faster copy, scale or add left aside. Before 2026-12-07 (review) the note
  // said "the best STREAM case ... the best reached" beside a 1-thread triad of 16.95 GB/s where
  // copy, scale and add had reached 37 GB/s.
  double taken_at_most_threads = 0, other_kernel_max = 0;
  std::string other_kernel_case;
  for (const auto& m : run.measurements) {
    if (gpu_terms || m.suite != "memory_bandwidth" || m.metric != "bytes_per_s" || m.samples.empty()) continue;
    const double v = m.summary().median;
    const bool is_triad = m.param("kernel") == "triad";
    if (is_triad == triad && static_cast<int>(param_number(m, "threads")) == most_threads) taken_at_most_threads = std::max(taken_at_most_threads, v);
    if (triad && !is_triad && v > other_kernel_max) other_kernel_max = v, other_kernel_case = m.name;
  }
  const std::string taken_kernel = triad ? "STREAM triad" : "fastest STREAM kernel (the run has no triad)";
  const std::string others_left =
      triad && other_kernel_max > c.memory_bandwidth_bytes_per_s
          ? fmt::format("; triad is the kernel taken (STREAM's headline figure, docs/bench.md): the run's copy, scale and add reached up "
                        "to {:.4g} GB/s (case '{}') and are not taken",
                        other_kernel_max / 1e9, other_kernel_case)
          : std::string();
  if (suite == "gemm_cpu" && c.memory_threads > 0 && c.memory_threads < most_threads && taken_at_most_threads > 0)
    c.notes.push_back(fmt::format("memory_bandwidth_gb_per_s is the best {} median, {:.4g} GB/s (case '{}', {} thread{}), faster than the "
                                  "run's {}-thread {} ({:.4g} GB/s): more threads should reach at least as much, so the host was loaded "
                                  "while they ran (bench on a quiet host for the host's own){}",
                                  taken_kernel, c.memory_bandwidth_bytes_per_s / 1e9, memory_case_name, c.memory_threads,
                                  c.memory_threads == 1 ? "" : "s", most_threads, triad ? "triad" : "cases", taken_at_most_threads / 1e9,
                                  others_left));
  else if (suite == "gemm_cpu" && c.memory_threads > 0 && host_cpus > 0 && c.memory_threads < host_cpus && opt.memory_peak_bytes_per_s <= 0)
    c.notes.push_back(fmt::format("memory_bandwidth_gb_per_s is the best {} median, {:.4g} GB/s ({}), run on {} of {} CPUs: what {} "
                                  "thread(s) reach, below what the host's memory can deliver to all of them{}",
                                  taken_kernel, c.memory_bandwidth_bytes_per_s / 1e9, "case '" + memory_case_name + "'", c.memory_threads, host_cpus,
                                  c.memory_threads, others_left));
  // A GPU run calibrated against a catalog entry (--peak-from) refines that entry: what the run does
  // not measure is carried from it (base_*_lines, shared with the trace calibration).
  const Accelerator* base = suite == "gpu" && opt.peak_from_entry ? &*opt.peak_from_entry : nullptr;
  std::set<std::string> measured_dtypes, fraction_dtypes;
  for (const auto& f : c.gemm) {
    measured_dtypes.insert(f.dtype);
    if (f.fraction_written) fraction_dtypes.insert(f.dtype);
  }
  // The entry's half-dimensions are the run's primary dtype's; a dtype carried from the base is
  // read under them. That is the base's model where the run measured the base's main dtype (the
  // one the base's half-dimension stands for), and a change of its rates where it did not: said.
  if (base) {
    const std::string main = base_main_dtype(*base);
    const GemmFit* pr = &c.gemm.front();
    for (const auto& f : c.gemm)
      if (f.primary) pr = &f;
    const auto carried_main = main.empty() ? base->gemm_peak_fraction.end() : base->gemm_peak_fraction.find(parse_dtype(main, {}));
    if (!measured_dtypes.count(main) && carried_main != base->gemm_peak_fraction.end() && carried_main->second.known)
      c.notes.push_back(fmt::format("the run has no {} GEMMs: the entry's half-dimension is its {} GEMMs' ({:.1f}), under which the {} fraction "
                                    "carried from {} (fitted there under {}) no longer gives that entry's {} rates; bench {} GEMMs too",
                                    main, pr->dtype, pr->gemm_half_dim, main, base->id,
                                    base->gemm_half_dim.known ? format_double(base->gemm_half_dim.value) : std::string("its default 128"), main, main));
  }
  // Every figure the run measured or derived names the run: its id, start time and host (review,
  // 2026-12-07). The loader resolves a source of the one word `bench-run` to the run, but shows a
  // "bench-run: basis" source and an `estimated:` basis as written, so memory_bandwidth_gb_per_s
  // (the run's STREAM triad), the run's derived peaks, the fits and the read-bandwidth table had
  // shown no run while memory_gib did.
  auto run_sourced = [&run_ref](double v, const std::string& s) {
    return sourced(v, s.rfind("bench-run: ", 0) == 0 ? s + "; " + run_ref : s);
  };
  auto run_estimated = [&run_ref](double v, const std::string& basis) { return estimated(v, basis + "; " + run_ref); };
  std::string y;
  y += "# Written by `sextant calibrate` from " + run_ref + ".\n";
  y += "# GEMM efficiency model (the one estimate uses, catalog.hpp gemm_shape_factor): achieved = peak x gemm_peak_fraction x\n"
       "#   prod over x in (m, n, k) of min(1, [x/(x + h_x)] / [8192/(8192 + h_x)]), h_x = gemm_half_dim_<x>, else gemm_half_dim.\n";
  if (gpu_terms)
    y += "# GEMM time = max(2mnk / achieved, (mk + kn + mn) x element bytes / (memory_bandwidth x memory_bandwidth_fraction))\n"
         "#   + kernel_overhead_us, fitted as a whole (estimate's compute time of a GEMM op).\n";
  if (!c.bandwidth_by_working_set.empty())
    y += "# GEMM time = 2mnk / achieved + operand traffic F x max(0, 1/bw(F) - 1/bw(F_fit)), F = (mk + kn + mn) x element bytes,\n"
         "#   bw = bandwidth_by_working_set at the smallest working set >= F, F_fit = efficiency.gemm_fitted_footprint_mib.\n";
  for (const auto& f : c.gemm)
    y += fmt::format("# {}: symmetric fit h = {:.1f} (rms error {:.3f}, AICc {:.2f}); per-role fit h_m = {:.1f}, h_n = {:.1f}, h_k = {:.1f} "
                     "(rms error {:.3f}, AICc {:.2f}){}.\n",
                     f.dtype, f.gemm_half_dim, f.symmetric_rms_error_fraction, f.symmetric_aicc, f.half_dim_m, f.half_dim_n, f.half_dim_k,
                     f.role_rms_error_fraction, f.role_aicc,
                     f.primary ? (f.roles_written ? ": per-role written (lower AICc)" : ": symmetric written (per-role AICc not lower)") : "");
  y += "sources:\n";
  y += "  bench-run: " + q(run_ref) + "\n";
  if (!opt.memory_peak_source.empty()) y += "  memory-peak: " + q(opt.memory_peak_source) + "\n";
  if (base) y += "  base: " + q("catalog entry " + base->id + " (" + base->file + "), given as --peak-from: what the run does not measure") + "\n";
  y += "entries:\n";
  y += "  - id: " + q(opt.id) + "\n";
  y += "    name: " + q(name) + "\n";
  y += "    vendor: " + q(base ? base->vendor : suite == "gpu" ? "nvidia" : vendor_of(run.host.cpu.model)) + "\n";
  y += "    kind: " + (base ? q(base->kind) : std::string(suite == "gpu" ? "gpu" : "cpu")) + "\n";
  y += "    peak_tflops:\n";
  // A fitted dtype's peak taken from the --peak-from entry keeps that entry's source (its datasheet),
  // as the dtypes carried from it do: it had been written as `estimated:` (2026-12-06 review).
  for (const auto& f : c.gemm) {
    const Sourced* from_base = nullptr;
    if (base && !opt.peak_override_by_dtype.count(f.dtype) && f.peak_source == opt.peak_source)
      if (const auto it = base->peak_flops.find(parse_dtype(f.dtype, {}));
          it != base->peak_flops.end() && it->second.known && it->second.value == f.peak_flops_per_s)
        from_base = &it->second;
    y += "      " + f.dtype + ": " +
         (from_base                ? carried_value(*from_base, f.peak_flops_per_s / 1e12)
          : peak_from_run[f.dtype] ? run_estimated(f.peak_flops_per_s / 1e12, f.peak_source)
                                   : estimated(f.peak_flops_per_s / 1e12, f.peak_source)) +
         "\n";
  }
  if (base) y += base_peak_lines(*base, measured_dtypes);
  if (suite == "gemm_cpu" && run.host.memory_bytes > 0)
    y += "    memory_gib: " + run_sourced(static_cast<double>(run.host.memory_bytes) / (1024.0 * 1024 * 1024), "bench-run") + "\n";
  if (suite == "gpu" && !base && opt.device_memory_bytes > 0)
    y += "    memory_gib: " + run_sourced(opt.device_memory_bytes / (1024.0 * 1024 * 1024), "memory_gib of the --peak-from catalog entry") + "\n";
  if (c.memory_bandwidth_bytes_per_s > 0) {
    if (opt.memory_peak_bytes_per_s > 0)
      y += "    memory_bandwidth_gb_per_s: " +
           (opt.memory_peak_source.empty() ? estimated(opt.memory_peak_bytes_per_s / 1e9, "given on the command line without a source (--memory-peak-source)")
                                           : run_sourced(opt.memory_peak_bytes_per_s / 1e9, "memory-peak")) +
           "\n";
    else
      y += "    memory_bandwidth_gb_per_s: " +
           run_estimated(c.memory_bandwidth_bytes_per_s / 1e9, "no published peak given: the measured achievable bandwidth (" + c.memory_case + ")") +
           "\n";
  }
  if (base) {
    std::set<std::string> written;
    if (c.memory_bandwidth_bytes_per_s > 0) written.insert("memory_bandwidth_gb_per_s");
    y += base_device_lines(*base, written);
  }
  if (suite == "gemm_cpu" && run.host.l3_bytes > 0)
    y += "    cache_mib: " + run_sourced(static_cast<double>(run.host.l3_bytes) / (1024.0 * 1024), "bench-run") + "\n";
  // Compute units are cores: SMT siblings share one core's vector units (the peak counts them
  // once, host.cpp), so a 16-core host of 32 threads has 16.
  const int64_t phys = run.host.cpu.physical_cores;
  auto cores_of = [&](int64_t threads) { return phys > 0 ? std::min(threads, phys) : threads; };
  if (partial)
    y += "    compute_units: " + run_sourced(static_cast<double>(cores_of(c.gemm_threads)),
                                        fmt::format("bench-run: the cores of the GEMMs' {} threads (the host has {} logical CPUs{})", c.gemm_threads,
                                                    host_cpus, phys > 0 ? fmt::format(" on {} cores", phys) : std::string())) + "\n";
  else if (suite == "gemm_cpu" && run.host.cpu.logical_cpus > 0)
    y += "    compute_units: " + run_sourced(static_cast<double>(cores_of(run.host.cpu.logical_cpus)),
                                        phys > 0 && phys < run.host.cpu.logical_cpus
                                            ? fmt::format("bench-run: {} physical cores ({} logical CPUs)", phys, run.host.cpu.logical_cpus)
                                            : std::string("bench-run")) + "\n";
  if (!c.bandwidth_by_working_set.empty()) {
    // The envelope (non_increasing_envelope) is what the model reads; a point it lowered keeps its
    // measured bandwidth in a comment on its line (the catalog's points hold two keys).
    y += "    bandwidth_by_working_set:\n";
    y += "      source: " +
         q(fmt::format("bench-run: cache_bandwidth suite, read by one thread, best of {} repetitions per working set, written as its "
                       "non-increasing envelope (the running minimum from the smallest working set): {}; {}",
                       c.bandwidth_repetitions,
                       c.bandwidth_points_lowered > 0
                           ? fmt::format("{} of {} points lowered to a smaller working set's bandwidth, their measured values in comments",
                                         c.bandwidth_points_lowered, c.bandwidth_by_working_set.size())
                           : std::string("no point lowered, the measured bandwidths do not rise with the working set"),
                       run_ref)) +
         "\n";
    y += "      points:\n";
    for (size_t i = 0; i < c.bandwidth_by_working_set.size(); ++i) {
      const auto& p = c.bandwidth_by_working_set[i];
      y += fmt::format("        - {{working_set_kib: {}, gb_per_s: {}}}", num(p.working_set_bytes / 1024), num(p.bytes_per_s / 1e9));
      if (i < c.bandwidth_by_working_set_measured.size() && c.bandwidth_by_working_set_measured[i].bytes_per_s != p.bytes_per_s)
        y += fmt::format("  # measured {} GB/s, lowered to the envelope", num(c.bandwidth_by_working_set_measured[i].bytes_per_s / 1e9));
      y += "\n";
    }
  }
  y += "    efficiency:\n";
  y += "      gemm_peak_fraction:\n";
  for (const auto& f : c.gemm)
    if (f.fraction_written)
    y += "        " + f.dtype + ": " +
         run_sourced(f.gemm_peak_fraction, fmt::format("bench-run: fit over {} shapes, rms error {:.3f}", f.fitted_count, f.fit_rms_error_fraction)) + "\n";
  // The GPU's GEMM rates are medians under its power cap (sustained rates, see above), so the base's
  // fractions carried here are its sustained rates and the entry's sustained fraction is 1.
  if (base) y += base_fraction_lines(*base, fraction_dtypes, true);
  // The half-dimensions of the entry: the primary dtype's (bf16 where fitted, else the first).
  const GemmFit* pr = &c.gemm.front();
  for (const auto& f : c.gemm)
    if (f.primary) pr = &f;
  y += "      gemm_half_dim: " + run_sourced(pr->gemm_half_dim, "bench-run: symmetric fit of " + pr->dtype + " GEMMs") + "\n";
  if (pr->roles_written) {
    const std::string basis = fmt::format("bench-run: per-role fit of {} GEMMs over {} shapes, rms error {:.3f} (symmetric {:.3f}), AICc {:.2f} (symmetric {:.2f})",
                                          pr->dtype, pr->fitted_count, pr->role_rms_error_fraction, pr->symmetric_rms_error_fraction,
                                          pr->role_aicc, pr->symmetric_aicc);
    y += "      gemm_half_dim_m: " + run_sourced(pr->half_dim_m, basis) + "\n";
    y += "      gemm_half_dim_n: " + run_sourced(pr->half_dim_n, basis) + "\n";
    y += "      gemm_half_dim_k: " + run_sourced(pr->half_dim_k, basis) + "\n";
  }
  if (!c.bandwidth_by_working_set.empty())
    y += "      gemm_fitted_footprint_mib: " +
         run_sourced(c.gemm_fitted_footprint_bytes / (1024.0 * 1024),
                 "bench-run: largest operand footprint (A, B and C once) among the fitted GEMM shapes of every dtype") +
         "\n";
  if (c.kernel_overhead_s >= 0) {
    const GemmFit* g = pr;
    y += "      kernel_overhead_us: " +
         run_sourced(c.kernel_overhead_s * 1e6, fmt::format("bench-run: fitted with the {} GEMM model over {} shapes (0 to the shortest GEMM time)",
                                                        g->dtype, g->fitted_count)) +
         "\n";
  } else if (pr) {
    // A CPU fit has no separate per-call term: the shape factors carry the small GEMMs' cost, as the
    // predictions above take them. Without this line estimate added its default 4 us per op, and
    // the entry's 64^3 GEMM ran at 0.20 of peak where it measured 0.48 (2026-12-04 review).
    y += "      kernel_overhead_us: " +
         estimated(0.0, "CPU GEMMs are fitted without a per-call term: the shape factors above include the small calls' cost") + "\n";
  }
  if (c.memory_bandwidth_bytes_per_s > 0) {
    if (opt.memory_peak_bytes_per_s > 0)
      y += "      memory_bandwidth_fraction: " + run_sourced(c.memory_bandwidth_bytes_per_s / opt.memory_peak_bytes_per_s, "bench-run: " + c.memory_case) + "\n";
    else
      y += "      memory_bandwidth_fraction: " + estimated(1.0, "memory_bandwidth_gb_per_s is already the achievable figure") + "\n";
  }
  if (base) {
    y += "      sustained_compute_fraction: " +
         run_sourced(1.0, "bench-run: the GEMM rates fitted above are medians under the power cap, sustained rates (the base's fractions "
                      "carried above are scaled to its sustained rates)") +
         "\n";
    std::set<std::string> written = {"kernel_overhead_us"};
    if (c.memory_bandwidth_bytes_per_s > 0) written.insert("memory_bandwidth_fraction");
    y += base_efficiency_lines(*base, written);
  }
  c.accelerator_yaml = y;
  if (c.network.present) {
    std::string n;
    n += "# Written by `sextant calibrate` from " + run_ref + ".\n";
    n += "sources:\n  bench-run: " + q(run_ref) + "\n";
    n += "entries:\n";
    n += "  - id: " + q(opt.network_id.empty() ? opt.id + "-mpi" : opt.network_id) + "\n";
    n += "    name: " + q(fmt::format("MPI between {} ranks on {} (calibrated)", c.network.ranks, run.host.hostname)) + "\n";
    n += "    kind: " + opt.network_kind + "\n";
    if (c.network.latency_separated) {
      n += "    bandwidth_gb_per_s: " +
           run_sourced(c.network.bandwidth_bytes_per_s / 1e9, fmt::format("bench-run: ping-pong fit over {} sizes, rms error {:.3f}", c.network.points, c.network.fit_rms_error_fraction)) + "\n";
      n += "    latency_us: " + run_sourced(c.network.latency_s * 1e6, "bench-run: ping-pong fit intercept") + "\n";
    } else {
      // One message size (2026-12-06 review): the mean rate, and a latency that was not measured.
      n += "    bandwidth_gb_per_s: " +
           run_sourced(c.network.bandwidth_bytes_per_s / 1e9,
                   fmt::format("bench-run: mean effective ping-pong rate over {} cases of {} size(s), latency included (sizes too close "
                               "to separate latency from bandwidth), rms error {:.3f}",
                               c.network.points, c.network.distinct_sizes, c.network.fit_rms_error_fraction)) +
           "\n";
      n += "    latency_us: " +
           estimated(0.0, "not measured: the ping-pong sizes span less than a factor of " + format_double(kMinSizeSpreadForLatency) +
                              ", so the latency is inside bandwidth_gb_per_s") +
           "\n";
    }
    if (c.network.achievable_fraction > 0)
      n += "    achievable_fraction: " +
           run_sourced(c.network.achievable_fraction,
                   c.network.all_reduce_to_pingpong_ratio > 1
                       ? fmt::format("bench-run: largest all_reduce busbw / ping-pong bandwidth = {:.3f}, capped at 1", c.network.all_reduce_to_pingpong_ratio)
                       : std::string("bench-run: largest all_reduce busbw / ping-pong bandwidth")) +
           "\n";
    c.network_yaml = n;
  }
  return c;
}

Result calibration_result(const Calibration& c, const RunRecord& run, const CalibrateOptions& opt) {
  Result r;
  r.command = "calibrate";
  r.set("run_id", run.id);
  r.set("id", opt.id);
  if (c.kernel_overhead_s >= 0) r.set("kernel_overhead_s", c.kernel_overhead_s);
  // The entry's half-dimensions (the primary dtype's fits), which every written fraction is fitted
  // under. Before 2026-12-06 (review) gemm_half_dim_<dtype> and half_dim_{m,n,k}_<dtype> were the
  // dtype's own fits, printed beside a fraction fitted under the primary's (tf32 0.6646 beside
  // 69.44, the file pairing it with bf16's half-dimension): they now describe what is written, as
  // the trace calibration's do, and each dtype's own fits are own_fit_* and per_role_fit_*.
  const GemmFit* pr = nullptr;
  for (const auto& f : c.gemm)
    if (f.primary) pr = &f;
  if (!pr && !c.gemm.empty()) pr = &c.gemm.front();
  for (const auto& f : c.gemm) {
    r.set("gemm_peak_fraction_" + f.dtype, f.fraction_written ? f.gemm_peak_fraction : std::nan(""));
    r.set("gemm_half_dim_" + f.dtype, pr->gemm_half_dim);
    if (pr->roles_written) {
      r.set("half_dim_m_" + f.dtype, pr->half_dim_m);
      r.set("half_dim_n_" + f.dtype, pr->half_dim_n);
      r.set("half_dim_k_" + f.dtype, pr->half_dim_k);
    }
    r.set("per_role_written_" + f.dtype, f.roles_written);
    r.set("own_fit_peak_fraction_" + f.dtype, f.symmetric_peak_fraction);
    r.set("own_fit_half_dim_" + f.dtype, f.gemm_half_dim);
    r.set("per_role_fit_peak_fraction_" + f.dtype, f.role_peak_fraction);
    r.set("per_role_fit_half_dim_m_" + f.dtype, f.half_dim_m);
    r.set("per_role_fit_half_dim_n_" + f.dtype, f.half_dim_n);
    r.set("per_role_fit_half_dim_k_" + f.dtype, f.half_dim_k);
    r.set("fit_rms_error_fraction_" + f.dtype, f.fit_rms_error_fraction);
    r.set("symmetric_fit_rms_error_fraction_" + f.dtype, f.symmetric_rms_error_fraction);
    r.set("per_role_fit_rms_error_fraction_" + f.dtype, f.role_rms_error_fraction);
    r.set("symmetric_aicc_" + f.dtype, f.symmetric_aicc);
    r.set("per_role_aicc_" + f.dtype, f.role_aicc);
    if (c.kernel_overhead_s >= 0) r.set("kernel_overhead_s_" + f.dtype, f.overhead_s);
    if (f.held_out_count) {
      r.set("held_out_max_error_fraction_" + f.dtype, f.held_out_max_error_fraction);
      r.set("held_out_rms_error_fraction_" + f.dtype, f.held_out_rms_error_fraction);
    }
  }
  if (c.memory_bandwidth_bytes_per_s > 0) r.set("memory_bandwidth_bytes_per_s", c.memory_bandwidth_bytes_per_s);
  if (!c.bandwidth_by_working_set.empty()) {
    r.set("gemm_fitted_footprint_bytes", c.gemm_fitted_footprint_bytes);
    Table& bt = r.add_table("bandwidth_by_working_set",
                            "read bandwidth of one thread per working set (best repetition), written into the entry for the GEMM "
                            "operand-traffic term as its non-increasing envelope (bytes_per_s; measured_bytes_per_s as measured)");
    bt.add_i64("working_set_bytes");  // a whole size: the report's bars are named by it
    bt.add_f64("bytes_per_s");
    // bytes_per_s is the written envelope; measured_bytes_per_s the best repetition as measured
    // (review, 2026-12-07).
    bt.add_f64("measured_bytes_per_s");
    for (size_t i = 0; i < c.bandwidth_by_working_set.size(); ++i) {
      const auto& p = c.bandwidth_by_working_set[i];
      bt.add_row({static_cast<int64_t>(std::llround(p.working_set_bytes)), p.bytes_per_s,
                  i < c.bandwidth_by_working_set_measured.size() ? c.bandwidth_by_working_set_measured[i].bytes_per_s : p.bytes_per_s});
    }
  }
  if (c.network.present) {
    // Not measured where the sizes could not separate it (NaN: "-" and null; 2026-12-06 review).
    r.set("network_latency_s", c.network.latency_separated ? c.network.latency_s : std::nan(""));
    r.set("network_bandwidth_bytes_per_s", c.network.bandwidth_bytes_per_s);
    r.set("all_reduce_busbw_bytes_per_s", c.network.all_reduce_busbw_bytes_per_s);
  }
  Table& t = r.add_table("gemm_fit",
                         "measured vs model efficiency per shape (held-out shapes and outliers were not fitted); predicted: the written entry's "
                         "model, symmetric / per_role: the two fits");
  t.add_str("dtype");
  t.add_i64("m");
  t.add_i64("n");
  t.add_i64("k");
  t.add_f64("achieved_flops_per_s");
  t.add_f64("efficiency_fraction");
  t.add_f64("predicted_efficiency_fraction");
  t.add_f64("error_fraction");
  t.add_f64("symmetric_error_fraction");
  t.add_f64("per_role_error_fraction");
  const bool traffic = !c.bandwidth_by_working_set.empty();
  if (traffic) {
    t.add_f64("footprint_bytes");
    t.add_f64("operand_traffic_s");
  }
  t.add_str("role");
  for (const auto& p : c.points) {
    std::vector<Value> row = {p.dtype, static_cast<int64_t>(p.m), static_cast<int64_t>(p.n), static_cast<int64_t>(p.k),
                              p.achieved_flops_per_s, p.efficiency_fraction, p.predicted_efficiency_fraction, p.error_fraction,
                              p.symmetric_error_fraction, p.role_error_fraction};
    if (traffic) {
      row.push_back(p.footprint_bytes);
      row.push_back(p.operand_traffic_s);
    }
    row.push_back(std::string(p.held_out ? "held-out" : p.outlier ? "outlier" : "fitted"));
    t.add_row(row);
  }
  // rms error per shape class and overall, for each model (written, symmetric, per-role).
  Table& rt = r.add_table("gemm_fit_rms", "rms of (predicted / measured - 1) per dtype and role of the shapes");
  rt.add_str("dtype");
  rt.add_str("role");
  rt.add_i64("shapes_count");
  rt.add_f64("written_rms_error_fraction");
  rt.add_f64("symmetric_rms_error_fraction");
  rt.add_f64("per_role_rms_error_fraction");
  for (const auto& f : c.gemm)
    for (const char* role : {"fitted", "held-out", "outlier", "all"}) {
      double a = 0, b = 0, d = 0;
      int64_t cnt = 0;
      for (const auto& p : c.points)
        if (p.dtype == f.dtype && (std::string(role) == "all" || std::string(role) == (p.held_out ? "held-out" : p.outlier ? "outlier" : "fitted"))) {
          a += p.error_fraction * p.error_fraction;
          b += p.symmetric_error_fraction * p.symmetric_error_fraction;
          d += p.role_error_fraction * p.role_error_fraction;
          ++cnt;
        }
      if (cnt == 0) continue;
      const double nn = static_cast<double>(cnt);
      rt.add_row({f.dtype, std::string(role), cnt, std::sqrt(a / nn), std::sqrt(b / nn), std::sqrt(d / nn)});
    }
  return r;
}

}  // namespace sextant::bench
