#include "bench/calibrate/calibrate.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/efficiency_model.hpp"
#include "catalog/catalog.hpp"
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

std::pair<double, double> fit_gemm_efficiency(const std::vector<double>& d, const std::vector<double>& e) {
  if (d.size() != e.size() || d.empty()) throw Error("GEMM efficiency fit needs at least one shape");
  // Minimise sum w_i (y_i - a - b x_i)^2 with y = 1/e, x = 1/d, w = e^2.
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    if (!(e[i] > 0) || !(d[i] > 0)) throw Error("GEMM efficiency fit: non-positive efficiency or dimension");
    const double w = e[i] * e[i], x = 1 / d[i], y = 1 / e[i];
    sw += w;
    sx += w * x;
    sy += w * y;
    sxx += w * x * x;
    sxy += w * x * y;
  }
  const double det = sw * sxx - sx * sx;
  double a, b;
  if (d.size() < 2 || std::fabs(det) <= 1e-12 * sw * sxx) {
    a = sy / sw;
    b = 0;
  } else {
    b = (sw * sxy - sx * sy) / det;
    a = (sy - b * sx) / sw;
  }
  if (b < 0 || a <= 0) {  // efficiency not rising with size: a constant fraction fits best
    b = 0;
    a = sy / sw;
  }
  return {1 / a, b / a};
}

// Fit of the catalog's GEMM model (catalog.hpp gemm_shape_factor, the one `estimate` uses):
// e = f x gemm_shape_factor(m, n, k, h). For each h, log f is the mean of log(e / factor)
// (least squares on log efficiency); h is searched on a log grid refined by golden section.
// Candidates whose f would exceed 1 at the 8192^3 reference are rejected.
std::pair<double, double> fit_catalog_gemm_model(const std::vector<double>& m, const std::vector<double>& n,
                                                 const std::vector<double>& k, const std::vector<double>& e) {
  if (e.empty()) throw Error("GEMM efficiency fit needs at least one shape");
  auto eval = [&](double h, double* f_out) {
    double sl = 0;
    for (size_t i = 0; i < e.size(); ++i) sl += std::log(e[i] / gemm_shape_factor(m[i], n[i], k[i], h));
    const double logf = sl / static_cast<double>(e.size());
    double ss = 0;
    for (size_t i = 0; i < e.size(); ++i) {
      const double r = logf + std::log(gemm_shape_factor(m[i], n[i], k[i], h)) - std::log(e[i]);
      ss += r * r;
    }
    if (f_out) *f_out = std::exp(logf);
    return std::exp(logf) > 1.0 ? std::numeric_limits<double>::infinity() : ss;
  };
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

void fit_latency_bandwidth(const std::vector<double>& x, const std::vector<double>& t, NetworkFit& out) {
  if (x.size() != t.size() || x.size() < 2) return;
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

namespace {
// Solves the weighted least-squares problem min sum w (y - X c)^2 over the columns `cols` of X
// by the normal equations (Gaussian elimination with partial pivoting). Returns false when
// singular.
bool wls(const std::vector<std::array<double, 4>>& X, const std::vector<double>& y, const std::vector<double>& w,
         const std::vector<int>& cols, std::vector<double>* c, double* rss) {
  const size_t p = cols.size();
  std::vector<std::vector<double>> A(p, std::vector<double>(p + 1, 0));
  for (size_t i = 0; i < X.size(); ++i)
    for (size_t r = 0; r < p; ++r) {
      for (size_t q = 0; q < p; ++q) A[r][q] += w[i] * X[i][cols[r]] * X[i][cols[q]];
      A[r][p] += w[i] * X[i][cols[r]] * y[i];
    }
  for (size_t col = 0; col < p; ++col) {
    size_t piv = col;
    for (size_t r = col + 1; r < p; ++r)
      if (std::fabs(A[r][col]) > std::fabs(A[piv][col])) piv = r;
    if (std::fabs(A[piv][col]) < 1e-300) return false;
    std::swap(A[col], A[piv]);
    for (size_t r = 0; r < p; ++r) {
      if (r == col) continue;
      const double f = A[r][col] / A[col][col];
      for (size_t q = col; q <= p; ++q) A[r][q] -= f * A[col][q];
    }
  }
  c->assign(p, 0);
  for (size_t r = 0; r < p; ++r) (*c)[r] = A[r][p] / A[r][r];
  *rss = 0;
  for (size_t i = 0; i < X.size(); ++i) {
    double pred = 0;
    for (size_t r = 0; r < p; ++r) pred += X[i][cols[r]] * (*c)[r];
    *rss += w[i] * (y[i] - pred) * (y[i] - pred);
  }
  return true;
}
}  // namespace

RoleFit fit_gemm_efficiency_roles(const std::vector<double>& m, const std::vector<double>& n, const std::vector<double>& k,
                                  const std::vector<double>& e) {
  if (e.empty() || m.size() != e.size() || n.size() != e.size() || k.size() != e.size())
    throw Error("GEMM efficiency fit needs at least one shape");
  std::vector<std::array<double, 4>> X;
  std::vector<double> y, w;
  for (size_t i = 0; i < e.size(); ++i) {
    if (!(e[i] > 0) || !(m[i] > 0) || !(n[i] > 0) || !(k[i] > 0)) throw Error("GEMM efficiency fit: non-positive efficiency or dimension");
    X.push_back({1.0, 1 / m[i], 1 / n[i], 1 / k[i]});
    y.push_back(1 / e[i]);
    w.push_back(e[i] * e[i]);
  }
  // Non-negative half-dimensions: the best-fitting subset of the three 1/dimension terms whose
  // coefficients all come out non-negative (8 subsets; the constant term is always kept).
  double best_rss = INFINITY;
  std::vector<double> best(4, 0);
  for (int mask = 0; mask < 8; ++mask) {
    std::vector<int> cols = {0};
    for (int t = 0; t < 3; ++t)
      if (mask >> t & 1) cols.push_back(t + 1);
    if (cols.size() > e.size()) continue;
    std::vector<double> c;
    double rss = 0;
    if (!wls(X, y, w, cols, &c, &rss)) continue;
    bool ok = c[0] > 0;
    for (size_t r = 1; r < c.size(); ++r) ok = ok && c[r] >= 0;
    if (!ok || rss >= best_rss * (1 - 1e-12)) continue;
    best_rss = rss;
    best.assign(4, 0);
    for (size_t r = 0; r < cols.size(); ++r) best[static_cast<size_t>(cols[r])] = c[r];
  }
  if (!std::isfinite(best_rss)) throw Error("GEMM efficiency fit failed (degenerate shapes)");
  RoleFit f;
  f.f = 1 / best[0];
  // 1/e = a + b_m/m + ...; with a = 1/f and b_m = h_m / (3 f): h_m = 3 b_m / a.
  f.h_m = 3 * best[1] / best[0];
  f.h_n = 3 * best[2] / best[0];
  f.h_k = 3 * best[3] / best[0];
  return f;
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
                "run `sextant bench --suite gemm_cpu` first");
  std::map<std::string, std::vector<GemmPoint>> by_dtype;
  std::map<std::string, std::string> peak_source;
  std::vector<std::string> dtypes;
  for (const auto& m : run.measurements) {
    if (m.suite != suite || m.metric != "flops_per_s") continue;
    GemmPoint p;
    p.dtype = m.param("dtype");
    const auto given = opt.peak_flops_by_dtype.find(p.dtype);
    if (m.has_param("peak_flops_per_s")) {
      p.peak_flops_per_s = m.param_f64("peak_flops_per_s");
    } else if (given != opt.peak_flops_by_dtype.end()) {
      p.peak_flops_per_s = given->second;
    } else {
      continue;
    }
    p.m = m.param_f64("m");
    p.n = m.param_f64("n");
    p.k = m.param_f64("k");
    if (!(p.peak_flops_per_s > 0)) continue;
    // Achievable rate: the best repetition (interference from other work only slows a run down).
    p.achieved_flops_per_s = m.summary().max;
    p.efficiency_fraction = p.achieved_flops_per_s / p.peak_flops_per_s;
    const double hi = std::max({p.m, p.n, p.k}), lo = std::min({p.m, p.n, p.k});
    p.held_out = (opt.max_fit_dim > 0 && hi > opt.max_fit_dim) || (opt.max_fit_skew > 0 && hi / lo > opt.max_fit_skew);
    if (!by_dtype.count(p.dtype)) dtypes.push_back(p.dtype);
    peak_source[p.dtype] = m.has_param("peak_source") ? m.param("peak_source") : opt.peak_source;
    by_dtype[p.dtype].push_back(p);
  }
  if (dtypes.empty())
    throw Error(SourceLocation{"", 0, 0, "RUN"}, "the run's GEMM measurements carry no peak FLOP/s to fit efficiencies against",
                "pass --peak-from ACCELERATOR_ID to take the peaks from the catalog");
  for (const auto& dt : dtypes) {
    auto& pts = by_dtype[dt];
    std::vector<double> vm, vn, vk, e;
    for (const auto& p : pts)
      if (!p.held_out) {
        vm.push_back(p.m);
        vn.push_back(p.n);
        vk.push_back(p.k);
        e.push_back(p.efficiency_fraction);
      }
    if (e.size() < 4)
      throw Error(SourceLocation{"", 0, 0, "--max-fit-dim"},
                  fmt::format("{}: only {} shape(s) left to fit after the hold-out (4 needed)", dt, e.size()),
                  "loosen --max-fit-dim / --max-fit-skew");
    GemmFit f;
    f.dtype = dt;
    f.peak_flops_per_s = pts.front().peak_flops_per_s;
    f.peak_source = peak_source[dt];
    // The per-role model (diagnostic: how asymmetric this BLAS is) and the catalog's model, which
    // is what the written entry means to `estimate`; predictions and hold-out errors use the latter.
    const RoleFit rf = fit_gemm_efficiency_roles(vm, vn, vk, e);
    f.half_dim_m = rf.h_m;
    f.half_dim_n = rf.h_n;
    f.half_dim_k = rf.h_k;
    const auto [cf, ch] = fit_catalog_gemm_model(vm, vn, vk, e);
    f.gemm_peak_fraction = cf;
    f.gemm_half_dim = ch;
    double ss = 0;
    for (auto& p : pts) {
      p.predicted_efficiency_fraction = f.gemm_peak_fraction * gemm_shape_factor(p.m, p.n, p.k, f.gemm_half_dim);
      p.role_predicted_efficiency_fraction = gemm_efficiency_roles(rf.f, rf.h_m, rf.h_n, rf.h_k, p.m, p.n, p.k);
      p.role_error_fraction = p.role_predicted_efficiency_fraction / p.efficiency_fraction - 1;
      p.error_fraction = p.predicted_efficiency_fraction / p.efficiency_fraction - 1;
      if (p.held_out) {
        ++f.held_out_count;
        f.held_out_max_error_fraction = std::max(f.held_out_max_error_fraction, std::fabs(p.error_fraction));
      } else {
        ++f.fitted_count;
        ss += p.error_fraction * p.error_fraction;
      }
      c.points.push_back(p);
    }
    f.fit_rms_error_fraction = std::sqrt(ss / static_cast<double>(f.fitted_count));
    c.gemm.push_back(f);
  }
  // Memory bandwidth: best median over the multi-threaded STREAM kernels (all threads).
  int best_threads = 0;
  for (const auto& m : run.measurements)
    if (m.suite == "memory_bandwidth" && m.metric == "bytes_per_s") best_threads = std::max(best_threads, static_cast<int>(m.param_f64("threads")));
  for (const auto& m : run.measurements) {
    if (m.suite != "memory_bandwidth" || m.metric != "bytes_per_s" || static_cast<int>(m.param_f64("threads")) != best_threads) continue;
    const double v = m.summary().median;
    if (v > c.memory_bandwidth_bytes_per_s) {
      c.memory_bandwidth_bytes_per_s = v;
      c.memory_case = m.name;
    }
  }
  // Network: ping-pong alpha-beta fit, all-reduce busbw at the largest size.
  std::vector<double> sizes, times;
  int64_t ar_size = 0;
  for (const auto& m : run.measurements) {
    if (!m.has_param("collective")) continue;
    const std::string coll = m.param("collective");
    if (coll == "pingpong" && m.metric == "latency_s") {
      sizes.push_back(m.param_f64("size_bytes"));
      times.push_back(m.summary().median);
      c.network.ranks = static_cast<int64_t>(m.param_f64("ranks"));
    } else if (coll == "all_reduce" && m.metric == "busbw_bytes_per_s") {
      const auto s = static_cast<int64_t>(m.param_f64("size_bytes"));
      if (s >= ar_size) {
        ar_size = s;
        c.network.all_reduce_busbw_bytes_per_s = m.summary().median;
      }
    }
  }
  if (sizes.size() >= 2) {
    fit_latency_bandwidth(sizes, times, c.network);
    if (c.network.present && c.network.all_reduce_busbw_bytes_per_s > 0)
      c.network.achievable_fraction = c.network.all_reduce_busbw_bytes_per_s / c.network.bandwidth_bytes_per_s;
  }

  // The catalog file.
  const std::string run_ref = fmt::format("sextant bench run {} ({}) on host {} [{}]", run.id, run.started_at,
                                          run.host.hostname, run.host.fingerprint());
  const std::string name = opt.name.empty() ? run.host.cpu.model + " (calibrated)" : opt.name;
  std::string y;
  y += "# Written by `sextant calibrate` from " + run_ref + ".\n";
  y += "# GEMM efficiency model (the one estimate uses, catalog.hpp gemm_shape_factor): achieved = peak x gemm_peak_fraction x\n"
       "#   prod over x in (m, n, k) of min(1, [x/(x + gemm_half_dim)] / [8192/(8192 + gemm_half_dim)]).\n";
  for (const auto& f : c.gemm)
    y += fmt::format("# {}: diagnostic per-role fit h_m = {:.1f}, h_n = {:.1f}, h_k = {:.1f} (1/e = (1/f)(1 + (h_m/m + h_n/n + h_k/k)/3)).\n",
                     f.dtype, f.half_dim_m, f.half_dim_n, f.half_dim_k);
  y += "sources:\n";
  y += "  bench-run: " + q(run_ref) + "\n";
  if (!opt.memory_peak_source.empty()) y += "  memory-peak: " + q(opt.memory_peak_source) + "\n";
  y += "entries:\n";
  y += "  - id: " + q(opt.id) + "\n";
  y += "    name: " + q(name) + "\n";
  y += "    vendor: " + q(suite == "gpu" ? "nvidia" : vendor_of(run.host.cpu.model)) + "\n";
  y += "    kind: " + std::string(suite == "gpu" ? "gpu" : "cpu") + "\n";
  y += "    peak_tflops:\n";
  for (const auto& f : c.gemm) y += "      " + f.dtype + ": " + estimated(f.peak_flops_per_s / 1e12, f.peak_source) + "\n";
  if (suite == "gemm_cpu" && run.host.memory_bytes > 0)
    y += "    memory_gib: " + sourced(static_cast<double>(run.host.memory_bytes) / (1024.0 * 1024 * 1024), "bench-run") + "\n";
  if (c.memory_bandwidth_bytes_per_s > 0) {
    if (opt.memory_peak_bytes_per_s > 0)
      y += "    memory_bandwidth_gb_per_s: " + sourced(opt.memory_peak_bytes_per_s / 1e9, opt.memory_peak_source.empty() ? "user-supplied peak" : "memory-peak") + "\n";
    else
      y += "    memory_bandwidth_gb_per_s: " +
           estimated(c.memory_bandwidth_bytes_per_s / 1e9, "no published peak given: the measured achievable bandwidth (" + c.memory_case + ")") + "\n";
  }
  if (suite == "gemm_cpu" && run.host.l3_bytes > 0)
    y += "    cache_mib: " + sourced(static_cast<double>(run.host.l3_bytes) / (1024.0 * 1024), "bench-run") + "\n";
  if (suite == "gemm_cpu" && run.host.cpu.logical_cpus > 0)
    y += "    compute_units: " + sourced(run.host.cpu.logical_cpus, "bench-run") + "\n";
  y += "    efficiency:\n";
  y += "      gemm_peak_fraction:\n";
  for (const auto& f : c.gemm)
    y += "        " + f.dtype + ": " +
         sourced(f.gemm_peak_fraction, fmt::format("bench-run: fit over {} shapes, rms error {:.3f}", f.fitted_count, f.fit_rms_error_fraction)) + "\n";
  // One half-dimension for the entry: bf16's fit when there is one (the dtype the training and
  // inference models use), else the first dtype's.
  const GemmFit* primary = &c.gemm.front();
  for (const auto& f : c.gemm)
    if (f.dtype == "bf16" && f.fitted_count >= primary->fitted_count) primary = &f;
  y += "      gemm_half_dim: " + sourced(primary->gemm_half_dim, "bench-run: fit of " + primary->dtype + " GEMMs") + "\n";
  if (c.memory_bandwidth_bytes_per_s > 0) {
    if (opt.memory_peak_bytes_per_s > 0)
      y += "      memory_bandwidth_fraction: " + sourced(c.memory_bandwidth_bytes_per_s / opt.memory_peak_bytes_per_s, "bench-run: " + c.memory_case) + "\n";
    else
      y += "      memory_bandwidth_fraction: " + estimated(1.0, "memory_bandwidth_gb_per_s is already the achievable figure") + "\n";
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
    n += "    bandwidth_gb_per_s: " +
         sourced(c.network.bandwidth_bytes_per_s / 1e9, fmt::format("bench-run: ping-pong fit over {} sizes, rms error {:.3f}", c.network.points, c.network.fit_rms_error_fraction)) + "\n";
    n += "    latency_us: " + sourced(c.network.latency_s * 1e6, "bench-run: ping-pong fit intercept") + "\n";
    if (c.network.achievable_fraction > 0)
      n += "    achievable_fraction: " + sourced(c.network.achievable_fraction, "bench-run: largest all_reduce busbw / ping-pong bandwidth") + "\n";
    c.network_yaml = n;
  }
  return c;
}

Result calibration_result(const Calibration& c, const RunRecord& run, const CalibrateOptions& opt) {
  Result r;
  r.command = "calibrate";
  r.set("run_id", run.id);
  r.set("id", opt.id);
  for (const auto& f : c.gemm) {
    r.set("gemm_peak_fraction_" + f.dtype, f.gemm_peak_fraction);
    r.set("gemm_half_dim_" + f.dtype, f.gemm_half_dim);
    r.set("half_dim_m_" + f.dtype, f.half_dim_m);
    r.set("half_dim_n_" + f.dtype, f.half_dim_n);
    r.set("half_dim_k_" + f.dtype, f.half_dim_k);
    r.set("fit_rms_error_fraction_" + f.dtype, f.fit_rms_error_fraction);
    if (f.held_out_count) r.set("held_out_max_error_fraction_" + f.dtype, f.held_out_max_error_fraction);
  }
  if (c.memory_bandwidth_bytes_per_s > 0) r.set("memory_bandwidth_bytes_per_s", c.memory_bandwidth_bytes_per_s);
  if (c.network.present) {
    r.set("network_latency_s", c.network.latency_s);
    r.set("network_bandwidth_bytes_per_s", c.network.bandwidth_bytes_per_s);
    r.set("all_reduce_busbw_bytes_per_s", c.network.all_reduce_busbw_bytes_per_s);
  }
  Table& t = r.add_table("gemm_fit", "measured vs model efficiency per shape (held-out shapes were not fitted)");
  t.add_str("dtype");
  t.add_i64("m");
  t.add_i64("n");
  t.add_i64("k");
  t.add_f64("achieved_flops_per_s");
  t.add_f64("efficiency_fraction");
  t.add_f64("predicted_efficiency_fraction");
  t.add_f64("error_fraction");
  t.add_f64("role_model_predicted_efficiency_fraction");
  t.add_f64("role_model_error_fraction");
  t.add_str("role");
  for (const auto& p : c.points)
    t.add_row({p.dtype, static_cast<int64_t>(p.m), static_cast<int64_t>(p.n), static_cast<int64_t>(p.k), p.achieved_flops_per_s,
               p.efficiency_fraction, p.predicted_efficiency_fraction, p.error_fraction, p.role_predicted_efficiency_fraction,
               p.role_error_fraction, std::string(p.held_out ? "held-out" : "fitted")});
  return r;
}

}  // namespace sextant::bench
