// GPU kernel breakdown: (1) time per kernel type and per overlap combination of types (the
// union of each type's kernels, swept together), summed over ranks; (2) per rank and type, the
// kernels by total time, with HTA's grouping of the tail into "others"; (3) outside HTA mode,
// the top kernels of the job by total time.
#include <algorithm>
#include <cmath>
#include <map>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {

struct Agg {
  std::string name;
  double sum = 0, max = 0, min = 0, mean = 0, std = 0;
  int64_t count = 0;
};

Agg aggregate(const std::string& name, const std::vector<double>& v) {
  Agg a;
  a.name = name;
  a.count = static_cast<int64_t>(v.size());
  a.max = v.front();
  a.min = v.front();
  for (double x : v) {
    a.sum += x;
    a.max = std::max(a.max, x);
    a.min = std::min(a.min, x);
  }
  a.mean = a.sum / static_cast<double>(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - a.mean) * (x - a.mean);
    a.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
  }
  return a;
}

}  // namespace

void run_kernel_breakdown(const AnalysisContext& ctx, Result& r) {
  const KernelKind kinds[3] = {KernelKind::Computation, KernelKind::Communication, KernelKind::Memory};

  // (1) overlap combinations, bit 1<<k for kinds[k].
  std::map<int, int64_t> by_mask;
  double tick_us = ctx.frames.empty() ? 1.0 : ctx.frames.front().us_per_tick;
  // Per device of a rank that drives several GPUs (one device, as HTA, otherwise), summed: one
  // GPU's GEMMs do not overlap another's NCCL kernels, as in comm_comp_overlap (the union of the
  // devices had read them as overlapping before 2026-12-03).
  for (const Frame& f : ctx.frames)
    for (const int64_t d : devices_of(f)) {
      std::vector<std::pair<int64_t, int>> edges;
      for (int k = 0; k < 3; ++k) {
        const KernelKind kind = kinds[k];
        for (const auto& [a, b] : merge_gpu_intervals(f, [&](const GpuEvent& g) { return g.kind == kind && device_of(f, g) == d; })) {
          edges.emplace_back(a, 1 << k);
          edges.emplace_back(b, -(1 << k));
        }
      }
      std::stable_sort(edges.begin(), edges.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      int running = 0;
      for (size_t i = 0; i + 1 < edges.size(); ++i) {
        running += edges[i].second;
        if (running > 0) by_mask[running] += edges[i + 1].first - edges[i].first;
      }
    }
  std::vector<std::pair<std::string, int64_t>> type_rows;
  int64_t total = 0;
  for (const auto& [mask, d] : by_mask) {
    std::string label;
    for (int k = 0; k < 3; ++k)
      if (mask & (1 << k)) label += (label.empty() ? "" : " overlapping ") + std::string(kernel_kind_name(kinds[k]));
    if (label.empty()) continue;
    type_rows.emplace_back(label, d);
    total += d;
  }
  std::stable_sort(type_rows.begin(), type_rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  Table& bt = r.add_table("gpu_kernel_breakdown_by_type", "GPU time by kernel type and overlap of types, all ranks");
  bt.add_str("kernel_type");
  bt.add_f64("sum");
  bt.add_f64("percentage");
  // The share is rounded to 1 decimal only under --compat hta (HTA's CSV convention): a 10 us
  // entry had read 0.0 percent in the Sextant rules' JSON and CSV (review of 2026-12-06).
  for (const auto& [label, d] : type_rows) {
    double share = total > 0 ? 100.0 * static_cast<double>(d) / static_cast<double>(total) : 0.0;
    if (ctx.opt.hta) share = stats::round_to(share, 1);
    bt.add_row({label, static_cast<double>(d) * tick_us, share});
  }

  // (2) per rank and type.
  struct Row {
    Agg a;
    std::string type;
    int64_t rank;
  };
  std::vector<Row> rows;
  for (const Frame& f : ctx.frames) {
    for (int k = 0; k < 3; ++k) {
      // Durations by name id: a slot per id (ids are dense), visited in ascending id order.
      std::vector<std::vector<double>> durs(f.trace->strings.size());
      for (const auto& g : f.gpu)
        if (g.kind == kinds[k]) durs[g.name].push_back(f.us(g.end - g.ts));
      std::vector<Agg> aggs;
      std::vector<uint32_t> ids;  // the name id of each aggregate
      for (uint32_t id = 0; id < durs.size(); ++id)
        if (!durs[id].empty()) {
          aggs.push_back(aggregate(f.name(id), durs[id]));
          ids.push_back(id);
        }
      std::vector<size_t> order(aggs.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return aggs[a].sum > aggs[b].sum; });
      const size_t nk = static_cast<size_t>(ctx.opt.num_kernels);
      if (aggs.size() > nk) {
        std::vector<double> cums;
        double c = 0;
        for (size_t i : order) cums.push_back(c += aggs[i].sum);
        std::vector<double> sorted = cums;
        std::sort(sorted.begin(), sorted.end());
        double q = stats::quantile_linear(sorted, ctx.opt.duration_ratio);
        std::vector<Agg> kept;
        if (ctx.opt.hta) {
          // HTA's rule: every row's statistics are over the names' totals (a named row's max, min
          // and mean are its sum; the 'others' row's are over the folded names' sums).
          std::map<std::string, std::vector<double>> regroup;
          for (size_t r = 0; r < order.size(); ++r) {
            const bool other = cums[r] > q || r >= nk;
            regroup[other ? "others" : aggs[order[r]].name].push_back(aggs[order[r]].sum);
          }
          for (const auto& [name, v] : regroup) kept.push_back(aggregate(name, v));
        } else {
          // Sextant's: a named row keeps its launches' statistics and 'others' is over the folded
          // names' launches (the totals' statistics had printed a kernel's sum as its max, min and
          // mean), in HTA's name order.
          std::vector<double> others;
          std::map<std::string, Agg> named;
          for (size_t r = 0; r < order.size(); ++r) {
            const bool other = cums[r] > q || r >= nk;
            if (other) others.insert(others.end(), durs[ids[order[r]]].begin(), durs[ids[order[r]]].end());
            else named.emplace(aggs[order[r]].name, aggs[order[r]]);
          }
          if (!others.empty()) named.emplace("others", aggregate("others", others));
          for (auto& [name, a] : named) kept.push_back(a);
        }
        aggs = std::move(kept);
      } else {
        std::vector<Agg> sorted_aggs;
        for (size_t i : order) sorted_aggs.push_back(aggs[i]);
        aggs = std::move(sorted_aggs);
      }
      for (auto& a : aggs) rows.push_back(Row{a, kernel_kind_name(kinds[k]), f.rank()});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.type != b.type) return a.type < b.type;
    if (a.a.name != b.a.name) return a.a.name < b.a.name;
    return a.rank < b.rank;
  });
  Table& kt = r.add_table("gpu_kernel_breakdown_by_kernel",
                          "kernels per rank and type by total time; the tail grouped as 'others' (HTA's rule)");
  kt.add_str("name");
  kt.add_f64("sum (us)");
  kt.add_f64("max (us)");
  kt.add_f64("min (us)");
  kt.add_f64("stddev");
  kt.add_f64("mean (us)");
  kt.add_str("kernel_type");
  kt.add_i64("rank");
  for (const auto& row : rows)
    kt.add_row({row.a.name, row.a.sum, row.a.max, row.a.min, row.a.std, row.a.mean, row.type, row.rank});

  // (3) top kernels of the job (Sextant only).
  if (!ctx.opt.hta) {
    std::map<std::string, std::pair<double, int64_t>> job;
    double gpu_total = 0;
    for (const Frame& f : ctx.frames) {
      // The map entry of each name id, looked up once per id (not a string-keyed lookup per
      // event); the sums are accumulated in the same order as before.
      std::vector<std::pair<double, int64_t>*> entry(f.trace->strings.size(), nullptr);
      for (const auto& g : f.gpu) {
        auto*& ep = entry[g.name];
        if (!ep) ep = &job[f.name(g.name)];
        auto& e = *ep;
        e.first += f.us(g.end - g.ts);
        e.second += 1;
        gpu_total += f.us(g.end - g.ts);
      }
    }
    std::vector<std::pair<std::string, std::pair<double, int64_t>>> v(job.begin(), job.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
    Table& top = r.add_table("top_kernels", "GPU kernels with the most total time, all ranks");
    top.add_str("name");
    top.add_i64("count");
    top.add_f64("total_us");
    top.add_f64("mean_us");
    top.add_f64("share_of_gpu_time_fraction");
    for (size_t i = 0; i < v.size() && i < static_cast<size_t>(ctx.opt.top_kernels); ++i)
      top.add_row({v[i].first, v[i].second.second, v[i].second.first,
                   v[i].second.first / static_cast<double>(v[i].second.second),
                   gpu_total > 0 ? v[i].second.first / gpu_total : 0.0});
  }
}

}  // namespace sextant::trace
