// Calibration from a profiler trace: GEMM efficiency per shape from the workload analysis'
// `roofline` table, collective bus bandwidth per size from the `collectives` table (see
// calibrate.hpp for the contract).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "bench/calibrate/calibrate.hpp"

#include <tuple>
#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "core/yaml_reader.hpp"
#include "estimate/estimate.hpp"

namespace sextant::bench {

namespace {

std::string q(const std::string& s) { return nlohmann::json(s).dump(); }
std::string sourced(double v, const std::string& source) { return fmt::format("{{value: {}, source: {}}}", format_double(v), q(source)); }

double prod(const std::vector<double>& v, size_t from, size_t to) {
  double p = 1;
  for (size_t i = from; i < to && i < v.size(); ++i) p *= v[i];
  return p;
}

const Table& need_table(const Result& r, const std::string& name, const std::string& hint) {
  const Table* t = r.table(name);
  if (!t) throw Error(SourceLocation{"", 0, 0, "--trace"}, "the trace analysis has no '" + name + "' table", hint);
  return *t;
}

// The entry written, as the catalog loads it.
Accelerator parse_written_entry(const std::string& text) {
  auto file = YamlMap::load_string(text, "calibrated accelerator");
  std::map<std::string, std::string> sources;
  if (auto s = file.opt_map("sources")) {
    for (const auto& k : s->keys()) sources[k] = s->str(k);
    s->finish();
  }
  auto entries = file.map_list("entries");
  if (entries.size() != 1) throw Error(SourceLocation{"", 0, 0, "--trace"}, "the calibrated entry does not parse as one accelerator");
  Accelerator a = parse_accelerator(entries.front(), sources);
  file.finish();
  return a;
}

}  // namespace

bool gemm_shape_of(const std::string& op, const std::string& input_dims_json, double& m, double& n, double& k, double& batch) {
  std::vector<std::vector<double>> d;
  try {
    const auto j = nlohmann::json::parse(input_dims_json);
    if (!j.is_array()) return false;
    for (const auto& a : j) {
      std::vector<double> v;
      if (a.is_array())
        for (const auto& x : a)
          if (x.is_number()) v.push_back(x.get<double>());
      d.push_back(v);
    }
  } catch (const nlohmann::json::exception&) {
    return false;
  }
  auto rank = [&](size_t i, size_t r) { return i < d.size() && d[i].size() == r; };
  batch = 1;
  if (op == "aten::mm" && rank(0, 2) && rank(1, 2)) {
    m = d[0][0], k = d[0][1], n = d[1][1];
  } else if (op == "aten::addmm" && rank(1, 2) && rank(2, 2)) {
    m = d[1][0], k = d[1][1], n = d[2][1];
  } else if (op == "aten::bmm" && rank(0, 3) && rank(1, 3)) {
    batch = d[0][0], m = d[0][1], k = d[0][2], n = d[1][2];
  } else if (op == "aten::baddbmm" && rank(1, 3) && rank(2, 3)) {
    batch = d[1][0], m = d[1][1], k = d[1][2], n = d[2][2];
  } else if (op == "aten::linear" && d.size() >= 2 && !d[0].empty() && rank(1, 2)) {
    m = prod(d[0], 0, d[0].size() - 1), k = d[0].back(), n = d[1][0];  // y = x W^T, W is (n x k)
  } else if (op == "aten::matmul" && d.size() >= 2 && d[0].size() >= 2 && d[1].size() >= 2) {
    const auto& a = d[0];
    const auto& b = d[1];
    m = a[a.size() - 2], k = a.back(), n = b.back();
    batch = std::max(prod(a, 0, a.size() - 2), prod(b, 0, b.size() - 2));
  } else {
    return false;
  }
  return m > 0 && n > 0 && k > 0 && batch > 0;
}

static double by_dtype_peak(const Accelerator& a, const std::string& dtype) {
  try {
    return a.peak(parse_dtype(dtype, {}));
  } catch (const Error&) {
    return 0;
  }
}

Calibration calibrate_from_trace(const Result& analysis, const Accelerator& base, const TraceCalibrateOptions& opt) {
  Calibration c;
  const Table& rt = need_table(analysis, "roofline", "the trace needs operator shapes (profile with record_shapes=True)");
  const auto& op = rt.column("op").str;
  const auto& dims = rt.column("input_dims").str;
  const auto& dtype = rt.column("dtype").str;
  // Each row's kernel time and calls (analyze's gpu_time_us over calls_count), divided into the
  // FLOPs of 2mnk x batch here: analyze's achieved_flops_per_s counts addmm's and baddbmm's bias
  // add too (2mkn + mn), and paired with 2mnk it had shortened the recovered kernel time by
  // 2mnk / (2mnk + mn) (dlrm_8rank's 16x256x13 addmm at 1.382e10 FLOP/s for 1.331e10; 2026-12-07 review).
  const auto& calls_count = rt.column("calls_count").i64;
  const auto& gpu_time_us = rt.column("gpu_time_us").f64;
  auto calls_of = [&](size_t i) { return static_cast<double>(calls_count[i]); };
  auto timed = [&](size_t i) { return calls_of(i) > 0 && gpu_time_us[i] > 0 && std::isfinite(gpu_time_us[i]); };
  std::map<std::string, std::vector<GemmPoint>> by_dtype;
  std::vector<std::string> dtypes;
  // The per-kernel overhead estimate adds to every op on the entry: the base's, else estimate's
  // default, read through estimate itself. The entry keeps it (written below): it stands for the
  // launch and the gap between kernels as well as a kernel's own fixed time, and the ops the trace
  // does not measure (elementwise, norms) need it. A traced kernel's duration holds only the last
  // part, so the GEMM model is fitted to the kernel times with a fixed time per call of its own,
  // kernel_s = flops / (peak x f x factor) + t0, t0 in [0, that overhead] (fitted as the bench
  // path fits its overhead): a trace whose GEMMs carry the whole overhead in their kernels is
  // reproduced by estimate exactly, and one whose kernels carry none is not fitted as if they did.
  // Before 2026-12-07 (review) t0 was the whole overhead, always: a trace of GEMMs all at 0.606 of
  // the peak then needed 0.84 for its 14 us kernels less 4 us, which the shape factor (at most 1
  // below 8192^3) cannot give, and with every shape weighted alike the fit wrote 0.6985, predicting
  // 8192^3 14.9% fast. Before 2026-12-05 t0 was 0 and the 4 us were added on top (a 16384x768x768
  // GEMM traced at 58.6 us was estimated at 62.6).
  ir::ComputeOp probe;
  probe.cls = ir::OpClass::Elementwise;
  const double overhead_s = compute_time(probe, base).overhead_s;
  // Every GEMM shape the trace has, per dtype as traced (m, n, k in order of appearance), and the
  // dtypes of no peak on the base: named when too few are left to fit (2026-12-06 review).
  std::map<std::string, std::vector<std::array<double, 3>>> found_shapes;
  std::vector<std::string> found_dtypes;
  std::set<std::string> no_peak_dtypes;
  // One point per (dtype, shape): the same shape under two operators (aten::addmm and aten::mm,
  // aten::linear and aten::mm) is one point of the shape model, its calls and kernel time summed.
  // Before 2026-12-07 (review) each (operator, shape) row was a point, and h200_gpt2_train_trace's
  // 12 bf16 shapes were fitted and reported as 15.
  struct Timed {
    double batch = 1, calls = 0, time_s = 0;
  };
  std::map<std::string, std::vector<std::pair<GemmPoint, Timed>>> rows_by_dtype;
  for (size_t i = 0; i < rt.rows(); ++i) {
    GemmPoint p;
    double batch = 1;
    if (!gemm_shape_of(op[i], dims[i], p.m, p.n, p.k, batch)) continue;
    if (timed(i)) {
      auto& shapes = found_shapes[dtype[i]];
      if (shapes.empty()) found_dtypes.push_back(dtype[i]);
      const std::array<double, 3> shape = {p.m, p.n, p.k};
      if (std::find(shapes.begin(), shapes.end(), shape) == shapes.end()) shapes.push_back(shape);
    }
    DType dt;
    try {
      dt = parse_dtype(dtype[i], {});
    } catch (const Error&) {
      no_peak_dtypes.insert(dtype[i]);
      continue;  // unknown dtype: no peak to compare with
    }
    if (!base.has_peak(dt)) no_peak_dtypes.insert(dtype[i]);
    if (!base.has_peak(dt) || !timed(i)) continue;
    p.dtype = dtype[i];
    p.peak_flops_per_s = base.peak(dt);
    p.flops_per_call = 2 * p.m * p.n * p.k * batch;
    auto& v = rows_by_dtype[p.dtype];
    auto same = std::find_if(v.begin(), v.end(), [&](const auto& x) {
      return x.first.m == p.m && x.first.n == p.n && x.first.k == p.k && x.second.batch == batch;
    });
    if (same == v.end()) {
      if (v.empty()) dtypes.push_back(p.dtype);
      v.push_back({p, Timed{batch, 0, 0}});
      same = std::prev(v.end());
    }
    same->second.calls += calls_of(i);
    same->second.time_s += gpu_time_us[i] * 1e-6;
  }
  for (const auto& dt : dtypes)
    for (auto& [p, t] : rows_by_dtype[dt]) {
      p.achieved_flops_per_s = p.flops_per_call * t.calls / t.time_s;
      p.traced_time_s = t.time_s;
      p.efficiency_fraction = p.achieved_flops_per_s / p.peak_flops_per_s;
      by_dtype[dt].push_back(p);
    }
  // fp32 matmuls faster than the fp32 peak ran on TF32 tensor cores (allow_tf32): compare all of
  // that dtype's points with the TF32 peak and fit them as tf32.
  if (by_dtype.count("fp32") && base.has_peak(DType::TF32)) {
    auto& v = by_dtype["fp32"];
    const bool above = std::any_of(v.begin(), v.end(), [](const GemmPoint& p) { return p.efficiency_fraction > 1.0; });
    if (above && !by_dtype.count("tf32")) {
      for (auto& p : v) {
        p.dtype = "tf32";
        p.peak_flops_per_s = base.peak(DType::TF32);
        p.efficiency_fraction = p.achieved_flops_per_s / p.peak_flops_per_s;
      }
      by_dtype["tf32"] = std::move(v);
      by_dtype.erase("fp32");
      std::replace(dtypes.begin(), dtypes.end(), std::string("fp32"), std::string("tf32"));
    }
  }
  // Each dtype's own fit (fraction and half-dimension) is reported; the entry carries one
  // half-dimension, fitted jointly below, and every dtype's fraction under it, so the written
  // entry reproduces the rates the result table reports (fractions fitted under their own
  // half-dimensions and written beside another's predicted 0.022 where 0.445 was measured).
  // Each dtype's points (traced efficiencies over the whole kernel time) and fit terms: the calls'
  // time at the peak, the fixed time per call t0 (above), and each shape weighted by its share of
  // the traced GEMM time, the long ones capped (GemmFitTerms) and a long one far below the others
  // left out as an outlier (find_gemm_outliers, below): what a step is made of is fitted first.
  struct OwnFit {
    std::string dtype;
    double f = 0, h = 0;
    std::vector<double> m, n, k, e;
    std::vector<double> time_s;  // each shape's traced time (its weight)
    size_t shapes = 0;           // the points traced, outliers included
    GemmFitTerms terms;
  };
  std::vector<OwnFit> own;
  // Traced dtypes whose fraction is not written, and why: noted once the entry is written, with the
  // fraction it gives them. Before 2026-12-07 (review) a dtype of too few shapes was dropped without
  // a word, and one that could not share the half-dimension was said to keep "the base's" fraction
  // where the base had none (estimate reads it at another dtype's).
  std::vector<std::pair<std::string, std::string>> unwritten;  // (dtype, why)
  auto shapes_text = [](const std::set<std::array<double, 3>>& shapes) {
    std::string list;
    size_t i = 0;
    for (const auto& s : shapes) {
      if (i == 8) break;
      list += fmt::format("{}{:g}x{:g}x{:g}", i++ ? ", " : "", s[0], s[1], s[2]);
    }
    if (shapes.size() > 8) list += fmt::format(" and {} more", shapes.size() - 8);
    return list;
  };
  for (const auto& dt : dtypes) {
    auto& pts = by_dtype[dt];
    // A rate above the peak is a misattributed row (kernel time given to the wrong operator), not
    // a measurement: it is left out of the fit rather than fitted into a fraction above 1.
    const size_t before = pts.size();
    pts.erase(std::remove_if(pts.begin(), pts.end(), [](const GemmPoint& p) { return p.efficiency_fraction > 1.0; }), pts.end());
    // Most shapes above the peak is a wrong device, not misattribution: refused, naming the
    // device (4 of an H200 trace's 34 shapes were fitted against an H100 PCIe's peak, unsaid;
    // 2026-12-04 review). A few are left out with a note.
    if (const size_t above = before - pts.size(); above > 0) {
      if (2 * above > before)
        throw Error(SourceLocation{"", 0, 0, "--device"},
                    fmt::format("{} of the trace's {} {} GEMM shapes run faster than {}'s {} peak ({:.0f} TFLOP/s): the trace did not run "
                                "on this device",
                                above, before, dt, base.id, dt, by_dtype_peak(base, dt) / 1e12),
                    "give --device the GPU the trace ran on; analyze names it in workload_trace_device_name");
      c.notes.push_back(fmt::format("{} of the {} {} GEMM shapes ran faster than {}'s {} peak and are left out of the fit "
                                    "(kernel time attributed to another operator)",
                                    above, before, dt, base.id, dt));
    }
    // Distinct shapes: one shape under two operators (aten::mm and aten::linear) is one point of
    // the shape model (2026-12-06 review: two shapes, each twice, had been fitted as four; the
    // points are merged per shape above since 2026-12-07, a batched one apart from its batch of 1).
    std::set<std::array<double, 3>> distinct;
    for (const auto& p : pts) distinct.insert({p.m, p.n, p.k});
    if (static_cast<int>(distinct.size()) < opt.min_shapes) {
      unwritten.push_back({dt, fmt::format("the trace's {} GEMMs are not fitted: {} distinct shape(s) left to fit ({}), fewer than the {} "
                                           "the model needs, so their fraction is not written",
                                           dt, distinct.size(), shapes_text(distinct), opt.min_shapes)});
      continue;
    }
    OwnFit o;
    o.dtype = dt;
    std::vector<double>& time_s = o.time_s;
    for (const auto& p : pts) {
      o.m.push_back(p.m);
      o.n.push_back(p.n);
      o.k.push_back(p.k);
      o.e.push_back(p.efficiency_fraction);
      o.terms.peak_time_s.push_back(p.flops_per_call / p.peak_flops_per_s);
      o.terms.memory_units.push_back(0.0);
      time_s.push_back(p.traced_time_s);
    }
    o.terms.weight = gemm_time_weights(time_s);
    o.terms.capped = gemm_time_capped(time_s);
    o.shapes = o.e.size();
    own.push_back(std::move(o));
  }
  // The fixed time per call t0, fitted on the dtype of the most shapes (bf16 on a tie) and shared
  // by every dtype (the kernels' launch-independent time does not depend on the dtype).
  const OwnFit* lead = nullptr;
  for (const auto& o : own)
    if (!lead || o.e.size() > lead->e.size() || (o.dtype == "bf16" && o.e.size() >= lead->e.size())) lead = &o;
  c.trace_kernel_fixed_time_s = lead ? fit_gemm_overhead(lead->m, lead->n, lead->k, lead->e, lead->terms, overhead_s) : 0.0;
  for (auto& o : own) {
    o.terms.overhead_s = c.trace_kernel_fixed_time_s;
    // A long shape far below the rate the others give it is left out as an outlier, named in a note
    // (kGemmOutlierFraction). Before 2026-12-07 (review) it was capped like every long shape and held
    // the others at its rate: eight shapes at 600 TFLOP/s but one at 300 (29% of the time) were
    // fitted to 0.312, the seven -48.5%; on HTA's sampled_rank-0, one tf32 shape at 0.156 of the
    // peak held 512x8192x8192 at -74% and the fitted GEMM time at 5.2x the traced.
    auto& pts = by_dtype[o.dtype];
    const auto outliers = find_gemm_outliers(o.m, o.n, o.k, o.e, o.time_s, o.terms, static_cast<size_t>(std::max(opt.min_shapes, 1)));
    if (!outliers.empty()) {
      for (const GemmOutlier& out : outliers) {
        pts[out.index].outlier = true;
        pts[out.index].outlier_reference_efficiency_fraction = pts[out.index].efficiency_fraction * (1 + out.error_fraction);
      }
      OwnFit kept;
      kept.dtype = o.dtype;
      kept.shapes = o.shapes;
      kept.terms.overhead_s = o.terms.overhead_s;
      for (size_t i = 0; i < o.e.size(); ++i) {
        if (pts[i].outlier) continue;
        kept.m.push_back(o.m[i]);
        kept.n.push_back(o.n[i]);
        kept.k.push_back(o.k[i]);
        kept.e.push_back(o.e[i]);
        kept.time_s.push_back(o.time_s[i]);
        kept.terms.peak_time_s.push_back(o.terms.peak_time_s[i]);
        kept.terms.memory_units.push_back(o.terms.memory_units_of(i));
      }
      kept.terms.weight = gemm_time_weights(kept.time_s);
      kept.terms.capped = gemm_time_capped(kept.time_s);
      o = std::move(kept);
      // The fixed time per call again, without the outliers.
      if (&o == lead) c.trace_kernel_fixed_time_s = fit_gemm_overhead(lead->m, lead->n, lead->k, lead->e, lead->terms, overhead_s);
    }
  }
  for (auto& o : own) {
    o.terms.overhead_s = c.trace_kernel_fixed_time_s;
    std::tie(o.f, o.h) = fit_catalog_gemm_model(o.m, o.n, o.k, o.e, o.terms);
  }
  // One half-dimension for every dtype (the entry's model has one): h minimises the summed
  // weighted squared log error over all dtypes' shapes, each dtype with its own fraction (given h,
  // gemm_fit_log_rss's, fractions above 1 reported rather than rejected). A log grid over
  // [0.1, 1e5] refined by golden section, as fit_catalog_gemm_model does for one dtype.
  auto fraction_at = [](const OwnFit& o, const GemmHalfDims& h, double* rss) {
    double f = 0;
    const double r = gemm_fit_log_rss(o.m, o.n, o.k, o.e, h, o.terms, &f, false);
    if (rss) *rss = r;
    return f;
  };
  auto joint_fit = [&](const std::vector<const OwnFit*>& set) {
    auto joint_rss = [&](double h) {
      double total = 0;
      for (const OwnFit* o : set) {
        double r = 0;
        fraction_at(*o, GemmHalfDims{h, h, h}, &r);
        total += r;
      }
      return total;
    };
    double joint_h = set.front()->h;
    if (set.size() == 1) return joint_h;
    double best = joint_rss(joint_h);
    for (int i = 0; i <= 120; ++i) {
      const double h = std::exp(std::log(0.1) + (std::log(1e5) - std::log(0.1)) * i / 120.0);
      const double v = joint_rss(h);
      if (v < best) {
        best = v;
        joint_h = h;
      }
    }
    double lo = std::log(joint_h) - 0.12, hi = std::log(joint_h) + 0.12;
    const double g = (std::sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 40; ++it) {
      const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
      if (joint_rss(std::exp(x1)) < joint_rss(std::exp(x2))) hi = x2;
      else lo = x1;
    }
    if (joint_rss(std::exp((lo + hi) / 2)) < best) joint_h = std::exp((lo + hi) / 2);
    return joint_h;
  };
  // The entry's one set of half-dimensions is also the one the base's dtypes that the trace did not
  // measure are read under (their fractions are carried). It stays the base's unless the trace has
  // GEMMs of the base's main dtype, the one those half-dimensions stand for (bf16 on a GPU): the
  // traced dtypes' fractions are then fitted under the base's, so that every GEMM the trace did not
  // measure keeps the base's rate. Before 2026-12-05 an fp32-only trace wrote its own
  // half-dimension (200) over an H200's 1024, and the carried bf16 fraction, read under it, changed
  // every bf16 GEMM time. A traced dtype that cannot share the base's (its fraction under them
  // leaves (0, 1]) keeps the base's fraction; where none can, the trace's half-dimension is written
  // and a note says which of the base's dtypes it changes (the model has one for all dtypes).
  const std::string main_dtype = base_main_dtype(base);
  const bool covers_main =
      main_dtype.empty() || std::any_of(own.begin(), own.end(), [&](const OwnFit& o) { return o.dtype == main_dtype; });
  const GemmHalfDims base_h = base.gemm_half_dims(128);  // estimate's default where the base gives none
  auto half_dims_text = [](const GemmHalfDims& h) {
    return h.m == h.n && h.n == h.k ? fmt::format("{:.1f}", h.m) : fmt::format("{:.1f}/{:.1f}/{:.1f} (m/n/k)", h.m, h.n, h.k);
  };
  std::vector<const OwnFit*> kept;
  bool keep_base_h = false;
  std::string fallback_reason;  // no traced dtype can share the base's half-dimensions: why
  std::vector<std::string> unshared;  // notes on the traced dtypes that cannot share the base's half-dimensions
  if (!covers_main && !own.empty()) {
    for (const auto& o : own) {
      const double f = fraction_at(o, base_h, nullptr);
      if (f > 0 && f <= 1) kept.push_back(&o);
      else
        unshared.push_back(fmt::format("{} fits {:.3f} of the peak under them ({:.3f} at its own half-dimension {:.1f})", o.dtype, f, o.f, o.h));
    }
    keep_base_h = !kept.empty();
    std::string list;
    for (const auto& u : unshared) list += (list.empty() ? "" : "; ") + u;
    if (keep_base_h) {
      std::string own_fits;
      for (const OwnFit* o : kept) own_fits += fmt::format("{}{} h = {:.1f}", own_fits.empty() ? "" : ", ", o->dtype, o->h);
      c.notes.push_back(fmt::format("the trace has no {} GEMMs: the entry keeps {}'s half-dimension {} (which {} and every other dtype carried "
                                    "from it are read under, so their rates stay {}'s), and the traced fractions are fitted under it (their "
                                    "own fits: {})",
                                    main_dtype, base.id, half_dims_text(base_h), main_dtype, base.id, own_fits));
      for (const auto& o : own)
        if (std::none_of(kept.begin(), kept.end(), [&](const OwnFit* k) { return k == &o; }))
          unwritten.push_back({o.dtype, fmt::format("the {} GEMMs of the trace ({} shapes) fit {:.3f} of the peak under {}'s half-dimension {}, "
                                                    "which the entry keeps ({:.3f} at their own {:.1f}): outside (0, 1], so their fraction is "
                                                    "not written",
                                                    o.dtype, o.e.size(), fraction_at(o, base_h, nullptr), base.id, half_dims_text(base_h), o.f,
                                                    o.h)});
    } else {
      fallback_reason = list;  // the note is written once the trace's half-dimension is known
    }
  }
  // Otherwise one half-dimension for the traced dtypes: a dtype whose fraction under the shared
  // half-dimension leaves (0, 1] cannot share the entry's model (its shapes scale differently: tiny
  // fp32 GEMMs beside large tf32 ones): it is left out, keeps the base's fraction, and the others
  // are refitted without it. The dtype with the most shapes (bf16 on a tie) stays: its own fraction
  // out of range is an error below.
  if (!keep_base_h)
    for (const auto& o : own) kept.push_back(&o);
  const OwnFit* primary_fit = kept.empty() ? nullptr : kept.front();
  for (const OwnFit* o : kept)
    if (o->shapes > primary_fit->shapes || (o->dtype == "bf16" && o->shapes >= primary_fit->shapes)) primary_fit = o;
  double joint_h = 0;
  // Left out of the joint fit: each dtype with the shared half-dimension and its fraction under it
  // when it was left out (the note gives the final half-dimension too: before 2026-12-07 it gave
  // the loop's intermediate 63.3 where the entry was written with 136.4; review).
  std::vector<std::tuple<const OwnFit*, double, double>> left_out;  // (dtype, h, fraction under it)
  while (!keep_base_h && !kept.empty()) {
    joint_h = joint_fit(kept);
    std::vector<const OwnFit*> next;
    for (const OwnFit* o : kept) {
      const double f = fraction_at(*o, GemmHalfDims{joint_h, joint_h, joint_h}, nullptr);
      if (o == primary_fit || (f > 0 && f <= 1)) next.push_back(o);
      else left_out.emplace_back(o, joint_h, f);
    }
    if (next.size() == kept.size()) break;
    kept = std::move(next);
  }
  for (const auto& [o, h_then, f_then] : left_out) {
    std::string others;
    for (const OwnFit* k : kept) others += (others.empty() ? "" : ", ") + k->dtype;
    const double f_final = fraction_at(*o, GemmHalfDims{joint_h, joint_h, joint_h}, nullptr);
    unwritten.push_back(
        {o->dtype, fmt::format("the {} GEMMs of the trace ({} shapes) cannot share the entry's half-dimension with the {} GEMMs: they fit {:.3f} "
                               "of the peak under the joint fit {:.1f} that included them ({:.3f} at their own {:.1f}); the entry is written "
                               "with the {} fit without them, {:.1f}, under which they fit {:.3f}, and their fraction is not written",
                               o->dtype, o->e.size(), others, f_then, h_then, o->f, o->h, others, joint_h, f_final)});
  }
  const GemmHalfDims written_h = keep_base_h ? base_h : GemmHalfDims{joint_h, joint_h, joint_h};
  c.gemm_joint_half_dim = keep_base_h ? base_h.m : joint_h;
  // Where no traced dtype can share them, the trace's half-dimension is written, and the GEMMs of
  // the dtypes carried from the base change with it: said, naming them and by how much.
  if (!fallback_reason.empty() && !kept.empty()) {
    std::string traced_list, carried_list;
    for (const auto& o : own) traced_list += (traced_list.empty() ? "" : ", ") + o.dtype;
    for (const auto& [d, fr] : base.gemm_peak_fraction)
      if (fr.known && std::none_of(own.begin(), own.end(), [&](const OwnFit& o) { return o.dtype == to_string(d); }))
        carried_list += (carried_list.empty() ? "" : ", ") + to_string(d);
    const double ratio = gemm_shape_factor(1024, 1024, 1024, written_h) / gemm_shape_factor(1024, 1024, 1024, base_h);
    c.notes.push_back(fmt::format("the trace has no {} GEMMs, and its {} GEMMs cannot share {}'s half-dimension {} ({}): the entry's "
                                  "half-dimension is the trace's, {:.1f}, and the GEMMs of {} are read under it, so their rates differ "
                                  "from {}'s except at 8192^3 (a 1024^3 GEMM's by {:.2f}x); calibrate from a trace with {} GEMMs to keep them",
                                  main_dtype, traced_list, base.id, half_dims_text(base_h), fallback_reason, joint_h,
                                  carried_list.empty() ? std::string("the dtypes the trace did not measure")
                                                       : carried_list + " (not traced, their fractions carried from " + base.id + ")",
                                  base.id, ratio, main_dtype));
  }
  for (const OwnFit* op : kept) {
    const OwnFit& o = *op;
    auto& pts = by_dtype[o.dtype];
    const GemmHalfDims& h = written_h;
    const double cf = keep_base_h || kept.size() > 1 ? fraction_at(o, h, nullptr) : o.f;
    GemmFit f;
    f.dtype = o.dtype;
    f.peak_flops_per_s = pts.front().peak_flops_per_s;
    f.peak_source = "catalog " + base.id;
    if (!(cf > 0 && cf <= 1))
      throw Error(SourceLocation{"", 0, 0, "--trace"},
                  fmt::format("the {} GEMMs of the trace fit a peak fraction of {:.3f}, outside (0, 1]: not written", o.dtype, cf),
                  "check the device (--device) and the trace's GEMM attribution (analyze --only workload)");
    f.gemm_peak_fraction = cf;
    // The half-dimensions the entry is written with, under which cf is this dtype's fraction; the
    // dtype's own fit (fraction and half-dimension) is kept apart. Before 2026-12-06 (review) the
    // result paired the joint fraction with the dtype's own half-dimension, and the written one was
    // never reported.
    f.gemm_half_dim = h.m;
    f.half_dim_m = h.m;
    f.half_dim_n = h.n;
    f.half_dim_k = h.k;
    f.roles_written = !(h.m == h.n && h.n == h.k);
    f.own_peak_fraction = o.f;
    f.own_half_dim = o.h;
    f.overhead_s = c.trace_kernel_fixed_time_s;
    double ss = 0;
    for (auto& p : pts) {
      // The fitted kernel model (compute plus the fixed time per call) against the traced kernel,
      // and estimate's time of the call on the entry (compute plus the entry's whole overhead).
      const double peak_s = p.flops_per_call / p.peak_flops_per_s;
      const double compute_s = peak_s / (cf * gemm_shape_factor(p.m, p.n, p.k, h));
      p.predicted_efficiency_fraction = peak_s / (compute_s + c.trace_kernel_fixed_time_s);
      p.error_fraction = p.predicted_efficiency_fraction / p.efficiency_fraction - 1;
      p.estimate_efficiency_fraction = peak_s / (compute_s + overhead_s);
      p.estimate_error_fraction = p.estimate_efficiency_fraction / p.efficiency_fraction - 1;
      if (p.outlier) {
        ++f.outlier_count;  // not fitted: named in a note (gemm_far_notes)
      } else {
        ss += p.error_fraction * p.error_fraction;
        ++f.fitted_count;
      }
      c.points.push_back(p);
    }
    f.fit_rms_error_fraction = std::sqrt(ss / static_cast<double>(f.fitted_count));
    {
      std::vector<double> time_s;
      for (const auto& p : pts) time_s.push_back(p.traced_time_s);
      for (auto& note : gemm_far_notes(o.dtype, pts, time_s, "the traced " + o.dtype + " GEMM time")) c.notes.push_back(std::move(note));
    }
    c.gemm.push_back(f);
  }
  if (c.gemm.empty()) {
    // What the trace has, per dtype: its distinct shapes, named (up to 8), and why a dtype of
    // enough shapes is not fitted (2026-12-06 review: the error had said neither).
    std::string found;
    for (const auto& dt : found_dtypes) {
      const auto& shapes = found_shapes[dt];
      std::string list;
      for (size_t i = 0; i < shapes.size() && i < 8; ++i)
        list += fmt::format("{}{:g}x{:g}x{:g}", i ? ", " : "", shapes[i][0], shapes[i][1], shapes[i][2]);
      if (shapes.size() > 8) list += fmt::format(" and {} more", shapes.size() - 8);
      std::string why;
      if (no_peak_dtypes.count(dt)) {
        why = fmt::format("; {} has no {} peak", base.id, dt);
      } else {
        const std::string fitted_as = by_dtype.count(dt) ? dt : dt == "fp32" && by_dtype.count("tf32") ? std::string("tf32") : dt;
        std::set<std::array<double, 3>> left_shapes;
        if (by_dtype.count(fitted_as))
          for (const auto& p : by_dtype[fitted_as]) left_shapes.insert({p.m, p.n, p.k});
        const size_t left = left_shapes.size();
        if (left < shapes.size())
          why = fmt::format("; {} left to fit, the others above the peak", left);
      }
      found += fmt::format("{}{}: {} distinct shape(s) ({}{})", found.empty() ? "" : "; ", dt, shapes.size(), list, why);
    }
    throw Error(SourceLocation{"", 0, 0, "--trace"},
                fmt::format("{} has fewer than {} GEMM shapes of one dtype with a known peak on {}: it has {}",
                            opt.trace_ref.empty() ? std::string("the trace") : "the trace " + opt.trace_ref, opt.min_shapes, base.id,
                            found.empty() ? std::string("none") : found),
                "profile with record_shapes=True over steps that run at least " + std::to_string(opt.min_shapes) +
                    " GEMM shapes of one dtype, and give --device for the GPU it ran on");
  }

  // Collectives: duration = latency + bus bytes / busbw (relative least squares), one fit per
  // operation and bus factor. A row's bus bytes (size x factor) are its bus bandwidth, as the
  // collectives analysis computed it, times its duration: the factor is the one analyze takes
  // from the communicator's size (the trace's "Group size"), so the two cannot disagree. Before
  // 2026-12-06 (review) the factor was recomputed here from the number of traces loaded: two rank
  // traces of a group of 8 all-reducing at 300 GB/s were fitted at 171 GB/s. The bus factor
  // depends on the communicator's size (2(n-1)/n for an all-reduce), so communicators of other
  // sizes, whose rates differ (a TP group on NVLink, a DP group across nodes), are fitted apart
  // (they had been pooled in one fit per operation); the scalars are the fit with the most calls,
  // table collective_fits has every one. A row without a bus bandwidth (no size, a member that
  // skipped it, kernels that do not overlap) is left out, as analyze leaves it without one.
  if (const Table* ct = analysis.table("collectives");
      ct && ct->rows() >= 2 && ct->has_column("bus_bandwidth_bytes_per_s") && ct->has_column("sync_duration_us")) {
    struct Points {
      std::vector<double> x, t;  // bus bytes, seconds
      std::set<std::string> groups;
    };
    std::map<std::pair<std::string, int64_t>, Points> by_kind;  // (operation, bus factor x 1e6) -> calls
    const auto& cop = ct->column("operation").str;
    const auto& size = ct->column("size_bytes").f64;
    const auto& dur = ct->column("sync_duration_us").f64;
    const auto& busbw = ct->column("bus_bandwidth_bytes_per_s").f64;
    const StringVector* group = ct->has_column("process_group") ? &ct->column("process_group").str : nullptr;
    for (size_t i = 0; i < ct->rows(); ++i) {
      const double t = dur[i] * 1e-6;
      if (!(t > 0) || !(size[i] > 0) || !(busbw[i] > 0) || !std::isfinite(busbw[i]) || !std::isfinite(size[i])) continue;
      const double bus_bytes = busbw[i] * t;
      auto& pts = by_kind[{cop[i], std::llround(bus_bytes / size[i] * 1e6)}];
      pts.x.push_back(bus_bytes);
      pts.t.push_back(t);
      if (group) pts.groups.insert((*group)[i]);
    }
    for (const auto& [key, pts] : by_kind) {
      if (pts.x.size() < 2) continue;
      CollectiveFit f;
      f.operation = key.first;
      f.bus_factor = static_cast<double>(key.second) / 1e6;
      f.process_groups.assign(pts.groups.begin(), pts.groups.end());
      fit_latency_bandwidth(pts.x, pts.t, f.fit);
      if (!f.fit.present) continue;
      // Calls of one size (or sizes too close together) do not separate latency from bandwidth:
      // the fit is their mean effective rate, and the latency is not measured (2026-12-06 review:
      // three jittered 64 MB all-reduces had been fitted to 235 us and 2^37 B/s, unsaid).
      if (!f.fit.latency_separated) {
        const auto [lo, hi] = std::minmax_element(pts.x.begin(), pts.x.end());
        c.notes.push_back(fmt::format("the {} {} calls at bus factor {:.4g} span {} message size(s), {:.4g} to {:.4g} bus bytes (less than a "
                                      "factor of {:g}): latency and bus bandwidth cannot be told apart, so the bus bandwidth reported is "
                                      "their mean effective rate, {:.4g} GB/s, latency included, and the latency is not measured",
                                      f.fit.points, f.operation, f.bus_factor, f.fit.distinct_sizes, *lo, *hi, kMinSizeSpreadForLatency,
                                      f.fit.bandwidth_bytes_per_s / 1e9));
      }
      c.collective_fits.push_back(std::move(f));
    }
    const CollectiveFit* most = nullptr;
    for (const auto& f : c.collective_fits)
      if (!most || f.fit.points > most->fit.points) most = &f;
    if (most) {
      c.network = most->fit;
      c.collective_operation = most->operation;
      c.collective_bus_factor = most->bus_factor;
      if (c.collective_fits.size() > 1) {
        double lo = most->fit.bandwidth_bytes_per_s, hi = lo;
        for (const auto& f : c.collective_fits) {
          lo = std::min(lo, f.fit.bandwidth_bytes_per_s);
          hi = std::max(hi, f.fit.bandwidth_bytes_per_s);
        }
        c.notes.push_back(fmt::format("the collectives fit {} (operation, communicator size) kinds apart, at {:.4g} to {:.4g} GB/s bus "
                                      "bandwidth: the collective_* scalars are {} at bus factor {:.4g} ({} calls), the kind with the most "
                                      "calls; table collective_fits has each",
                                      c.collective_fits.size(), lo / 1e9, hi / 1e9, most->operation, most->bus_factor, most->fit.points));
      }
    }
  }

  // Collective kernels the trace holds but that gave no fit are said, with why (2026-12-07 review: a
  // one-rank trace of 11 all-reduces came back with no collective_* scalars and no word). The
  // workload analysis counts them (table workload_op_classes, class communication, per rank).
  if (c.collective_fits.empty()) {
    int64_t comm_kernels = 0;
    if (const Table* oc = analysis.table("workload_op_classes"); oc && oc->has_column("op_class") && oc->has_column("kernels_count")) {
      const auto& cls = oc->column("op_class").str;
      const auto& count = oc->column("kernels_count").i64;
      for (size_t i = 0; i < oc->rows(); ++i)
        if (cls[i] == "communication") comm_kernels += count[i];
    }
    int64_t ranks = 0;
    if (const Value* v = analysis.scalar("ranks_count"); v && std::holds_alternative<int64_t>(*v)) ranks = std::get<int64_t>(*v);
    if (comm_kernels > 0 && ranks == 1)
      c.notes.push_back(fmt::format("the trace holds {} collective (NCCL) kernel{} on one rank: not fitted, as the fit needs the traces of two "
                                    "or more ranks (on one rank a collective's kernel also waits for the others to arrive, so its duration "
                                    "is not its transfer time; matched across ranks, the time from the last arrival is); give --trace every "
                                    "rank's trace (a folder of them) for the collective_* scalars",
                                    comm_kernels, comm_kernels == 1 ? "" : "s"));
    else if (comm_kernels > 0)
      c.notes.push_back(fmt::format("the traces of {} ranks hold {} collective (NCCL) kernel{}, and none gave a fit: a fit needs two or more "
                                    "calls of one operation and communicator size matched across ranks with a size and a bus bandwidth "
                                    "(`sextant analyze --only collectives` shows the matched calls)",
                                    ranks, comm_kernels, comm_kernels == 1 ? "" : "s"));
  }

  // The catalog file: the base entry with the fitted GEMM efficiency; everything the trace does
  // not measure is the base's (base_*_lines, shared with the bench calibration's --peak-from).
  const std::string name = opt.name.empty() ? base.name + " (calibrated from trace)" : opt.name;
  std::set<std::string> fitted;
  for (const auto& f : c.gemm) fitted.insert(f.dtype);
  // A fitted figure names the traces it came from (review, 2026-12-07): the loader resolves only a
  // bare `trace` source to its citation, and "trace: basis" had been shown without the files.
  auto trace_sourced = [&opt](double v, const std::string& basis) { return sourced(v, basis + "; Kineto trace " + opt.trace_ref); };
  std::string y;
  y += "# Written by `sextant calibrate --trace` from " + opt.trace_ref + " on the base entry " + base.id + ".\n";
  y += "# GEMM efficiency model (the one estimate uses, catalog.hpp gemm_shape_factor): achieved = peak x gemm_peak_fraction x\n"
       "#   prod over x in (m, n, k) of min(1, [x/(x + gemm_half_dim)] / [8192/(8192 + gemm_half_dim)]).\n";
  y += "sources:\n";
  y += "  trace: " + q("Kineto trace " + opt.trace_ref + ": GEMM-like operators with their Input Dims and the GPU time of their kernels") + "\n";
  y += "  base: " + q("catalog entry " + base.id + " (" + base.file + ")") + "\n";
  y += "entries:\n";
  y += "  - id: " + q(opt.id) + "\n";
  y += "    name: " + q(name) + "\n";
  y += "    vendor: " + q(base.vendor) + "\n";
  y += "    kind: " + q(base.kind) + "\n";
  y += "    peak_tflops:\n";
  y += base_peak_lines(base, {});
  y += base_device_lines(base, {});
  y += "    efficiency:\n";
  y += "      gemm_peak_fraction:\n";
  for (const auto& f : c.gemm)
    y += "        " + f.dtype + ": " +
         trace_sourced(f.gemm_peak_fraction, fmt::format("trace: fit over {} shapes, rms error {:.3f}", f.fitted_count, f.fit_rms_error_fraction)) + "\n";
  // Dtypes the trace has no GEMMs of keep the base's rate (base_fraction_lines: where this
  // entry's sustained fraction is 1, the base's sustained rate, or the fp8 rate would jump by 1 / 0.88).
  const bool sustained_written = opt.trace_rates != "burst";
  y += base_fraction_lines(base, fitted, sustained_written);
  std::string fitted_dtypes;
  for (const auto& f : c.gemm) fitted_dtypes += (fitted_dtypes.empty() ? "" : ", ") + f.dtype;
  if (keep_base_h)
    y += base_half_dim_lines(base);  // unknown there: estimate's default, under which the fractions were fitted
  else
    y += "      gemm_half_dim: " +
         trace_sourced(c.gemm_joint_half_dim, c.gemm.size() > 1 ? "trace: joint fit over the " + fitted_dtypes + " GEMMs (one fraction each)"
                                                           : "trace: fit of " + fitted_dtypes + " GEMMs") +
         "\n";
  if (opt.trace_rates == "burst") {
    if (base.sustained_compute_fraction.known)
      y += "      sustained_compute_fraction: " +
           carried_value(base.sustained_compute_fraction, base.sustained_compute_fraction.value,
                         "base (the traced rates are burst rates, --trace-rates burst)") +
           "\n";
  } else {
    y += "      sustained_compute_fraction: " + trace_sourced(1.0, "trace: the traced rates are sustained in-training rates (--trace-rates sustained)") + "\n";
  }
  // The per-kernel overhead (see above): the base's, or estimate's default written out, so that the
  // entry does not depend on that default staying what it is; the traced GEMM kernels hold the
  // fitted fixed time t0 of it.
  auto us = [](double s) { return format_double(std::round(s * 1e8) / 100); };  // microseconds to 0.01
  const std::string held = fmt::format("the traced GEMM kernels hold {} us of it (fitted in [0, it]; the rest is the launch and the gap "
                                       "between kernels, which a kernel's duration does not hold)",
                                       us(c.trace_kernel_fixed_time_s));
  y += "      kernel_overhead_us: " +
       (base.kernel_overhead_s.known
            ? carried_value(base.kernel_overhead_s, overhead_s * 1e6, "base (" + held + ")")
            : fmt::format("{{value: {}, estimated: {}}}", format_double(overhead_s * 1e6),
                          q("estimate's default per-kernel overhead (docs/models.md; the base gives none), which estimate adds to every "
                            "op: " + held))) +
       "\n";
  // Where the traced kernels hold less than the whole overhead, estimate times each GEMM of the
  // entry that much longer than its traced kernel: said, with the column that shows it.
  if (!c.gemm.empty() && c.trace_kernel_fixed_time_s < overhead_s * 0.95)
    c.notes.push_back(fmt::format("the traced GEMM kernels hold {} us of fixed time per call, and estimate adds the entry's whole "
                                  "per-kernel overhead, {} us, to every op: the other {} us stand for the launch and the gap "
                                  "between kernels, which a traced kernel's duration does not hold, so estimate times each GEMM that "
                                  "much longer than its kernel (table gemm_fit: error_fraction is the fitted kernel model's, "
                                  "estimate_error_fraction estimate's)",
                                  us(c.trace_kernel_fixed_time_s), us(overhead_s), us(overhead_s - c.trace_kernel_fixed_time_s)));
  y += base_efficiency_lines(base, {"kernel_overhead_us"});
  c.accelerator_yaml = y;
  // The traced dtypes not written, each with the fraction the written entry gives it (read from the
  // entry as the catalog loads it, so that the note says what estimate will use).
  if (!unwritten.empty()) {
    const Accelerator written = parse_written_entry(y);
    for (const auto& [dt, why] : unwritten) {
      std::string gives;
      try {
        const DType d = parse_dtype(dt, {});
        const auto it = written.gemm_peak_fraction.find(d);
        if (it != written.gemm_peak_fraction.end() && it->second.known) {
          gives = fmt::format("the entry carries {}'s, {:.4g}", base.id, it->second.value);
        } else {
          const auto bf16 = written.gemm_peak_fraction.find(DType::BF16);
          const bool has_bf16 = bf16 != written.gemm_peak_fraction.end() && bf16->second.known;
          const bool lower = d == DType::FP8 || d == DType::FP4 || d == DType::INT8;
          gives = fmt::format("neither {} nor the entry has one, so estimate reads {} GEMMs at {:.4g}, {}", base.id, dt, written.gemm_fraction(d),
                              has_bf16 ? (lower ? "0.9 x the entry's bf16 fraction" : "the entry's bf16 fraction")
                                       : std::string("the catalog's default"));
        }
      } catch (const Error&) {
        gives = "the entry has no " + dt + " peak";
      }
      c.notes.push_back(why + ": " + gives);
    }
  }
  for (const auto& dt : found_dtypes)
    if (no_peak_dtypes.count(dt))
      c.notes.push_back(fmt::format("the trace's {} GEMMs ({} distinct shape(s)) are not fitted: {} has no {} peak to fit them against", dt,
                                    found_shapes[dt].size(), base.id, dt));
  return c;
}

Result trace_calibration_result(const Calibration& c, const Accelerator& base, const TraceCalibrateOptions& opt) {
  Result r;
  r.command = "calibrate";
  r.set("trace", opt.trace_ref);
  r.set("base_accelerator", base.id);
  r.set("id", opt.id);
  for (const auto& f : c.gemm) {
    // The written entry's model: the fraction and the half-dimension(s) it is read under.
    r.set("gemm_peak_fraction_" + f.dtype, f.gemm_peak_fraction);
    if (f.roles_written) {
      r.set("half_dim_m_" + f.dtype, f.half_dim_m);
      r.set("half_dim_n_" + f.dtype, f.half_dim_n);
      r.set("half_dim_k_" + f.dtype, f.half_dim_k);
    } else {
      r.set("gemm_half_dim_" + f.dtype, f.gemm_half_dim);
    }
    // The dtype's own fit, with a half-dimension of its own (not written where it differs).
    r.set("own_fit_peak_fraction_" + f.dtype, f.own_peak_fraction);
    r.set("own_fit_half_dim_" + f.dtype, f.own_half_dim);
    r.set("gemm_shapes_count_" + f.dtype, f.fitted_count);
    r.set("fit_rms_error_fraction_" + f.dtype, f.fit_rms_error_fraction);
  }
  if (!c.gemm.empty() && c.trace_kernel_fixed_time_s >= 0) r.set("gemm_kernel_fixed_time_s", c.trace_kernel_fixed_time_s);
  if (c.network.present) {
    r.set("collective_operation", c.collective_operation);
    r.set("collective_bus_factor", c.collective_bus_factor);
    // NaN where the calls' sizes could not separate the latency (a note says so; 2026-12-06 review).
    r.set("collective_latency_s", c.network.latency_separated ? c.network.latency_s : std::nan(""));
    r.set("collective_busbw_bytes_per_s", c.network.bandwidth_bytes_per_s);
    r.set("collective_points_count", c.network.points);
    r.set("collective_fit_rms_error_fraction", c.network.fit_rms_error_fraction);
    Table& ft = r.add_table("collective_fits",
                            fmt::format("latency + bus bytes / busbw per (operation, bus factor): communicators of one size pooled, the "
                                        "collective_* scalars the one with the most calls; latency_s missing where the calls' sizes span "
                                        "less than a factor of {:g} (busbw then their mean effective rate)",
                                        kMinSizeSpreadForLatency));
    ft.add_str("operation");
    ft.add_f64("bus_factor");
    ft.add_str("process_groups");
    ft.add_i64("calls_count");
    ft.add_f64("latency_s");
    ft.add_f64("busbw_bytes_per_s");
    ft.add_f64("fit_rms_error_fraction");
    for (const auto& f : c.collective_fits) {
      std::string groups;
      for (const auto& g : f.process_groups) groups += (groups.empty() ? "" : ", ") + g;
      ft.add_row({f.operation, f.bus_factor, groups, f.fit.points, f.fit.latency_separated ? f.fit.latency_s : std::nan(""),
                  f.fit.bandwidth_bytes_per_s, f.fit.fit_rms_error_fraction});
    }
  }
  Table& t = r.add_table("gemm_fit",
                         "traced vs model efficiency per GEMM shape: predicted, the fitted kernel model (compute plus the fixed time per "
                         "call, gemm_kernel_fixed_time_s); estimate, estimate's time of the call on the entry (compute plus its "
                         "kernel_overhead_us)");
  t.add_str("dtype");
  t.add_i64("m");
  t.add_i64("n");
  t.add_i64("k");
  t.add_f64("achieved_flops_per_s");
  t.add_f64("traced_time_s");
  t.add_f64("efficiency_fraction");
  t.add_f64("predicted_efficiency_fraction");
  t.add_f64("error_fraction");
  t.add_f64("estimate_error_fraction");
  t.add_str("role");  // fitted, or outlier: left out of the fit (a note names it; 2026-12-07 review)
  for (const auto& p : c.points)
    t.add_row({p.dtype, static_cast<int64_t>(p.m), static_cast<int64_t>(p.n), static_cast<int64_t>(p.k), p.achieved_flops_per_s,
               p.traced_time_s, p.efficiency_fraction, p.predicted_efficiency_fraction, p.error_fraction, p.estimate_error_fraction,
               std::string(p.outlier ? "outlier" : "fitted")});
  return r;
}

}  // namespace sextant::bench
