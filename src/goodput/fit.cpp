#include "goodput/fit.hpp"

#include <cstdio>
#include <algorithm>
#include <functional>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>
#include <sstream>

#include "core/csv.hpp"
#include "core/error.hpp"
#include "core/result.hpp"
#include "goodput/closed_forms.hpp"

namespace sextant::goodput {

namespace {

// A YAML double-quoted scalar: backslash, quote and control characters escaped (a category named
// a"b was written as "a"b" and the preset could not be read back).
std::string yaml_quoted(const std::string& v) {
  std::string o = "\"";
  for (unsigned char c : v) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      o += buf;
    } else {
      o += static_cast<char>(c);
    }
  }
  return o + "\"";
}
}  // namespace

double weibull_shape_mle(const std::vector<double>& x) {
  if (x.size() < 2) throw Error("Weibull fit: need at least 2 positive inter-arrival times");
  double mean_log = 0;
  for (double v : x) {
    if (!(v > 0)) throw Error("Weibull fit: inter-arrival times must be positive");
    mean_log += std::log(v);
  }
  mean_log /= double(x.size());
  // g(k) = sum x^k ln x / sum x^k - 1/k - mean ln x = 0 is increasing in k: bisection in log k.
  auto g = [&](double k) {
    double a = 0, b = 0;
    double mx = 0;
    for (double v : x) mx = std::max(mx, std::log(v));
    for (double v : x) {
      const double w = std::exp(k * (std::log(v) - mx));  // scaled for range
      a += w * std::log(v);
      b += w;
    }
    return a / b - 1.0 / k - mean_log;
  };
  double lo = 0.06, hi = 20;  // within the range the Weibull distribution accepts
  if (g(lo) > 0) return lo;
  if (g(hi) < 0) return hi;
  for (int i = 0; i < 200; ++i) {
    const double mid = std::sqrt(lo * hi);
    if (g(mid) < 0) lo = mid;
    else hi = mid;
  }
  return std::sqrt(lo * hi);
}

double weibull_profile_loglik(const std::vector<double>& x, double k) {
  // With the scale at its MLE for k, lambda^k = mean(x^k):
  //   l(k) = n ln k - n ln mean(x^k) + (k - 1) sum ln x - n.
  // mean(x^k) is summed in a scaled form (x / max x)^k so large k does not overflow.
  const double n = double(x.size());
  double mx = 0, sum_log = 0;
  for (double v : x) mx = std::max(mx, std::log(v));
  double s = 0;
  for (double v : x) {
    sum_log += std::log(v);
    s += std::exp(k * (std::log(v) - mx));
  }
  const double log_mean_xk = std::log(s / n) + k * mx;
  return n * std::log(k) - n * log_mean_xk + (k - 1) * sum_log - n;
}

namespace {
// The shape where the profile log-likelihood has fallen by `drop` from its maximum at k_hat, on the
// side towards `bound` (bisection in log k; the bound itself when the drop is not reached).
double profile_bound(const std::vector<double>& x, double k_hat, double l_max, double drop, double bound) {
  if (weibull_profile_loglik(x, bound) > l_max - drop) return bound;
  double in = k_hat, out = bound;
  for (int i = 0; i < 100; ++i) {
    const double mid = std::sqrt(in * out);
    if (weibull_profile_loglik(x, mid) > l_max - drop) in = mid;
    else out = mid;
  }
  return std::sqrt(in * out);
}
}  // namespace

namespace {
// ---- Interval-censored fit of timestamps recorded at a resolution r (an incident log in whole
// hours). Each time is floored to a multiple of r, so an observed gap k r is a true gap k r + d
// with d the difference of two uniform rounding errors (triangular on (-r, r)). Its probability
// under a survival function S, with I(x) = integral of S from 0 to x (and I(x) = x for x < 0,
// where S = 1), is P(k) = (2 I(k r) - I((k-1) r) - I((k+1) r)) / r; for the Weibull
// I(x) = (lambda / k) gamma_lower(1/k, (x / lambda)^k). Gaps of 0 (ties) are observations like any
// other. Before 2026-12-03 ties were dropped, which removed the short gaps: Poisson incidents
// logged in whole hours fitted shape 1.34 and rejected the exponential at p = 4e-11.

struct Quantized {
  double r = 0;                          // resolution (s)
  std::vector<std::pair<int64_t, int64_t>> counts;  // (k, gaps observed as k r)
  double n = 0;
};

// I(x) / lambda for the Weibull of shape k, scale lambda.
double weibull_integrated_survival(double x, double k, double lambda) {
  if (x <= 0) return x / lambda;
  return std::exp(std::lgamma(1 / k)) / k * regularized_gamma_p(1 / k, std::pow(x / lambda, k));
}

double quantized_loglik(const Quantized& q, double k, double lambda) {
  double l = 0;
  // At a resolution far finer than the scale (milliseconds against hours), the second difference
  // below is of order (r / lambda)^2 and cancels in double precision: one tie in a log kept to the
  // millisecond had turned the likelihood into noise and chosen the exponential at p = 1
  // (2026-12-04 review). There the bin's probability is r f(x) (a gap of m >= 1 steps) and, for
  // the tied gaps, (1/r) * integral of F over [0, r] = (r / lambda)^k / (k + 1).
  const double rel = q.r / lambda;
  for (const auto& [m, c] : q.counts) {
    const double x = double(m) * q.r;
    double p;
    if (rel < 1e-4) {
      const double z = x / lambda;
      p = m == 0 ? std::pow(rel, k) / (k + 1) : rel * k * std::pow(z, k - 1) * std::exp(-std::pow(z, k));
    } else {
      p = lambda / q.r * (2 * weibull_integrated_survival(x, k, lambda) - weibull_integrated_survival(x - q.r, k, lambda) -
                          weibull_integrated_survival(x + q.r, k, lambda));
    }
    l += double(c) * std::log(std::max(p, 1e-300));
  }
  return l;
}

// Maximum over the scale for a shape (golden section in log lambda around the gaps' scale).
double quantized_profile_loglik(const Quantized& q, double k) {
  double mean = 0;
  for (const auto& [m, c] : q.counts) mean += double(m) * q.r * double(c);
  mean = std::max(mean / q.n, q.r / 2);
  double a = std::log(mean) - 6, b = std::log(mean) + 6;
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = quantized_loglik(q, k, std::exp(x1)), f2 = quantized_loglik(q, k, std::exp(x2));
  for (int i = 0; i < 80; ++i) {
    if (f1 < f2) {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      f2 = quantized_loglik(q, k, std::exp(x2));
    } else {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      f1 = quantized_loglik(q, k, std::exp(x1));
    }
  }
  return std::max(f1, f2);
}

// The step of a decimal number as written: 10^(exponent - digits after the point), "0.133333"
// 1e-6, "480" 1, "1.5e3" 100; 0 where the text is no plain decimal (hexadecimal: exact).
double printed_step(const std::string& text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  int decimals = 0, digits = 0;
  bool point = false;
  for (; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch >= '0' && ch <= '9') {
      ++digits;
      decimals += point ? 1 : 0;
    } else if (ch == '.' && !point) {
      point = true;
    } else {
      break;
    }
  }
  if (digits == 0) return 0;
  long exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    try {
      size_t used = 0;
      exponent = std::stol(text.substr(i + 1), &used);
      if (i + 1 + used != text.size()) return 0;
    } catch (const std::exception&) {
      return 0;
    }
  } else if (i != text.size()) {
    return 0;
  }
  return std::pow(10.0, double(exponent - decimals));
}

// The resolution of the incident times when they have ties: the largest r dividing every gap,
// the greatest common divisor of the gaps. Each time is a multiple of some unit u to within its
// printed rounding (half its printed step, step_s; a time written to 6 decimals of an hour is
// within 1.8 ms of the true one): u is sought among 1 h, 1 min and 1 s and their decimal
// divisions down to 1 us, and the column's own printed step, the coarsest first, no finer than
// the finest step printed (which every time meets). The times are then counted in u and the
// gaps' integer GCD taken. A unit coarser than the printed step is taken only where chance
// would rarely put every time on it (probability prod min(1, step / u) below 1e-6: a log to
// 0.01 h lies within 18 s of whole minutes 3 times in 5). 0 when there are no ties or no such
// unit down to 1 us. Before 2026-12-05 r was tried as the smallest positive gap / m, m = 1..12
// only: an hourly log whose smallest positive gap was 15 h found none, dropped its 16 ties and
// fitted shape 1.52 where it is 0.31. Until 2026-12-06 only decimal units of a second were
// tried, each time whole to its conversion's rounding: whole minutes written as hours to 6
// decimals (m / 60) found a resolution of 0.0036 s, fitted shape 0.95 and chose the Weibull at
// p = 0.004, where the same incidents in seconds give 60 s, shape 1.00 and p = 0.81 (review).
double tie_resolution(const std::vector<double>& t, const std::vector<double>& step_s) {
  bool ties = false, positive = false;
  for (size_t i = 1; i < t.size(); ++i) {
    ties = ties || t[i] <= t[i - 1];
    positive = positive || t[i] > t[i - 1];
  }
  if (!ties || !positive) return 0;
  double finest = INFINITY;
  for (double s : step_s) finest = std::min(finest, s);
  constexpr double kFinestUnit = 0.99e-6;
  std::vector<double> units;
  for (double base : {3600.0, 60.0, 1.0})
    for (double u = base; u >= kFinestUnit; u /= 10) units.push_back(u);
  if (finest >= kFinestUnit && std::isfinite(finest)) units.push_back(finest);
  std::sort(units.begin(), units.end(), std::greater<double>());
  for (size_t ui = 0; ui < units.size(); ++ui) {
    const double u = units[ui];
    if (ui > 0 && u > units[ui - 1] * (1 - 1e-9)) continue;  // the printed step is one of the units
    if (u < finest * (1 - 1e-9)) break;                      // finer than the times are written
    bool on_grid = true;
    double log_chance = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      const double x = t[i], n = x / u;
      // Within the printed rounding, plus the rounding of the text's conversion (64 ulps of x;
      // a 1% tolerance had read a millisecond log whose times lay within 10 ms of whole seconds
      // as whole seconds, review of 2026-12-05).
      const double ax = std::fabs(x);
      const double tol = (0.5 * step_s[i] * (1 + 1e-9) + 64.0 * (std::nextafter(ax, INFINITY) - ax)) / u + 1e-9;
      if (!(n < 9e15) || std::fabs(n - std::round(n)) > tol) {
        on_grid = false;
        break;
      }
      log_chance += std::log(std::min(1.0, step_s[i] / u));
    }
    if (!on_grid) continue;
    if (u > finest * (1 + 1e-9) && log_chance > std::log(1e-6)) continue;
    int64_t g = 0;
    for (size_t i = 1; i < t.size(); ++i) g = std::gcd(g, std::llround(t[i] / u) - std::llround(t[i - 1] / u));
    return g > 0 ? static_cast<double>(g) * u : 0;
  }
  return 0;
}

// Maximises a unimodal function of the shape over [0.06, 20] (golden section in log k).
template <class F>
double argmax_shape(F&& f) {
  double a = std::log(0.06), b = std::log(20.0);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = f(std::exp(x1)), f2 = f(std::exp(x2));
  for (int i = 0; i < 60; ++i) {
    if (f1 < f2) {
      a = x1;
      x1 = x2;
      f1 = f2;
      x2 = a + g * (b - a);
      f2 = f(std::exp(x2));
    } else {
      b = x2;
      x2 = x1;
      f2 = f1;
      x1 = b - g * (b - a);
      f1 = f(std::exp(x1));
    }
  }
  return std::exp((a + b) / 2);
}

template <class F>
double bound_of(F&& f, double k_hat, double l_max, double drop, double bound) {
  if (f(bound) > l_max - drop) return bound;
  double in = k_hat, out = bound;
  for (int i = 0; i < 60; ++i) {
    const double mid = std::sqrt(in * out);
    if (f(mid) > l_max - drop) in = mid;
    else out = mid;
  }
  return std::sqrt(in * out);
}
}  // namespace

std::vector<FittedProcess> fit_incidents(const std::string& text, const std::string& name, double nodes, double days,
                                         int64_t min_events_for_shape) {
  if (!(nodes > 0) || !(days > 0)) throw Error(SourceLocation{name}, "fitting needs the observation's node count and length (> 0)");
  // Read by the CSV reader every other input uses (core/csv.hpp; review of 2026-12-06): a line
  // tokenizer of its own here had reported every error at column 1, accepted an unterminated
  // quote, refused CR-only line endings, read 0x1000 as a number and yes/1/no/0 as booleans. It
  // skipped lines starting with '#', which no other CSV reader does and this CSV's docs never said:
  // such a line is now a row (or the header) like any other, and an error says where.
  const std::string hint_header = "header: time_h,category[,component][,node_lost]";
  {
    const size_t start = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    if (text.find_first_not_of(" \t\r\n,", start) == std::string::npos)
      throw Error(SourceLocation{name}, "empty incident CSV (no header row)", hint_header);
  }
  const CsvTable table = CsvTable::parse(text, name);
  const std::vector<std::string>& header = table.header();
  const int header_line = table.header_line();
  auto col = [&](const std::string& n) -> int {
    for (size_t i = 0; i < header.size(); ++i)
      if (header[i] == n) return int(i);
    return -1;
  };
  const int ct = col("category"), th = col("time_h"), ts = col("time_s"), cc = col("component"), cn = col("node_lost");
  if (ct < 0 || (th < 0 && ts < 0))
    throw Error(SourceLocation{name, header_line}, "the incident CSV needs columns category and time_h (or time_s)", hint_header);
  // Strict header: a misspelt column (node_lsot) had been ignored, and its values with it
  // (review of 2026-12-05); two time columns would leave one unread. (A column named twice is
  // refused by the reader, at its column.)
  {
    static const std::vector<std::string> known = {"category", "time_h", "time_s", "component", "node_lost"};
    for (size_t i = 0; i < header.size(); ++i) {
      const std::string& h = header[i];
      if (h.empty()) continue;  // a blank column (a spreadsheet's trailing comma) holds nothing
      if (std::find(known.begin(), known.end(), h) == known.end())
        throw Error(SourceLocation{name, header_line, int(i) + 1, h}, "unknown column '" + h + "'", valid_choices_hint(h, known));
    }
    if (th >= 0 && ts >= 0)
      throw Error(SourceLocation{name, header_line, ts + 1, "time_s"}, "both time_h and time_s are given", "give the incident times in one of them");
  }
  // A category is one failure process: one component and one node_lost for all its rows. A row
  // that contradicts an earlier one is an error (the last row had silently decided for all:
  // three gpu incidents became node-losing software failures, 2026-12-05 review).
  struct Acc {
    std::vector<double> t;
    std::vector<double> step_s;  // each time's printed step (s): its rounding is half of it
    std::string component;
    int node_lost = -1;
    int64_t component_line = 0, node_lost_line = 0;
  };
  std::map<std::string, Acc> by;
  std::vector<std::string> order;
  const int time_col = th >= 0 ? th : ts;
  const std::string time_key = th >= 0 ? "time_h" : "time_s";
  for (size_t r = 0; r < table.rows(); ++r) {
    const int lineno = table.line_of(r);
    // Cells without the blanks around them (the old tokenizer trimmed every cell).
    auto cell = [&](int c) { return csv_trimmed(table.at(r, size_t(c))); };
    auto at = [&](int c, const std::string& key) { return SourceLocation{name, lineno, c + 1, key}; };
    const std::string tv = cell(time_col);
    double t = csv_decimal(tv, at(time_col, time_key));
    double step = printed_step(tv);
    if (th >= 0) {
      t *= 3600.0;
      step *= 3600.0;
    }
    if (!std::isfinite(t) || t < 0 || t > days * 86400.0 * (1 + 1e-9))
      throw Error(at(time_col, time_key), "incident time " + format_double(th >= 0 ? t / 3600.0 : t) + (th >= 0 ? " h" : " s") +
                      " is outside the observation (0 to --fit-days " + format_double(days) + " = " +
                      format_double(th >= 0 ? days * 24.0 : days * 86400.0) + (th >= 0 ? " h)" : " s)"));
    const std::string cat = cell(ct);
    if (cat.empty()) throw Error(at(ct, "category"), "empty category");
    if (!by.count(cat)) order.push_back(cat);
    Acc& a = by[cat];
    a.t.push_back(t);
    a.step_s.push_back(step);
    if (cc >= 0 && !cell(cc).empty()) {
      const std::string v = cell(cc);
      if (!a.component.empty() && a.component != v)
        throw Error(at(cc, "component"),
                    "category '" + cat + "' has component '" + a.component + "' on line " + std::to_string(a.component_line) + " and '" + v +
                        "' here: a category is one failure process",
                    "give each category one component, or split it into two categories");
      // The closed set a preset's component is read against (config.hpp): the fitted preset had
      // been written with any text, and `sofware` read as hardware (2026-12-06 review).
      const auto& all = failure_components();
      if (std::find(all.begin(), all.end(), v) == all.end())
        throw Error(at(cc, "component"), "unknown failure component '" + v + "'", valid_choices_hint(v, all));
      if (a.component.empty()) a.component_line = lineno;
      a.component = v;
    }
    if (cn >= 0 && !cell(cn).empty()) {
      // true or false in any letter case, as the training CSV's booleans (yes/1/no/0 had been
      // read here, and refused there; review of 2026-12-06).
      const int lost = csv_boolean(cell(cn), at(cn, "node_lost")) ? 1 : 0;
      if (a.node_lost >= 0 && a.node_lost != lost)
        throw Error(at(cn, "node_lost"),
                    "category '" + cat + "' has node_lost " + (a.node_lost ? "true" : "false") + " on line " + std::to_string(a.node_lost_line) +
                        " and " + (lost ? "true" : "false") + " here: a category is one failure process",
                    "give each category one node_lost, or split it into two categories");
      if (a.node_lost < 0) a.node_lost_line = lineno;
      a.node_lost = lost;
    }
  }
  if (order.empty()) throw Error(SourceLocation{name}, "no incidents in the CSV");
  std::vector<FittedProcess> out;
  for (const auto& cat : order) {
    Acc& a = by[cat];
    {
      std::vector<std::pair<double, double>> ts;
      for (size_t i = 0; i < a.t.size(); ++i) ts.emplace_back(a.t[i], a.step_s[i]);
      std::sort(ts.begin(), ts.end());
      for (size_t i = 0; i < ts.size(); ++i) std::tie(a.t[i], a.step_s[i]) = ts[i];
    }
    FittedProcess fp;
    fp.count = int64_t(a.t.size());
    fp.process.name = cat;
    // Without a component column a category is its own component where it names one (gpu), else
    // other (the category itself had been written as the component, which failure_components()
    // now refuses where it names none, 2026-12-06).
    fp.process.component = a.component.empty() ? default_component(cat) : a.component;
    fp.process.rate_per_node_s = double(fp.count) / (nodes * days * 86400.0);
    fp.process.node_lost = a.node_lost < 0 ? !component_keeps_node(fp.process.component) : a.node_lost == 1;
    fp.mean_interarrival_s = days * 86400.0 / double(fp.count);
    std::vector<double> gaps;
    for (size_t i = 1; i < a.t.size(); ++i)
      if (a.t[i] > a.t[i - 1]) gaps.push_back(a.t[i] - a.t[i - 1]);
    fp.tied_gaps = int64_t(a.t.size()) - 1 - int64_t(gaps.size());
    const double r = tie_resolution(a.t, a.step_s);
    if (r > 0 && int64_t(a.t.size()) >= min_events_for_shape && gaps.size() >= 2) {
      // Times at a resolution, with ties: the interval-censored fit (see above).
      fp.time_resolution_s = r;
      Quantized q;
      q.r = r;
      std::map<int64_t, int64_t> by_k;
      for (size_t i = 1; i < a.t.size(); ++i) ++by_k[std::llround((a.t[i] - a.t[i - 1]) / r)];
      q.counts.assign(by_k.begin(), by_k.end());
      q.n = double(a.t.size() - 1);
      auto prof = [&](double k) { return quantized_profile_loglik(q, k); };
      fp.weibull_shape = argmax_shape(prof);
      fp.shape_fitted = true;
      const double l_w = prof(fp.weibull_shape), l_e = prof(1.0);
      const double lr = std::max(0.0, 2.0 * (l_w - l_e));
      fp.lr_p_value = std::erfc(std::sqrt(lr / 2.0));
      constexpr double kHalfChi2_95 = 1.920729;
      fp.shape_ci_low = bound_of(prof, fp.weibull_shape, l_w, kHalfChi2_95, 0.06);
      fp.shape_ci_high = bound_of(prof, fp.weibull_shape, l_w, kHalfChi2_95, 20.0);
      fp.weibull_selected = fp.lr_p_value < 0.05;
      if (fp.weibull_selected) {
        fp.process.distribution = "weibull";
        fp.process.weibull_shape = fp.weibull_shape;
      }
    } else if (int64_t(a.t.size()) >= min_events_for_shape && gaps.size() >= 2) {
      // (Ties at no common resolution are dropped here; the count of incidents decides, as above:
      // 10 incidents with one tie had been left without a shape.)
      fp.weibull_shape = weibull_shape_mle(gaps);
      fp.shape_fitted = true;
      // Likelihood ratio of the Weibull (2 parameters) against the exponential (1): 2 (l_w - l_e)
      // is chi-square with 1 degree of freedom under shape 1, whose survival is erfc(sqrt(lr / 2)).
      const double l_w = weibull_profile_loglik(gaps, fp.weibull_shape), l_e = weibull_profile_loglik(gaps, 1.0);
      const double lr = std::max(0.0, 2.0 * (l_w - l_e));
      fp.lr_p_value = std::erfc(std::sqrt(lr / 2.0));
      // 95% interval: where the profile log-likelihood is 3.841 / 2 below its maximum.
      constexpr double kHalfChi2_95 = 1.920729;
      fp.shape_ci_low = profile_bound(gaps, fp.weibull_shape, l_w, kHalfChi2_95, 0.06);
      fp.shape_ci_high = profile_bound(gaps, fp.weibull_shape, l_w, kHalfChi2_95, 20.0);
      fp.weibull_selected = fp.lr_p_value < 0.05;
      if (fp.weibull_selected) {
        fp.process.distribution = "weibull";
        fp.process.weibull_shape = fp.weibull_shape;
      }
    }
    fp.process.source = "fitted from " + name;
    out.push_back(fp);
  }
  return out;
}

std::string fitted_preset_yaml(const std::vector<FittedProcess>& f, const std::string& name, double nodes, double days,
                               const std::string& source) {
  std::ostringstream o;
  o << "# Fitted by `sextant goodput --fit` from " << source << "\n";
  o << "name: " << yaml_quoted(name) << "\n";
  o << "description: " << yaml_quoted("fitted from " + source + " (" + format_double(nodes) + " nodes, " + format_double(days) + " days)") << "\n";
  o << "sources:\n  incidents: " << yaml_quoted(source) << "\n";
  o << "observed: {nodes: " << format_double(nodes) << ", days: " << format_double(days) << ", source: incidents}\n";
  o << "processes:\n";
  for (const auto& p : f) {
    o << "  - {name: " << yaml_quoted(p.process.name) << ", component: " << yaml_quoted(p.process.component) << ", count: " << p.count
      << ", node_lost: " << (p.process.node_lost ? "true" : "false");
    if (p.weibull_selected) o << ", distribution: weibull, shape: " << format_double(p.weibull_shape);
    o << ", source: incidents}\n";
  }
  return o.str();
}

}  // namespace sextant::goodput
