// Collectives across ranks. Each rank's NCCL/RCCL kernels (old "ncclKernel_*" and new
// "ncclDevKernel_*" names) are matched across ranks by (process group, sequence number) when the
// trace records them, otherwise by (operation, ProfilerStep number, ordinal in the step) where every
// rank's kernels lie in steps, else by (operation, ordinal of that operation on the rank). For each
// matched collective: size, duration, algorithm, bus bandwidth, start skew, end skew and the rank
// that arrived last; then straggler ranks ranked by how often and how much they held others back.
//
// In --compat hta mode the table is HTA's get_potential_stragglers instead: the metric is the
// normalised start time of the last long "ncclKernel*" kernel on the (stream, name) whose
// duration varies most across ranks, and the top num_candidates ranks by that metric per
// iteration are counted (HTA ignores ncclDevKernel names: a documented HTA limitation).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string_view>
#include <vector>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {

struct KernelInfo {
  std::string op;    // AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, SendRecv, AllToAll...
  std::string algo;  // RING, TREE, ... ("" when not in the name)
  std::string dtype;
};

KernelInfo parse_nccl_name(const std::string& n) {
  // Old: ncclKernel_AllReduce_RING_LL_Sum_float(...); new: ncclDevKernel_AllReduce_Sum_bf16_RING_LL(...).
  static const std::set<std::string> algos = {"RING", "TREE", "COLLNET", "COLLNETDIRECT", "COLLNETCHAIN", "NVLS",
                                              "NVLSTREE", "PAT"};
  static const std::set<std::string> protos = {"LL", "LL128", "SIMPLE"};
  static const std::set<std::string> redops = {"Sum", "Prod", "Max", "Min", "PreMulSum", "SumPostDiv", "Avg"};
  KernelInfo k;
  size_t pos = n.find("Kernel_");
  if (pos == std::string::npos) {
    k.op = "unknown";
    return k;
  }
  std::string rest = n.substr(pos + 7);
  rest = rest.substr(0, rest.find('('));
  std::vector<std::string> tok;
  size_t s = 0;
  while (s <= rest.size()) {
    size_t e = rest.find('_', s);
    if (e == std::string::npos) e = rest.size();
    tok.push_back(rest.substr(s, e - s));
    s = e + 1;
  }
  k.op = tok.empty() ? "unknown" : tok[0];
  for (size_t i = 1; i < tok.size(); ++i) {
    if (algos.count(tok[i])) {
      k.algo = tok[i];
    } else if (protos.count(tok[i])) {
      if (!k.algo.empty()) k.algo += "_" + tok[i];
    } else if (!redops.count(tok[i]) && k.dtype.empty()) {
      // dtype tokens may contain '_' (int8_t): join the rest up to an algorithm name.
      std::string d = tok[i];
      while (i + 1 < tok.size() && !algos.count(tok[i + 1]) && !protos.count(tok[i + 1])) d += "_" + tok[++i];
      k.dtype = d;
    }
  }
  return k;
}

// Element size of a collective's dtype as traces write it: the kernel's `dtype` arg is
// c10::toString(ScalarType) ("Float", "BFloat16", "Float8_e4m3fn", ...), an nccl:* annotation's
// `Input type` the C++ type's name ("float", "long int", "c10::Half", "c10::complex<float>"), and
// either may carry a c10:: or at:: prefix. Every ScalarType of c10/core/ScalarType.h (PyTorch's
// AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS, 0-45 as read on 2026-12-05) is here at its
// c10::elementSize (sizeof of its C++ type: the packed QUInt4x2, Float4_e2m1fn_x2 and sub-byte
// UInt1-7 / Int1-7 are one byte per element), with torch's Python spellings (float8_e4m3fn,
// complex64). Before
// 2026-12-05 only a few were: Bool, Short, the Float8 and complex types lost their size (review).
// 0: unknown (the caller names it in a diagnostic).
double dtype_bytes(const std::string& d) {
  static const std::map<std::string, double, std::less<>> m = {
      // c10::toString(ScalarType), in ScalarType order.
      {"Byte", 1}, {"Char", 1}, {"Short", 2}, {"Int", 4}, {"Long", 8}, {"Half", 2}, {"Float", 4}, {"Double", 8},
      {"ComplexHalf", 4}, {"ComplexFloat", 8}, {"ComplexDouble", 16}, {"Bool", 1}, {"QInt8", 1}, {"QUInt8", 1},
      {"QInt32", 4}, {"BFloat16", 2}, {"QUInt4x2", 1}, {"QUInt2x4", 1}, {"Bits1x8", 1}, {"Bits2x4", 1}, {"Bits4x2", 1},
      {"Bits8", 1}, {"Bits16", 2}, {"Float8_e5m2", 1}, {"Float8_e4m3fn", 1}, {"Float8_e5m2fnuz", 1},
      {"Float8_e4m3fnuz", 1}, {"UInt16", 2}, {"UInt32", 4}, {"UInt64", 8}, {"UInt1", 1}, {"UInt2", 1}, {"UInt3", 1},
      {"UInt4", 1}, {"UInt5", 1}, {"UInt6", 1}, {"UInt7", 1}, {"Int1", 1}, {"Int2", 1}, {"Int3", 1}, {"Int4", 1},
      {"Int5", 1}, {"Int6", 1}, {"Int7", 1}, {"Float8_e8m0fnu", 1}, {"Float4_e2m1fn_x2", 1},
      // C++ type names (caffe2::TypeMeta, the `Input type` of record_shapes), c10:: stripped.
      {"float", 4}, {"double", 8}, {"int", 4}, {"long int", 8}, {"long", 8}, {"long long int", 8}, {"short int", 2},
      {"short", 2}, {"signed char", 1}, {"unsigned char", 1}, {"bool", 1}, {"short unsigned int", 2},
      {"unsigned short", 2}, {"unsigned int", 4}, {"long unsigned int", 8}, {"unsigned long", 8}, {"int8_t", 1},
      {"uint8_t", 1}, {"int16_t", 2}, {"uint16_t", 2}, {"int32_t", 4}, {"uint32_t", 4}, {"int64_t", 8},
      {"uint64_t", 8}, {"complex<Half>", 4}, {"complex<c10::Half>", 4}, {"complex<float>", 8},
      {"complex<double>", 16}, {"qint8", 1}, {"quint8", 1}, {"qint32", 4}, {"quint4x2", 1}, {"quint2x4", 1},
      {"bits1x8", 1}, {"bits2x4", 1}, {"bits4x2", 1}, {"bits8", 1}, {"bits16", 2},
      // torch's Python dtype names.
      {"float16", 2}, {"float32", 4}, {"float64", 8}, {"bfloat16", 2}, {"half", 2}, {"int8", 1}, {"int16", 2},
      {"int32", 4}, {"int64", 8}, {"uint8", 1}, {"uint16", 2}, {"uint32", 4}, {"uint64", 8}, {"complex32", 4},
      {"complex64", 8}, {"complex128", 16}, {"cfloat", 8}, {"cdouble", 16}, {"chalf", 4}, {"float8_e5m2", 1},
      {"float8_e4m3fn", 1}, {"float8_e5m2fnuz", 1}, {"float8_e4m3fnuz", 1}, {"float8_e8m0fnu", 1},
      {"float4_e2m1fn_x2", 1}};
  std::string_view v = d;
  for (const std::string_view prefix : {"c10::", "at::", "torch."})
    if (v.substr(0, prefix.size()) == prefix) {
      v.remove_prefix(prefix.size());
      break;
    }
  auto it = m.find(v);
  return it == m.end() ? 0.0 : it->second;
}

// NCCL's bus-bandwidth factor (nccl-tests): algbw * factor = busbw.
double bus_factor(const std::string& op, double n) {
  if (n <= 1) return 1.0;
  std::string o = op;
  std::transform(o.begin(), o.end(), o.begin(), ::tolower);
  if (o.find("allreduce") != std::string::npos || o == "all_reduce") return 2.0 * (n - 1) / n;
  if (o.find("allgather") != std::string::npos || o.find("reducescatter") != std::string::npos ||
      o.find("all_gather") != std::string::npos || o.find("reduce_scatter") != std::string::npos ||
      o.find("alltoall") != std::string::npos)
    return (n - 1) / n;
  return 1.0;  // broadcast, reduce, send/recv (nccl-tests' sendrecv_perf: busbw = algbw)
}

using Occurrence = CollectiveOccurrence;

void hta_stragglers(const AnalysisContext& ctx, Result& r) {
  Table& t = r.add_table("potential_stragglers", "HTA's potential straggler ranks");
  t.add_i64("potential_straggler_rank");
  // Iteration of each kernel: the ProfilerStep#N containing its launching call.
  struct Row {
    int64_t rank, stream, iter, ts, dur;
    uint32_t name;
    std::string sname;
  };
  std::vector<Row> rows;
  int64_t t_min = INT64_MAX, t_max = INT64_MIN;
  std::set<int64_t> iters;
  for (const Frame& f : ctx.frames) {
    std::vector<std::tuple<int64_t, int64_t, int64_t>> steps;  // ts, end, iter
    for (const auto& c : f.cpu) {
      if (f.trace->cat[c.event] == Category::GpuUserAnnotation) continue;  // the GPU-side copy of the step
      const std::string& n = f.trace->name_of(c.event);
      if (const int64_t k = profiler_step_number(n); k >= 0) steps.emplace_back(c.ts, c.end, k);
    }
    auto iter_of = [&](int64_t ts) -> int64_t {
      for (const auto& [a, b, it] : steps)
        if (ts >= a && ts < b) return it;
      return -1;
    };
    for (const auto& c : f.cpu) {
      int64_t it = iter_of(c.ts);
      if (it < 0) continue;
      t_min = std::min(t_min, c.ts);
      t_max = std::max(t_max, c.end);
      iters.insert(it);
    }
    for (const auto& g : f.gpu) {
      int64_t it = g.runtime >= 0 ? iter_of(f.cpu[static_cast<size_t>(g.runtime)].ts) : -1;
      if (it < 0) continue;
      t_min = std::min(t_min, g.ts);
      t_max = std::max(t_max, g.end);
      rows.push_back(Row{f.rank(), g.stream, it, g.ts, g.end - g.ts, g.name, f.name(g.name)});
    }
  }
  if (iters.empty() || rows.empty()) {
    ctx.diagnostics.add("stragglers: no ProfilerStep iterations or no kernels in them", "info", "");
    return;
  }
  double mean_iter = static_cast<double>(t_max - t_min) / static_cast<double>(iters.size());
  double min_dur = mean_iter * 0.01;
  // Last long comm kernel per (rank, stream, iteration, name).
  std::map<std::tuple<int64_t, int64_t, int64_t, std::string>, const Row*> last;
  for (const auto& rw : rows) {
    if (rw.stream <= 0 || rw.iter <= 0 || static_cast<double>(rw.dur) < min_dur) continue;
    if (rw.sname.rfind("ncclKernel", 0) != 0) continue;
    last[{rw.rank, rw.stream, rw.iter, rw.sname}] = &rw;
  }
  if (last.empty()) {
    ctx.diagnostics.add("stragglers: no long ncclKernel* kernels (HTA's rule)", "info", "");
    return;
  }
  // std of normalised duration across ranks per (stream, iter, name); mean over iterations.
  std::map<std::tuple<int64_t, int64_t, std::string>, std::vector<double>> durs;
  for (const auto& [k, rw] : last)
    durs[{std::get<1>(k), std::get<2>(k), std::get<3>(k)}].push_back(static_cast<double>(rw->dur) / mean_iter);
  std::map<std::pair<int64_t, std::string>, std::vector<double>> stds;
  for (const auto& [k, v] : durs) {
    auto d = stats::describe(v);
    if (!std::isnan(d.std)) stds[{std::get<0>(k), std::get<2>(k)}].push_back(d.std);
  }
  std::pair<int64_t, std::string> best;
  double best_v = -1;
  for (const auto& [k, v] : stds) {
    double m = 0;
    for (double x : v) m += x;
    m /= static_cast<double>(v.size());
    if (m > best_v) {
      best_v = m;
      best = k;
    }
  }
  if (best_v < 0) {
    ctx.diagnostics.add("stragglers: a single rank, no spread to compare", "info", "");
    return;
  }
  // Per iteration, ranks whose metric is at or above the k-th largest.
  std::map<int64_t, std::vector<std::pair<double, int64_t>>> per_iter;
  for (const auto& [k, rw] : last)
    if (std::get<1>(k) == best.first && std::get<3>(k) == best.second)
      per_iter[std::get<2>(k)].emplace_back(static_cast<double>(rw->ts - t_min) / mean_iter, std::get<0>(k));
  std::map<int64_t, int64_t> counts;
  const size_t k = static_cast<size_t>(std::max(1, ctx.opt.straggler_candidates));
  for (auto& [it, v] : per_iter) {
    std::vector<double> m;
    for (const auto& p : v) m.push_back(p.first);
    std::sort(m.rbegin(), m.rend());
    double thr = m[std::min(k, m.size()) - 1];
    for (const auto& [x, rank] : v) counts[rank] += x >= thr ? 1 : 0;
  }
  std::vector<std::pair<int64_t, int64_t>> order(counts.begin(), counts.end());
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (size_t i = 0; i < order.size() && i < k; ++i) t.add_row({order[i].first});
}

}  // namespace

namespace {
// PyTorch's `nccl:*` record_function annotation around a collective's launch: its operation and
// message size from `Input Dims` x `Input type` (older traces, whose kernels carry no
// `In msg nelems`; their all-to-all runs as ncclKernel_SendRecv).
struct NcclAnnotation {
  int64_t key, ts, end;  // (pid, tid) key, span in ns
  std::string op;        // AllReduce, AllToAll, ... ("" when the name is not a known collective)
  double bytes = -1;
  std::string unknown_type;  // its `Input type` where that has no known element size (no bytes)
};
// NCCL's operation name of a PyTorch collective name (the `nccl:*` annotation's suffix, or a
// kernel's `Collective name` arg): "" when it names none of them.
std::string nccl_op_of(const std::string& name) {
  static const std::map<std::string, std::string> ops = {
      {"all_reduce", "AllReduce"},         {"allreduce", "AllReduce"},       {"allreduce_coalesced", "AllReduce"},
      {"all_gather", "AllGather"},         {"_allgather_base", "AllGather"}, {"allgather", "AllGather"},
      {"all_gather_into_tensor", "AllGather"}, {"allgather_into_tensor_coalesced", "AllGather"}, {"allgather_coalesced", "AllGather"},
      {"reduce_scatter", "ReduceScatter"}, {"_reduce_scatter_base", "ReduceScatter"}, {"reduce_scatter_base", "ReduceScatter"},
      {"reduce_scatter_tensor", "ReduceScatter"}, {"reduce_scatter_tensor_coalesced", "ReduceScatter"},
      {"all_to_all", "AllToAll"},          {"alltoall", "AllToAll"},         {"alltoall_base", "AllToAll"},
      {"all_to_allv", "AllToAll"},         {"broadcast", "Broadcast"},       {"reduce", "Reduce"}};
  auto it = ops.find(name);
  return it == ops.end() ? std::string() : it->second;
}

std::vector<NcclAnnotation> nccl_annotations(const RankTrace& t) {
  std::vector<NcclAnnotation> out;
  for (const auto& s : t.op_shapes) {
    const std::string& name = t.strings.str(t.name[s.event]);
    if (name.rfind("nccl:", 0) != 0) continue;
    NcclAnnotation a;
    a.key = (static_cast<int64_t>(t.pid[s.event]) << 32) ^ static_cast<int64_t>(static_cast<uint32_t>(t.tid[s.event]));
    a.ts = t.ts_ns[s.event];
    a.end = a.ts + t.dur_ns[s.event];
    a.op = nccl_op_of(name.substr(5));
    try {
      const auto dims = nlohmann::json::parse(t.dims_of(s));
      const auto types = nlohmann::json::parse(t.types_of(s));
      if (dims.is_array() && !dims.empty() && dims[0].is_array() && types.is_array() && !types.empty() && types[0].is_string()) {
        double n = 1;
        for (const auto& x : dims[0]) n *= x.is_number_integer() ? static_cast<double>(x.get<int64_t>()) : 0.0;
        const double b = dtype_bytes(types[0].get<std::string>());
        if (n > 0 && b > 0) a.bytes = n * b;
        if (b <= 0) a.unknown_type = types[0].get<std::string>();
      }
    } catch (const nlohmann::json::exception&) {
      // Unparsable shapes: no size.
    }
    out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const NcclAnnotation& x, const NcclAnnotation& y) {
    return x.key != y.key ? x.key < y.key : x.ts < y.ts;
  });
  return out;
}
// A rank's ProfilerStep#N ranges (the CPU-side ones: the gpu_user_annotation copy is not a
// second step), sorted by start, in the frame's ticks, and the step numbers its trace holds.
struct RankSteps {
  struct Span {
    int64_t ts, end, n;
  };
  std::vector<Span> spans;
  std::set<int64_t> held;
  // N of the step a launch at tick t lies in: the latest step started at or before it, as the
  // iterations analysis places a launch, when t is before its end; -1 otherwise.
  int64_t at(int64_t t) const {
    auto it = std::upper_bound(spans.begin(), spans.end(), t, [](int64_t x, const Span& s) { return x < s.ts; });
    if (it == spans.begin()) return -1;
    --it;
    return t < it->end ? it->n : -1;
  }
};

RankSteps rank_steps(const Frame& f) {
  RankSteps s;
  for (const auto& c : f.cpu) {
    if (f.trace->cat[c.event] == Category::GpuUserAnnotation) continue;
    if (const int64_t k = profiler_step_number(f.trace->name_of(c.event)); k >= 0) {
      s.spans.push_back(RankSteps::Span{c.ts, c.end, k});
      s.held.insert(k);
    }
  }
  std::stable_sort(s.spans.begin(), s.spans.end(), [](const RankSteps::Span& a, const RankSteps::Span& b) { return a.ts < b.ts; });
  return s;
}

// "rank 3" or "ranks 0, 2, 3" (the first 8, then "...").
std::string rank_list(const std::vector<int64_t>& ranks) {
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (size_t i = 0; i < ranks.size() && i < 8; ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) out += ", ...";
  return out;
}

std::string group_prefix(const std::string& pg) { return pg.empty() ? std::string() : "process group " + pg + ", "; }

// What the desync check (absent_members) reads beside the matches, kept from matching: each
// frame's steps, the frame of each rank, and the (group, operation) pairs matched by order whose
// ranks ran different counts.
struct MatchEvidence {
  std::vector<RankSteps> steps;
  std::map<int64_t, size_t> frame_of;  // rank -> index in frames (the first of a repeated rank)
  std::set<std::pair<std::string, std::string>> unequal_by_order;
};

CollectiveMatches match_all(const std::vector<Frame>& frames, int64_t* repeats, MatchStats* stats, MatchEvidence& ev) {
  CollectiveMatches coll;
  // Per (group, operation) matched by order: each rank's count.
  std::map<std::pair<std::string, std::string>, std::map<int64_t, int64_t>> by_order;
  // Kernels without a sequence number, per (group, operation), in frame then time order: matched
  // once every rank's are known (by step where they all lie in steps).
  std::map<std::pair<std::string, std::string>, std::vector<Occurrence>> unsequenced;
  std::vector<RankSteps>& steps = ev.steps;
  steps.reserve(frames.size());
  for (const Frame& f : frames) steps.push_back(rank_steps(f));
  for (size_t fi = 0; fi < frames.size(); ++fi) {
    const Frame& f = frames[fi];
    std::unordered_map<uint32_t, const CollectiveArgs*> args;
    for (const auto& c : f.trace->collectives) args[c.event] = &c;
    const std::vector<NcclAnnotation> notes = nccl_annotations(*f.trace);
    // The innermost annotation enclosing the launch call of kernel g on its thread, or null.
    auto annotation_of = [&](const GpuEvent& g) -> const NcclAnnotation* {
      if (notes.empty() || g.runtime < 0) return nullptr;
      const uint32_t ce = f.cpu[static_cast<size_t>(g.runtime)].event;
      const int64_t key = (static_cast<int64_t>(f.trace->pid[ce]) << 32) ^ static_cast<int64_t>(static_cast<uint32_t>(f.trace->tid[ce]));
      const int64_t ts = f.trace->ts_ns[ce];
      auto it = std::upper_bound(notes.begin(), notes.end(), std::make_pair(key, ts), [](const auto& kv, const NcclAnnotation& a) {
        return kv.first != a.key ? kv.first < a.key : kv.second < a.ts;
      });
      // Walk back over the annotations starting at or before the call (nested ones are rare).
      for (int back = 0; it != notes.begin() && back < 8; ++back) {
        --it;
        if (it->key != key) break;
        if (it->end > ts) return &*it;
      }
      return nullptr;
    };
    const int64_t base = f.trace->base_time_ns >= 0 ? f.trace->base_time_ns : 0;
    for (const auto& g : f.gpu) {
      if (g.kind != KernelKind::Communication) continue;
      const std::string& n = f.name(g.name);
      KernelInfo ki = parse_nccl_name(n);
      const CollectiveArgs* a = nullptr;
      auto it = args.find(g.event);
      if (it != args.end()) a = it->second;
      const NcclAnnotation* note = a && a->in_msg_nelems >= 0 ? nullptr : annotation_of(g);
      // An older NCCL runs all-to-all as SendRecv kernels: the annotation names the collective.
      if (note && !note->op.empty() && (ki.op == "SendRecv" || ki.op == "unknown")) ki.op = note->op;
      // NCCL 2.19 on names its LL128/SIMPLE collectives ncclDevKernel_Generic_N, and RCCL
      // rcclGenericKernel: the kernel's `Collective name` arg says which collective ran (they were
      // matched as "Generic" or "unknown", at a bus factor of 1; review of 2026-12-05).
      if (a && (ki.op == "Generic" || ki.op == "unknown" || ki.op == "SendRecv")) {
        const std::string op = nccl_op_of(a->collective_name);
        if (!op.empty()) ki.op = op;
      }
      // Point to point in a group of more than two (a pipeline's sends and receives): a pair's
      // kernels carry no peer, so they cannot be told from another pair's. In a pair (a group of
      // two, or two ranks loaded where the size is unknown) both ends are the group.
      if (ki.op == "SendRecv") {
        const int64_t members = a && a->group_size > 0 ? a->group_size : static_cast<int64_t>(frames.size());
        if (members > 2) {
          if (stats) ++stats->point_to_point;
          continue;
        }
      }
      std::string pg = a ? a->pg_name : "";
      const bool by_seq = a && a->seq >= 0;
      double bytes = -1;
      const double elem_bytes = a && a->in_msg_nelems >= 0 ? dtype_bytes(a->dtype) : 0.0;
      if (elem_bytes > 0)
        bytes = static_cast<double>(std::max(a->in_msg_nelems, a->out_msg_nelems)) * elem_bytes;
      else if (note)
        bytes = note->bytes;
      // A size lost to a dtype name with no known element size is named (it had been only "no
      // message size recorded" for Bool, Short, Float8 and complex collectives; review of 2026-12-05).
      if (stats && bytes <= 0) {
        const std::string* unknown = a && a->in_msg_nelems >= 0 ? (elem_bytes > 0 ? nullptr : &a->dtype)
                                     : note && !note->unknown_type.empty() ? &note->unknown_type
                                                                          : nullptr;
        if (unknown) {
          auto& [count, example] = stats->unknown_dtypes[unknown->empty() ? std::string("(no dtype arg)") : *unknown];
          if (count++ == 0) example = "rank " + std::to_string(f.rank()) + ", " + group_prefix(pg) + ki.op;
        }
      }
      Occurrence occ{f.rank(), base + f.trace->ts_ns[g.event], base + f.trace->ts_ns[g.event] + f.trace->dur_ns[g.event],
                     bytes, ki.algo};
      // The annotation records the collective's input: an all-gather's is one rank's shard.
      occ.shard_bytes = note && bytes > 0 && ki.op == "AllGather";
      if (a && a->group_size > 0) occ.group_size = a->group_size;
      {
        // Per-rank sizes of a gather, scatter or all-to-all may legitimately differ (uneven splits:
        // PyTorch records each rank's own numel; Megatron-Core's MoE dispatchers gather unevenly);
        // its kernel may say Broadcast or Reduce where an uneven one is coalesced (review of
        // 2026-12-07: a desync warning had fired on them).
        auto uneven = [](const std::string& op) { return op == "AllGather" || op == "ReduceScatter" || op == "AllToAll"; };
        occ.uneven_sizes_ok = uneven(ki.op) || (a && uneven(nccl_op_of(a->collective_name))) || (note && uneven(note->op));
      }
      if (g.runtime >= 0) occ.step = steps[fi].at(f.cpu[static_cast<size_t>(g.runtime)].ts);
      if (by_seq)
        coll[{pg, ki.op, a->seq}].push_back(std::move(occ));
      else
        unsequenced[{pg, ki.op}].push_back(std::move(occ));
    }
  }
  std::map<int64_t, size_t>& frame_of = ev.frame_of;
  for (size_t i = 0; i < frames.size(); ++i) frame_of.emplace(frames[i].rank(), i);
  for (auto& [po, occs] : unsequenced) {
    const auto& [pg, op] = po;
    std::map<int64_t, std::set<int64_t>> ranks_in_step;
    bool all_in_steps = true, shared_step = false;
    for (const auto& o : occs) {
      if (o.step < 0) {
        all_in_steps = false;
        break;
      }
      auto& ranks = ranks_in_step[o.step];
      ranks.insert(o.rank);
      if (ranks.size() >= 2) shared_step = true;
    }
    if (all_in_steps && shared_step) {
      // (step, order within the step on its rank), numbered in that order over every rank's.
      std::map<std::pair<int64_t, int64_t>, int64_t> in_step;  // (rank, step) -> kernels so far
      std::vector<std::pair<int64_t, int64_t>> at(occs.size());
      std::map<std::pair<int64_t, int64_t>, int64_t> sequence;
      for (size_t i = 0; i < occs.size(); ++i) {
        at[i] = {occs[i].step, in_step[{occs[i].rank, occs[i].step}]++};
        sequence.emplace(at[i], 0);
      }
      int64_t next = 0;
      for (auto& [k, v] : sequence) v = next++;
      std::set<int64_t> op_ranks;
      for (size_t i = 0; i < occs.size(); ++i) {
        op_ranks.insert(occs[i].rank);
        coll[{pg, op, sequence[at[i]]}].push_back(std::move(occs[i]));
      }
      if (!stats) continue;
      for (const auto& [n, runners] : ranks_in_step) {
        std::vector<int64_t> lacking;
        int64_t lo = INT64_MAX, hi = INT64_MIN, lo_rank = -1, hi_rank = -1;
        for (const int64_t r : op_ranks) {
          if (!steps[frame_of.at(r)].held.count(n)) {
            lacking.push_back(r);
            continue;
          }
          auto it = in_step.find({r, n});
          const int64_t c = it == in_step.end() ? 0 : it->second;
          if (c < lo) lo = c, lo_rank = r;
          if (c > hi) hi = c, hi_rank = r;
        }
        if (!lacking.empty()) {
          if (stats->partial_step_collectives == 0)
            stats->partial_step_example = group_prefix(pg) + op + " in ProfilerStep#" + std::to_string(n) + ": run by " +
                                          rank_list(std::vector<int64_t>(runners.begin(), runners.end())) + "; not in the trace of " +
                                          rank_list(lacking);
          stats->partial_step_collectives += hi > 0 ? hi : 0;
        }
        if (lo_rank >= 0 && lo != hi && stats->unequal_step_count_keys++ == 0)
          stats->unequal_step_example = group_prefix(pg) + op + " in ProfilerStep#" + std::to_string(n) + ": rank " +
                                        std::to_string(lo_rank) + " ran " + std::to_string(lo) + ", rank " + std::to_string(hi_rank) +
                                        " " + std::to_string(hi);
      }
      continue;
    }
    // By order on each rank. Kernels paired from different steps are counted: the ranks' windows
    // are shifted (where some kernel lies in no step, so steps cannot key the match).
    std::map<int64_t, int64_t> ordinal;  // rank -> kernels so far
    std::map<int64_t, std::map<int64_t, std::vector<int64_t>>> step_ranks;  // ordinal -> step -> ranks
    for (auto& o : occs) {
      const int64_t seq = ordinal[o.rank]++;
      ++by_order[po][o.rank];
      if (o.step >= 0) step_ranks[seq][o.step].push_back(o.rank);
      coll[{pg, op, seq}].push_back(std::move(o));
    }
    if (!stats) continue;
    for (const auto& [seq, by_step] : step_ranks) {
      if (by_step.size() < 2) continue;
      if (stats->cross_step_collectives++ > 0) continue;
      std::string e = group_prefix(pg) + op + " sequence " + std::to_string(seq) + ":";
      for (const auto& [n, ranks] : by_step) e += " " + rank_list(ranks) + " in ProfilerStep#" + std::to_string(n) + ";";
      e.pop_back();
      stats->cross_step_example = e;
    }
  }
  int64_t dropped = 0;
  for (auto& [key, occ] : coll) {
    std::stable_sort(occ.begin(), occ.end(), [](const Occurrence& a, const Occurrence& b) {
      return a.rank != b.rank ? a.rank < b.rank : a.start_ns < b.start_ns;
    });
    const auto end = std::unique(occ.begin(), occ.end(), [](const Occurrence& a, const Occurrence& b) { return a.rank == b.rank; });
    dropped += occ.end() - end;
    occ.erase(end, occ.end());
  }
  if (repeats) *repeats = dropped;
  for (const auto& [key, counts] : by_order) {
    int64_t lo = INT64_MAX, hi = INT64_MIN, lo_rank = -1, hi_rank = -1;
    for (const auto& [rank, n] : counts) {
      if (n < lo) lo = n, lo_rank = rank;
      if (n > hi) hi = n, hi_rank = rank;
    }
    if (lo == hi) continue;
    ev.unequal_by_order.insert(key);
    if (stats && stats->unequal_count_keys++ == 0)
      stats->unequal_example = group_prefix(key.first) + key.second + ": rank " + std::to_string(lo_rank) + " ran " +
                               std::to_string(lo) + ", rank " + std::to_string(hi_rank) + " " + std::to_string(hi);
  }
  return coll;
}

// The desync check: loaded members of a collective's process group that did not run it though
// their traces cover it, into stats.absent_members (the first as stats.absent_example). The
// matches' times are on the corrected clock, and `offsets` (empty without clock sync) moves each
// rank's own span onto it: before 2026-12-05 the time-span test compared raw clocks, and a rank
// whose clock ran 2 ms ahead and whose profile ended a step earlier spanned, on its raw clock, a
// collective it was never profiled at (review).
void find_absent_members(const std::vector<Frame>& frames, const CollectiveMatches& coll, const MatchEvidence& ev,
                         const std::map<int64_t, ClockOffset>& offsets, MatchStats& stats) {
  // Members of each process group among the ranks loaded: those with any of its kernels.
  std::map<std::string, std::set<int64_t>> members;
  for (const auto& [key, occ] : coll)
    for (const auto& o : occ) members[std::get<0>(key)].insert(o.rank);
  // Each rank's span on the matches' clock (baseTimeNanoseconds added, its clock offset taken
  // off), computed when first asked.
  std::vector<std::pair<int64_t, int64_t>> span(frames.size(), {1, 0});
  auto span_of = [&](size_t i) {
    if (span[i].first > span[i].second) {
      const RankTrace& t = *frames[i].trace;
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (size_t e = 0; e < t.ts_ns.size(); ++e) {
        lo = std::min(lo, t.ts_ns[e]);
        hi = std::max(hi, t.ts_ns[e] + std::max<int64_t>(0, t.dur_ns[e]));
      }
      auto off = offsets.find(frames[i].rank());
      const int64_t shift = (t.base_time_ns >= 0 ? t.base_time_ns : 0) - (off == offsets.end() ? 0 : off->second.offset_ns);
      span[i] = lo <= hi ? std::make_pair(lo + shift, hi + shift) : std::make_pair(int64_t{0}, int64_t{-1});
    }
    return span[i];
  };
  for (const auto& [key, occ] : coll) {
    // Matched by order with unequal counts, the pairing is off from the first kernel a rank lacks
    // (already a warning), so a sequence says nothing of who ran what: a rank whose trace lacks
    // step 0 had been blamed for the last sequence, which it ran as its second (review of 2026-12-05).
    if (ev.unequal_by_order.count({std::get<0>(key), std::get<1>(key)})) continue;
    int64_t group = -1;
    for (const auto& o : occ) group = std::max(group, o.group_size);
    const auto& m = members[std::get<0>(key)];
    if (group <= 0 || static_cast<int64_t>(occ.size()) >= group || static_cast<int64_t>(m.size()) > group) continue;
    // The step all its kernels lie in, where they agree.
    int64_t step = occ.front().step;
    int64_t smin = INT64_MAX, emax = INT64_MIN;
    for (const auto& o : occ) {
      if (o.step != step) step = -1;
      smin = std::min(smin, o.start_ns);
      emax = std::max(emax, o.end_ns);
    }
    std::vector<int64_t> absent;
    auto ran = occ.begin();  // occ is in rank order (match_all sorted it): one walk beside the members'
    for (const int64_t r : m) {
      while (ran != occ.end() && ran->rank < r) ++ran;
      if (ran != occ.end() && ran->rank == r) continue;
      const size_t i = ev.frame_of.at(r);
      bool covers;
      if (step >= 0 && !ev.steps[i].spans.empty()) {
        covers = ev.steps[i].held.count(step) > 0;
      } else {
        const auto [lo, hi] = span_of(i);
        covers = lo <= smin && emax <= hi;
      }
      if (covers) absent.push_back(r);
    }
    if (absent.empty()) continue;
    if (stats.absent_members.empty())
      stats.absent_example = rank_list(absent) + " did not run " + std::get<1>(key) + " sequence " + std::to_string(std::get<2>(key)) +
                             (std::get<0>(key).empty() ? std::string() : " of process group " + std::get<0>(key)) + " that " +
                             std::to_string(occ.size()) + " of " + (absent.size() == 1 ? "its " : "their ") +
                             std::to_string(group) + " group members ran";
    stats.absent_members.emplace(key, std::move(absent));
  }
}
}  // namespace

CollectiveMatches match_collectives(const std::vector<Frame>& frames, int64_t* repeats, MatchStats* stats) {
  MatchEvidence ev;
  return match_all(frames, repeats, stats, ev);
}

void run_collectives(const AnalysisContext& ctx, Result& r) {
  if (ctx.frames.size() < 2) {
    if (!ctx.opt.hta) ctx.diagnostics.add("collectives: one rank loaded, nothing to match across ranks", "info", "");
    return;
  }
  // Ranks of different jobs (TraceSet::not_one_job): their kernels had been paired into
  // collectives with a bus bandwidth and a straggler (review of 2026-12-07). Skipped in both
  // modes (HTA's straggler ranks compare the ranks too); the loader's warning says so.
  if (!ctx.set.not_one_job.empty()) return;
  if (ctx.opt.hta) {
    hta_stragglers(ctx, r);
    return;
  }
  int64_t repeats = 0;
  MatchStats stats;
  auto coll = matched_collectives(ctx.frames, ctx.opt.clock_sync, &repeats, &stats);
  if (stats.point_to_point > 0)
    ctx.diagnostics.add_count("collectives: point-to-point SendRecv kernels (pipeline sends and receives) are not a rendezvous of "
                              "their group: left out of matching, clock offsets and stragglers",
                              "info", "", stats.point_to_point);
  if (stats.unequal_count_keys > 0)
    ctx.diagnostics.add_count("collectives: kernels without a sequence number are matched by their order on each rank, and the ranks "
                              "ran different counts of them: from the first one a rank lacks, its occurrences pair with the others' "
                              "next (wrong clock offsets, sync times and stragglers)",
                              "warning", stats.unequal_example, stats.unequal_count_keys);
  if (stats.unequal_step_count_keys > 0)
    ctx.diagnostics.add_count("collectives: kernels without a sequence number are matched by ProfilerStep and their order within it, "
                              "and ranks whose traces hold a step ran different counts of them in it: within that step, from the "
                              "first one a rank lacks, its occurrences pair with the others' next (a skipped collective or a desync)",
                              "warning", stats.unequal_step_example, stats.unequal_step_count_keys);
  if (stats.partial_step_collectives > 0)
    ctx.diagnostics.add_count("collectives: kernels without a sequence number are matched by ProfilerStep and their order within it; "
                              "some steps are in only some ranks' traces (the profiled windows differ): their collectives are matched "
                              "among the ranks that hold them",
                              "info", stats.partial_step_example, stats.partial_step_collectives);
  if (stats.cross_step_collectives > 0)
    ctx.diagnostics.add_count("collectives: kernels without a sequence number are matched by their order on each rank (some lie in no "
                              "ProfilerStep), and that order pairs kernels of different ProfilerStep numbers: the ranks' profiled "
                              "windows are shifted, so clock offsets, sync times and stragglers compare different iterations",
                              "warning", stats.cross_step_example, stats.cross_step_collectives);
  if (!stats.absent_members.empty()) {
    // A rank that did not run a collective its group ran (review of 2026-12-05: rank 2 skipping
    // an all-reduce the other three waited 50 ms in passed without a word, and that wait read as a
    // bus bandwidth).
    ctx.diagnostics.add_count("collectives: ranks did not run a collective that other members of their process group ran, though "
                              "their traces cover it (they hold its ProfilerStep, or span its time): a desync, the signature of a "
                              "hang or a skipped collective; the others' time in it is waiting, so it has no bus bandwidth",
                              "warning", stats.absent_example, static_cast<int64_t>(stats.absent_members.size()));
  }
  if (repeats > 0)
    ctx.diagnostics.add_count("collectives: a kernel repeats a (process group, operation, sequence) its rank already ran "
                              "(left out; the earliest is matched)",
                              "warning", "a merged or malformed trace", repeats);
  r.set("collectives_clock_sync", std::string(ctx.opt.clock_sync ? "collective ends (see clock_skew)" : "none (baseTimeNanoseconds only)"));
  Table& t = r.add_table("collectives", "NCCL collectives matched across ranks");
  t.add_str("process_group");
  t.add_str("operation");
  t.add_i64("sequence");
  t.add_str("algorithm");
  t.add_i64("ranks_count");
  t.add_f64("size_bytes");
  t.add_f64("mean_duration_us");
  t.add_f64("sync_duration_us");
  t.add_f64("start_skew_us");
  t.add_f64("end_skew_us");
  t.add_i64("last_rank");
  t.add_f64("bus_bandwidth_bytes_per_s");
  // Per-rank arrival at the first matched collectives (rows of `collectives` in order): how much later
  // than the first rank each rank started. Bounded to kArrivalCells cells so thousands of ranks stay small.
  Table& a = r.add_table("collective_arrivals",
                         "per-rank arrival at the first matched collectives: start after the earliest rank");
  a.add_i64("collective_row");
  a.add_i64("rank");
  a.add_f64("arrival_delay_us");
  constexpr size_t kArrivalCells = 100000;
  constexpr int64_t kArrivalCollectives = 400;
  size_t ranks_max = 0;
  for (const auto& [key, occ] : coll) ranks_max = std::max(ranks_max, occ.size());
  const int64_t arrival_rows =
      std::min<int64_t>(kArrivalCollectives, static_cast<int64_t>(kArrivalCells / std::max<size_t>(1, ranks_max)));
  int64_t matched = 0, unmatched = 0, unsized = 0, overlapless = 0, unequal_sizes = 0;
  std::string unsized_example, overlapless_example, unequal_sizes_example;
  // A rank whose collectives of a group of two or more matched nobody because it is the only
  // loaded rank that ran that process group (review of 2026-12-07: rank 3 naming its group "1"
  // where the others named it "0" dropped out of the collectives and stragglers tables with only
  // collectives_unmatched_count to show for it). Members: the loaded ranks with a kernel of it.
  std::map<std::string, std::set<int64_t>> pg_members;
  for (const auto& [key, occ] : coll)
    for (const auto& o : occ) pg_members[std::get<0>(key)].insert(o.rank);
  std::map<std::pair<int64_t, std::string>, std::pair<int64_t, int64_t>> lone;  // (rank, group) -> (kernels, Group size)
  for (auto& [key, occ] : coll) {
    if (occ.size() < 2) {
      ++unmatched;
      if (occ.size() == 1 && occ.front().group_size >= 2 && pg_members[std::get<0>(key)].size() == 1) {
        auto& [kernels, size] = lone[{occ.front().rank, std::get<0>(key)}];
        ++kernels;
        size = std::max(size, occ.front().group_size);
      }
      continue;
    }
    const int64_t row = matched;
    ++matched;
    std::sort(occ.begin(), occ.end(), [](const Occurrence& a, const Occurrence& b) { return a.rank < b.rank; });
    int64_t smin = INT64_MAX, smax = INT64_MIN, emin = INT64_MAX, emax = INT64_MIN, last_rank = -1;
    double dsum = 0, bytes = -1;
    // The communicator's size where a rank's trace records it, else the ranks matched: with a
    // rank's trace missing (truncated, not collected) the bus-bandwidth factor and an all-gather's
    // total are still the communicator's (before 2026-12-02 they used the traces loaded).
    int64_t group = -1;
    for (const auto& o : occ) group = std::max(group, o.group_size);
    const double members = group > 0 ? static_cast<double>(group) : static_cast<double>(occ.size());
    std::vector<int64_t> starts;
    // The ranks' message sizes should agree within one collective (an all-to-all's, all-gather's or
    // reduce-scatter's need not: their splits may be uneven, and each rank records its own sizes;
    // a second review of 2026-12-07: the warning had fired on uneven gathers): a mismatch is a
    // desync or a malformed trace, and had passed in silence with size_bytes the largest.
    double size_lo = 0, size_hi = 0;
    int64_t size_lo_rank = -1, size_hi_rank = -1;
    bool uneven_ok = false;
    for (const auto& o : occ) {
      smin = std::min(smin, o.start_ns);
      if (o.start_ns > smax) {
        smax = o.start_ns;
        last_rank = o.rank;
      }
      emin = std::min(emin, o.end_ns);
      emax = std::max(emax, o.end_ns);
      dsum += static_cast<double>(o.end_ns - o.start_ns);
      const double b = o.shard_bytes ? o.bytes * members : o.bytes;
      bytes = std::max(bytes, b);
      if (b > 0 && (size_lo_rank < 0 || b < size_lo)) size_lo = b, size_lo_rank = o.rank;
      if (b > 0 && (size_hi_rank < 0 || b > size_hi)) size_hi = b, size_hi_rank = o.rank;
      starts.push_back(o.start_ns);
      uneven_ok = uneven_ok || o.uneven_sizes_ok;
    }
    if (size_lo_rank >= 0 && size_hi > size_lo * (1 + 1e-9) && std::get<1>(key) != "AllToAll" && !uneven_ok && ++unequal_sizes == 1) {
      char b[160];
      std::snprintf(b, sizeof b, ": rank %lld %.0f bytes, rank %lld %.0f bytes", static_cast<long long>(size_lo_rank), size_lo,
                    static_cast<long long>(size_hi_rank), size_hi);
      unequal_sizes_example = group_prefix(std::get<0>(key)) + std::get<1>(key) + " sequence " + std::to_string(std::get<2>(key)) + b;
    }
    // No rank is last where the latest start is shared (all together): -1, not the lowest of them
    // (rank 0 had been "last" at every collective that started in step; 2026-12-04 review).
    if (std::count(starts.begin(), starts.end(), smax) > 1) last_rank = -1;
    if (row < arrival_rows)
      for (const auto& o : occ) a.add_row({row, o.rank, static_cast<double>(o.start_ns - smin) / 1000.0});
    double sync_ns = static_cast<double>(emin - smax);
    double n = static_cast<double>(occ.size());
    // A collective a loaded member skipped transferred nothing while the others waited for it.
    const bool member_absent = stats.absent_members.count(key) > 0;
    double busbw = bytes > 0 && sync_ns > 0 && !member_absent ? bytes / (sync_ns * 1e-9) * bus_factor(std::get<1>(key), members)
                                                              : std::nan("");
    if (sync_ns < 0 && ++overlapless == 1)
      overlapless_example = group_prefix(std::get<0>(key)) + std::get<1>(key) + " sequence " + std::to_string(std::get<2>(key));
    if (bytes <= 0 && ++unsized == 1)
      unsized_example = group_prefix(std::get<0>(key)) + std::get<1>(key) + " sequence " + std::to_string(std::get<2>(key));
    t.add_row({std::get<0>(key), std::get<1>(key), std::get<2>(key), occ.front().algo, static_cast<int64_t>(occ.size()),
               bytes > 0 ? bytes : std::nan(""), dsum / n / 1000.0, sync_ns / 1000.0, static_cast<double>(smax - smin) / 1000.0,
               static_cast<double>(emax - emin) / 1000.0, last_rank, busbw});
  }
  if (overlapless > 0)
    ctx.diagnostics.add_count("collectives: matched kernels that do not overlap in time on all ranks (sync_duration_us < 0: the last "
                              "started after the first ended), so they are not one rendezvous, or the clocks are far apart; their "
                              "bus bandwidth is unknown",
                              "warning", overlapless_example, overlapless);
  if (unsized > 0)
    ctx.diagnostics.add_count("collectives: no message size recorded (no `In msg nelems` with a known dtype on the kernel, "
                              "no nccl:* annotation with Input Dims); size_bytes and bus_bandwidth_bytes_per_s are unknown",
                              "info", unsized_example, unsized);
  if (unequal_sizes > 0)
    ctx.diagnostics.add_count("collectives: the ranks of a matched collective record different message sizes (`In/Out msg nelems` x "
                              "dtype, or the nccl:* annotation's Input Dims): a desync or ranks running different collectives under "
                              "one sequence number (not counted for all-gather, reduce-scatter and all-to-all, whose splits may be uneven); "
                              "size_bytes and bus_bandwidth_bytes_per_s use the largest",
                              "warning", unequal_sizes_example, unequal_sizes);
  if (!lone.empty()) {
    int64_t kernels = 0;
    for (const auto& [rg, kn] : lone) kernels += kn.first;
    const auto& [rg, kn] = *lone.begin();
    std::string example = "rank " + std::to_string(rg.first) + ": " + std::to_string(kn.first) + " kernels of process group " +
                          (rg.second.empty() ? std::string("(unnamed)") : rg.second) + " (Group size " + std::to_string(kn.second) + ")";
    // The groups of that size the other ranks ran, where they are few: the name it likely should have had.
    std::vector<std::string> peers;
    for (const auto& [key, occ] : coll) {
      if (occ.size() < 2 || std::get<0>(key) == rg.second) continue;
      int64_t g = -1;
      for (const auto& o : occ) g = std::max(g, o.group_size);
      if (g == kn.second && std::find(peers.begin(), peers.end(), std::get<0>(key)) == peers.end()) peers.push_back(std::get<0>(key));
    }
    if (!peers.empty() && peers.size() <= 4) {
      example += "; the other ranks' matched groups of that size: ";
      for (size_t i = 0; i < peers.size(); ++i) example += (i ? ", " : "") + (peers[i].empty() ? std::string("(unnamed)") : peers[i]);
    }
    if (lone.size() > 1) example += "; " + std::to_string(lone.size() - 1) + " more (rank, group) pairs";
    ctx.diagnostics.add_count("collectives: a rank is the only loaded rank to run a process group whose `Group size` is 2 or more, so "
                              "its collectives there matched no other rank's (kernels counted): its process group name differs "
                              "from its peers' (ranks that disagree on the group: a desync) or its peers' traces are not loaded; "
                              "they are left out of the collectives, clock offsets and stragglers",
                              "warning", example, kernels);
  }
  for (const auto& [dtype, seen] : stats.unknown_dtypes)
    ctx.diagnostics.add_count("collectives: no message size recorded for dtype `" + dtype +
                                  "`: no known element size (kernels counted); size_bytes and bus_bandwidth_bytes_per_s are unknown",
                              "warning", seen.second, seen.first);
  r.set("collectives_matched_count", matched);
  r.set("collective_arrivals_collectives_count", std::min(matched, arrival_rows));
  r.set("collectives_unmatched_count", unmatched);
  Table& s = r.add_table("stragglers",
                         "ranks by the time the typical rank waited for them at collectives (start after the others' median "
                         "start, less what its waits for other ranks since it last met the median one explain: inherited_lateness_us); "
                         "held_back_us: the marginal hold beyond the second-latest rank where it arrived last");
  s.add_i64("rank");
  s.add_i64("last_arrivals_count");
  s.add_f64("caused_wait_us");
  s.add_f64("held_back_us");
  s.add_f64("waited_for_others_us");
  s.add_f64("mean_lateness_vs_median_us");
  s.add_f64("inherited_lateness_us");
  const auto late = rank_lateness(coll);
  std::vector<std::pair<int64_t, RankLateness>> v(late.begin(), late.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    if (a.second.caused_wait_us != b.second.caused_wait_us) return a.second.caused_wait_us > b.second.caused_wait_us;
    return a.second.held_back_us > b.second.held_back_us;
  });
  for (const auto& [rank, h] : v)
    s.add_row({rank, h.last_arrivals, h.caused_wait_us, h.held_back_us, h.waited_for_others_us, h.mean_late_vs_median_us(),
               h.inherited_late_us});
}

namespace {
// Each matched occurrence's held_ns: its wait for the last rank less the union of its rank's own
// compute and memory kernels (non-communication GPU work, on any stream), on the corrected clock
// (review of 2026-12-07: a side all-reduce on a comm stream that spun for a late peer while the
// rank's GEMM kept running had counted as a wait, and it excused the rank's own 2 ms slower GEMM
// at the next DP all-reduce: 0 caused, no straggler finding). Per rank its work is sorted and
// merged once, and each wait span is cut by a binary search and a walk over the work inside it.
void mark_held_waits(const std::vector<Frame>& frames, const std::map<int64_t, ClockOffset>& off, CollectiveMatches& coll) {
  std::map<int64_t, std::vector<std::pair<int64_t, int64_t>>> work;  // rank -> merged [start, end) in ns
  for (const Frame& f : frames) {
    const auto o = off.find(f.rank());
    const int64_t shift = o == off.end() ? 0 : o->second.offset_ns;
    const int64_t base = f.trace->base_time_ns >= 0 ? f.trace->base_time_ns : 0;
    auto& w = work[f.rank()];
    for (const auto& g : f.gpu) {
      if (g.kind == KernelKind::Communication) continue;
      const int64_t a = base + f.trace->ts_ns[g.event] - shift;
      const int64_t b = a + f.trace->dur_ns[g.event];
      if (b > a) w.emplace_back(a, b);
    }
  }
  for (auto& [rank, w] : work) {
    std::sort(w.begin(), w.end());
    size_t k = 0;
    for (size_t i = 0; i < w.size(); ++i) {
      if (k > 0 && w[i].first <= w[k - 1].second) {
        w[k - 1].second = std::max(w[k - 1].second, w[i].second);
        continue;
      }
      w[k++] = w[i];
    }
    w.resize(k);
  }
  const std::vector<std::pair<int64_t, int64_t>> none;
  for (auto& [key, occ] : coll) {
    int64_t smax = INT64_MIN;
    for (const auto& o : occ) smax = std::max(smax, o.start_ns);
    for (auto& o : occ) {
      o.held_known = true;
      o.held_ns.clear();
      const int64_t wait = std::min(o.end_ns - o.start_ns, std::max<int64_t>(0, smax - o.start_ns));
      if (wait <= 0) continue;
      const auto wi = work.find(o.rank);
      const auto& w = wi == work.end() ? none : wi->second;
      const int64_t b = o.start_ns + wait;
      int64_t cur = o.start_ns;
      auto it = std::upper_bound(w.begin(), w.end(), cur, [](int64_t t, const auto& x) { return t < x.second; });
      for (; it != w.end() && it->first < b; ++it) {
        if (it->first > cur) o.held_ns.emplace_back(cur, it->first);
        cur = std::max(cur, it->second);
      }
      if (cur < b) o.held_ns.emplace_back(cur, b);
    }
  }
}
}  // namespace

CollectiveMatches matched_collectives(const std::vector<Frame>& frames, bool clock_sync, int64_t* repeats, MatchStats* stats) {
  MatchEvidence ev;
  auto coll = match_all(frames, repeats, stats, ev);
  std::map<int64_t, ClockOffset> off;
  if (clock_sync) {
    off = estimate_clock_offsets(coll);
    for (auto& [key, occ] : coll)
      for (auto& o : occ) {
        auto it = off.find(o.rank);
        if (it == off.end()) continue;
        o.start_ns -= it->second.offset_ns;
        o.end_ns -= it->second.offset_ns;
      }
  }
  // Here, where the offsets are known: a rank's span is judged on the clock its matches are on.
  if (stats) find_absent_members(frames, coll, ev, off, *stats);
  mark_held_waits(frames, off, coll);
  return coll;
}

CollectiveWaits waits_at_collectives(const CollectiveMatches& m, const std::set<int64_t>& ranks, double min_share) {
  CollectiveWaits w;
  const auto late = rank_lateness(m);
  std::map<int64_t, double> collective_us;
  for (const auto& [key, occ] : m)
    if (occ.size() >= 2)
      for (const auto& o : occ) collective_us[o.rank] += static_cast<double>(o.end_ns - o.start_ns) / 1000.0;
  int64_t more = 0;
  for (const int64_t rank : ranks) {
    const auto l = late.find(rank);
    const auto c = collective_us.find(rank);
    if (l == late.end() || c == collective_us.end() || c->second <= 0) continue;
    const double share = l->second.waited_for_others_us / c->second;
    if (share < min_share) continue;
    if (w.listed++ >= 8) {
      ++more;
      continue;
    }
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * share);
    w.waiting += (w.waiting.empty() ? "" : ", ") + std::string("rank ") + std::to_string(rank) + " " + pct;
  }
  if (w.waiting.empty()) return w;
  if (more > 0) w.waiting += " and " + std::to_string(more) + " more ranks";
  std::vector<std::pair<double, int64_t>> stragglers;
  for (const auto& [rank, l] : late)
    if (l.caused_wait_us > 0) stragglers.emplace_back(-l.caused_wait_us, rank);
  std::sort(stragglers.begin(), stragglers.end());
  w.late_ranks = stragglers.size();
  w.waited_for = stragglers.size() > 1 ? "ranks " : "rank ";
  for (size_t i = 0; i < stragglers.size() && i < 3; ++i) w.waited_for += (i ? ", " : "") + std::to_string(stragglers[i].second);
  if (stragglers.size() > 3) w.waited_for += ", ...";
  return w;
}

std::map<int64_t, RankLateness> rank_lateness(const CollectiveMatches& m) {
  std::map<int64_t, RankLateness> out;
  // Lateness a rank inherits (reviews of 2026-12-07). A rank's arrival at a collective, against a
  // peer's, is the difference of their releases from the last collective both ran (equal there, up
  // to end skew) plus what each did since: its compute and transfer time (its own) and its waits
  // for other ranks at the collectives it ran without that peer (not its own). So of its lateness
  // against the others' median start, the part inherited is its waits since that last common
  // collective less the median peer's waits since then (the mean over the two median peers where
  // the others are even), bounded by 0 and the lateness. Waits carry along a rank's own sequence
  // of collectives however many hops they took: with TP pairs {0,1} and {2,3} under a DP
  // all-reduce and rank 3 slow by 25 us before each of 16 TP all-reduces, rank 2 waits 25 us at
  // each and reaches the DP all-reduce 400 us after ranks 0 and 1, all of it inherited (only the
  // previous collective's 25 us had been, and rank 2 was a medium straggler); a rank that waited
  // for rank 3 and so reached a pair {2,4} late carries the wait on to the DP all-reduce (rank 2
  // had been a high straggler there). Where a rank was slow itself, the others waited for it at
  // the collective it shared with them, so an old wait of its own does not excuse a later
  // slowness (the count restarts at each common collective). A rank's waits are the union of its
  // wait intervals [start, start + wait) (overlapping collectives on two streams count once), less
  // the times its own compute and memory kernels ran beside them (CollectiveOccurrence::held_ns;
  // a third review of 2026-12-07: a wait overlapped by its own compute held nothing back, and it
  // had excused that rank's own slowness).
  struct Coll {
    const std::vector<CollectiveOccurrence>* occ;
    size_t pg;                                      // its process group's index
    std::vector<size_t> rank_of;                    // per occurrence, the rank's dense index
    std::vector<std::pair<int64_t, size_t>> ranks;  // (rank, occurrence), sorted: membership
  };
  std::vector<Coll> colls;
  std::map<int64_t, size_t> index_of;      // rank -> dense index
  std::map<std::string, size_t> pg_index;  // process group name -> index
  std::vector<std::vector<int64_t>> pg_ranks;  // per process group, its ranks (sorted)
  struct Done {
    int64_t end_ns;
    size_t coll;
  };
  // Per rank, per process group it ran, its collectives there by end: the last collective a rank
  // ran with a peer is the latest of the last ones of its groups that hold the peer, a few binary
  // searches (a walk back over its whole sequence had been cut short where a TP group ran hundreds
  // of collectives between two DP ones).
  std::vector<std::vector<std::pair<size_t, std::vector<Done>>>> done;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> wait_spans;  // per rank, [start, start + wait)
  for (const auto& [key, occ] : m) {
    if (occ.size() < 2) continue;
    const auto [pg_it, pg_fresh] = pg_index.emplace(std::get<0>(key), pg_ranks.size());
    if (pg_fresh) pg_ranks.emplace_back();
    Coll c{&occ, pg_it->second, {}, {}};
    int64_t smax = INT64_MIN;
    for (const auto& o : occ) smax = std::max(smax, o.start_ns);
    for (size_t q = 0; q < occ.size(); ++q) {
      const auto& o = occ[q];
      const auto [it, fresh] = index_of.emplace(o.rank, done.size());
      if (fresh) {
        done.emplace_back();
        wait_spans.emplace_back();
      }
      c.rank_of.push_back(it->second);
      c.ranks.emplace_back(o.rank, q);
      pg_ranks[c.pg].push_back(o.rank);
      auto& lists = done[it->second];
      auto list = std::find_if(lists.begin(), lists.end(), [&](const auto& l) { return l.first == c.pg; });
      if (list == lists.end()) list = lists.emplace(lists.end(), c.pg, std::vector<Done>{});
      list->second.push_back(Done{o.end_ns, colls.size()});
      if (o.held_known) {
        // Only the part of its wait its own compute did not run beside (review of 2026-12-07).
        wait_spans[it->second].insert(wait_spans[it->second].end(), o.held_ns.begin(), o.held_ns.end());
        continue;
      }
      const int64_t wait = std::min(o.end_ns - o.start_ns, std::max<int64_t>(0, smax - o.start_ns));
      if (wait > 0) wait_spans[it->second].emplace_back(o.start_ns, o.start_ns + wait);
    }
    std::sort(c.ranks.begin(), c.ranks.end());
    colls.push_back(std::move(c));
  }
  for (auto& r : pg_ranks) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  for (auto& lists : done)
    for (auto& [pg, d] : lists)
      std::stable_sort(d.begin(), d.end(), [](const Done& a, const Done& b) { return a.end_ns < b.end_ns; });
  // Per rank, its wait intervals merged, with the total waited before each: waited(t) is the
  // rank's total wait before t.
  struct Ledger {
    std::vector<int64_t> starts, ends, before;
  };
  std::vector<Ledger> ledger(wait_spans.size());
  for (size_t r = 0; r < wait_spans.size(); ++r) {
    auto& s = wait_spans[r];
    std::sort(s.begin(), s.end());
    auto& l = ledger[r];
    int64_t total = 0;
    for (const auto& [a, b] : s) {
      if (!l.ends.empty() && a <= l.ends.back()) {
        if (b > l.ends.back()) total += b - l.ends.back(), l.ends.back() = b;
        continue;
      }
      l.starts.push_back(a);
      l.ends.push_back(b);
      l.before.push_back(total);
      total += b - a;
    }
  }
  auto waited = [&](size_t r, int64_t t) -> int64_t {
    const auto& l = ledger[r];
    const size_t k = static_cast<size_t>(std::upper_bound(l.starts.begin(), l.starts.end(), t) - l.starts.begin());
    if (k == 0) return 0;
    return l.before[k - 1] + std::min(t, l.ends[k - 1]) - l.starts[k - 1];
  };
  // Rank r's (dense index) inherited delay at collective c against peer occurrence p of it: its
  // waits since the last collective before c that it ran with the peer (from the start of its
  // trace where none), less the peer's. Within a group that holds the peer, a collective the
  // peer's trace lacks is stepped over, kSkipped of them at most.
  constexpr int kSkipped = 64;
  auto inherited_against = [&](size_t c, size_t q, size_t p) -> double {
    const auto& occ = *colls[c].occ;
    const size_t ri = colls[c].rank_of[q], rj = colls[c].rank_of[p];
    const int64_t start_i = occ[q].start_ns, start_j = occ[p].start_ns, peer = occ[p].rank;
    int64_t from_i = INT64_MIN, from_j = INT64_MIN;
    for (const auto& [pg, d] : done[ri]) {
      if (!std::binary_search(pg_ranks[pg].begin(), pg_ranks[pg].end(), peer)) continue;
      auto it = std::upper_bound(d.begin(), d.end(), start_i, [](int64_t t, const Done& x) { return t < x.end_ns; });
      for (int skipped = 0; it != d.begin() && skipped <= kSkipped;) {
        --it;
        if (it->coll == c) continue;  // a zero-length collective is not its own previous one
        if (it->end_ns <= from_i) break;
        const auto& members = colls[it->coll].ranks;
        const auto f = std::lower_bound(members.begin(), members.end(), std::make_pair(peer, size_t{0}));
        if (f != members.end() && f->first == peer) {
          from_i = it->end_ns;
          from_j = (*colls[it->coll].occ)[f->second].end_ns;
          break;
        }
        ++skipped;
      }
    }
    const int64_t own_waits = std::max<int64_t>(0, waited(ri, start_i) - waited(ri, from_i));
    const int64_t peer_waits = start_j > from_j ? std::max<int64_t>(0, waited(rj, start_j) - waited(rj, from_j)) : 0;
    return static_cast<double>(own_waits - peer_waits);
  };
  std::vector<int64_t> starts;
  std::vector<size_t> order, pos;
  for (size_t c = 0; c < colls.size(); ++c) {
    const auto& occ = *colls[c].occ;
    starts.clear();
    int64_t smax = INT64_MIN, last_rank = -1;
    // The last rank: the latest start, the lowest rank of equal ones (occurrences are in rank order
    // once run_collectives sorted them; sort-free here: compare ranks).
    for (const auto& o : occ) {
      starts.push_back(o.start_ns);
      if (o.start_ns > smax || (o.start_ns == smax && o.rank < last_rank)) {
        smax = o.start_ns;
        last_rank = o.rank;
      }
    }
    std::sort(starts.begin(), starts.end());
    const int64_t s0 = starts.front();
    const size_t n = starts.size();
    // Starts are taken relative to the earliest one in integer ns, then in double.
    // The occurrences by (start, rank), and each one's place there: the others' median start is
    // that of the middle one or two of the others (without the rank itself: the typical other
    // rank waits that long for it; with two ranks the median of both is their midpoint, and the
    // wait read half the real one; 2026-12-04 review), and those are the peers its inherited
    // delay is measured against.
    order.resize(n);
    for (size_t q = 0; q < n; ++q) order[q] = q;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return occ[a].start_ns != occ[b].start_ns ? occ[a].start_ns < occ[b].start_ns : occ[a].rank < occ[b].rank;
    });
    pos.resize(n);
    for (size_t k = 0; k < n; ++k) pos[order[k]] = k;
    for (size_t q = 0; q < n; ++q) {
      const auto& o = occ[q];
      auto& h = out[o.rank];
      auto other = [&](size_t k) { return order[k < pos[q] ? k : k + 1]; };  // the k-th of the others by start
      const size_t k = n - 1;
      const size_t mid_lo = other(k % 2 ? k / 2 : k / 2 - 1), mid_hi = other(k / 2);
      const double others_median = 0.5 * static_cast<double>((occ[mid_lo].start_ns - s0) + (occ[mid_hi].start_ns - s0));
      const double behind_others = static_cast<double>(o.start_ns - s0) - others_median;
      // The mean lateness is against the others' median too (review of 2026-12-07: against the
      // median of all ranks, two ranks had read half of it, 150 us for a rank 300 us late, and the
      // straggler finding's "mean start after the median rank's" with it; so did 2 late ranks of 4).
      h.late_sum_us += behind_others / 1000.0;
      if (behind_others > 0) {
        const double carried = mid_lo == mid_hi ? inherited_against(c, q, mid_lo)
                                                : 0.5 * (inherited_against(c, q, mid_lo) + inherited_against(c, q, mid_hi));
        const double inherited = std::clamp(carried, 0.0, behind_others);
        h.inherited_late_us += inherited / 1000.0;
        h.caused_wait_us += (behind_others - inherited) / 1000.0;
      }
      const int64_t wait = std::min(o.end_ns - o.start_ns, std::max<int64_t>(0, smax - o.start_ns));
      h.waited_for_others_us += static_cast<double>(wait) / 1000.0;
      if (o.start_ns == smax) ++h.latest_arrivals;
      ++h.collectives;
    }
    // A shared latest start has no last rank (it had counted for the lowest of them).
    if (starts[n - 2] == smax) continue;
    auto& l = out[last_rank];
    ++l.last_arrivals;
    l.held_back_us += static_cast<double>(smax - starts[n - 2]) / 1000.0;
  }
  return out;
}

}  // namespace sextant::trace
