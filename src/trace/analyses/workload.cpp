// Workload characterisation for architects.
//  - workload_op_classes: GPU time per operator class (GEMM, convolution, attention, elementwise,
//    normalization, reduction/softmax, embedding, communication, memcpy, other), by kernel name.
//  - roofline: for operators whose "Input Dims" the trace records (aten::mm, addmm, bmm, baddbmm,
//    linear, matmul, convolution, scaled-dot-product attention), FLOPs and bytes per call from the
//    shapes, the GPU time of the kernels they launched (innermost operator on the launching
//    thread), achieved FLOP/s and bandwidth, and their place on the device's roofline
//    (min(peak FLOP/s, intensity x memory bandwidth)) from the catalog. The device is --device,
//    else the trace's deviceProperties name matched to the catalog.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "catalog/catalog.hpp"
#include "catalog/device_name.hpp"
#include "core/error.hpp"
#include "core/paths.hpp"
#include "trace/analyses/analysis.hpp"

namespace sextant::trace {

namespace {

bool has(const std::string& s, const char* p) { return s.find(p) != std::string::npos; }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string op_class(const std::string& name, KernelKind k) {
  if (k == KernelKind::Communication) return "communication";
  if (k == KernelKind::Memory) return "memcpy";
  const std::string n = lower(name);
  if (has(n, "flash") || has(n, "fmha") || has(n, "attention") || has(n, "sdpa") || has(n, "attn")) return "attention";
  // cuDNN also runs SDPA's fused attention (cudnn::fusion::*, and its RNG state unpacking
  // philox::unpack_cudnn): only its convolution kernels count as convolution.
  if (has(n, "cudnn::fusion") || has(n, "unpack_cudnn")) return "attention";
  if (has(n, "conv") || has(n, "winograd") || has(n, "implicit_gemm") || has(n, "implicit_convolve")) return "convolution";
  // cuBLAS GEMM kernels: sm80 cutlass/xmma names, and Hopper/Blackwell "nvjet" kernels (cuBLAS 12.x).
  if (has(n, "gemm") || has(n, "xmma") || has(n, "cutlass") || has(n, "cublas") || has(n, "matmul") ||
      has(n, "wgmma") || has(n, "magma") || has(n, "gemv") || n.rfind("nvjet", 0) == 0)
    return "gemm";
  if (has(n, "norm")) return "normalization";
  if (has(n, "embedding") || has(n, "index_select") || has(n, "indexselect") || has(n, "embed")) return "embedding";
  if (has(n, "softmax") || has(n, "reduce") || has(n, "reduction") || has(n, "triton_red") || has(n, "scan"))
    return "reduction_softmax";
  if (has(n, "elementwise") || has(n, "vectorized") || has(n, "unrolled") || has(n, "pointwise") ||
      has(n, "triton_poi") || has(n, "copy") || has(n, "fill") || has(n, "cat_") || has(n, "catarray"))
    return "elementwise";
  return "other";
}

struct DtypeInfo {
  double bytes = 0;
  DType peak = DType::FP32;
  std::string name;
};
DtypeInfo dtype_of(const std::string& t) {
  std::string s = lower(t);
  if (has(s, "bfloat16")) return {2, DType::BF16, "bf16"};
  if (has(s, "half") || has(s, "float16")) return {2, DType::FP16, "fp16"};
  if (has(s, "float8")) return {1, DType::FP8, "fp8"};
  if (has(s, "double")) return {8, DType::FP64, "fp64"};
  if (has(s, "float")) return {4, DType::FP32, "fp32"};
  return {0, DType::FP32, ""};
}

// Product of v's elements, leaving out `skip_front` leading and `skip_back` trailing ones.
double prod(const std::vector<int64_t>& v, size_t skip_front = 0, size_t skip_back = 0) {
  double p = 1;
  if (skip_front + skip_back >= v.size()) return p;
  for (auto it = v.begin() + static_cast<std::ptrdiff_t>(skip_front); it != v.end() - static_cast<std::ptrdiff_t>(skip_back); ++it)
    p *= static_cast<double>(*it);
  return p;
}

struct Cost {
  double flops = 0, elems = 0;  // elements read and written (bytes = elems x dtype bytes)
  std::string basis;
  bool ok = false;
};

// FLOPs and elements moved from the shapes; ok=false where the shapes do not fit the operator.
Cost cost_of(const std::string& op, const std::vector<std::vector<int64_t>>& d) {
  Cost c;
  auto dims_ok = [&](size_t i, size_t rank) { return i < d.size() && d[i].size() == rank; };
  if (op == "aten::mm" && dims_ok(0, 2) && dims_ok(1, 2)) {
    double M = static_cast<double>(d[0][0]), K = static_cast<double>(d[0][1]), N = static_cast<double>(d[1][1]);
    c = {2 * M * K * N, M * K + K * N + M * N, "2MKN", true};
  } else if (op == "aten::addmm" && dims_ok(1, 2) && dims_ok(2, 2) && !d[0].empty()) {
    double M = static_cast<double>(d[1][0]), K = static_cast<double>(d[1][1]), N = static_cast<double>(d[2][1]);
    c = {2 * M * K * N + M * N, prod(d[0]) + M * K + K * N + M * N, "2MKN + MN", true};
  } else if (op == "aten::bmm" && dims_ok(0, 3) && dims_ok(1, 3)) {
    double B = static_cast<double>(d[0][0]), M = static_cast<double>(d[0][1]), K = static_cast<double>(d[0][2]),
           N = static_cast<double>(d[1][2]);
    c = {2 * B * M * K * N, B * (M * K + K * N + M * N), "2BMKN", true};
  } else if (op == "aten::baddbmm" && dims_ok(1, 3) && dims_ok(2, 3)) {
    double B = static_cast<double>(d[1][0]), M = static_cast<double>(d[1][1]), K = static_cast<double>(d[1][2]),
           N = static_cast<double>(d[2][2]);
    c = {2 * B * M * K * N + B * M * N, prod(d[0]) + B * (M * K + K * N + M * N), "2BMKN + BMN", true};
  } else if (op == "aten::linear" && d.size() >= 2 && !d[0].empty() && dims_ok(1, 2)) {
    double rows = prod(d[0], 0, 1), K = static_cast<double>(d[0].back()),
           N = static_cast<double>(d[1][0]);
    bool bias = d.size() >= 3 && !d[2].empty();
    c = {2 * rows * K * N + (bias ? rows * N : 0), rows * K + N * K + rows * N + (bias ? N : 0),
         bias ? "2·rows·K·N + rows·N" : "2·rows·K·N", true};
  } else if (op == "aten::matmul" && d.size() >= 2 && d[0].size() >= 2 && d[1].size() >= 2) {
    const auto& a = d[0];
    const auto& b = d[1];
    double M = static_cast<double>(a[a.size() - 2]), K = static_cast<double>(a.back()), N = static_cast<double>(b.back());
    double batch = std::max(prod(a, 0, 2), prod(b, 0, 2));
    c = {2 * batch * M * K * N, prod(a) + prod(b) + batch * M * N, "2·batch·MKN", true};
  } else if (has(op, "attention") && d.size() >= 3 && d[0].size() == 4 && d[1].size() == 4 && d[2].size() == 4 &&
             !has(op, "backward")) {
    double B = static_cast<double>(d[0][0]), H = static_cast<double>(d[0][1]), L = static_cast<double>(d[0][2]),
           D = static_cast<double>(d[0][3]), S = static_cast<double>(d[1][2]), Dv = static_cast<double>(d[2][3]);
    c = {2 * B * H * L * S * D + 2 * B * H * L * S * Dv, prod(d[0]) + prod(d[1]) + prod(d[2]) + B * H * L * Dv,
         "4·B·H·L·S·D forward, no causal mask assumed", true};
  } else if ((op == "aten::convolution" || op == "aten::_convolution" || op == "aten::conv1d" || op == "aten::conv2d" ||
              op == "aten::conv3d" || op == "aten::cudnn_convolution") &&
             d.size() >= 2 && d[0].size() >= 3 && d[1].size() == d[0].size()) {
    const auto& x = d[0];
    const auto& w = d[1];
    double N = static_cast<double>(x[0]), O = static_cast<double>(w[0]), Cg = static_cast<double>(w[1]);
    double spatial = prod(x, 2), kernel = prod(w, 2);
    c = {2 * N * O * spatial * Cg * kernel, prod(x) + prod(w) + N * O * spatial,
         "2·N·O·out·(C/g)·k, output size = input size assumed (stride 1, same padding)", true};
  }
  return c;
}

}  // namespace

void run_workload(const AnalysisContext& ctx, Result& r) {
  // --- op classes ---
  Table& oc = r.add_table("workload_op_classes", "GPU time per operator class (by kernel name), per rank");
  oc.add_i64("rank");
  oc.add_str("op_class");
  oc.add_i64("kernels_count");
  oc.add_f64("gpu_time_us");
  oc.add_f64("fraction");
  for (const Frame& f : ctx.frames) {
    std::unordered_map<uint32_t, std::string> cls_of;
    std::map<std::string, std::pair<int64_t, int64_t>> by;  // class -> (count, ticks)
    int64_t total = 0;
    for (const auto& g : f.gpu) {
      auto it = cls_of.find(g.name);
      if (it == cls_of.end()) it = cls_of.emplace(g.name, op_class(f.name(g.name), g.kind)).first;
      auto& b = by[it->second];
      ++b.first;
      b.second += g.end - g.ts;
      total += g.end - g.ts;
    }
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> v(by.begin(), by.end());
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
    for (const auto& [c, b] : v)
      oc.add_row({f.rank(), c, b.first, f.us(b.second),
                  total > 0 ? static_cast<double>(b.second) / static_cast<double>(total) : 0.0});
  }

  // --- roofline ---
  struct Agg {
    std::string op, dims, dtype, basis;
    int64_t calls = 0;
    int64_t gpu_ns = 0;
    double flops = 0, bytes = 0;  // per call
    DType peak_dtype = DType::FP32;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Agg> agg;
  int64_t shapes_unparsed = 0, shapes_no_formula = 0, shapes_casts_only = 0;
  // The first call of each kind, named with its rank (the examples had been the counts, and each
  // diagnostic's count 1; review of 2026-12-06: the count is the calls).
  std::string unparsed_example, no_formula_example, casts_only_example;
  auto first_call = [](std::string& example, const Frame& f, const std::string& op, const std::string& dims) {
    if (example.empty()) example = op + " " + dims + " on rank " + std::to_string(f.rank());
  };
  for (const Frame& f : ctx.frames) {
    const RankTrace& t = *f.trace;
    if (t.op_shapes.empty()) continue;
    // Ops by thread, sorted by start.
    // 24 bytes per operator, reserved once (op_shapes can be millions at 0.5 GB): the end is read
    // from the event columns when needed.
    struct Op {
      int64_t key, ts;
      uint32_t shape;
    };
    auto end_of = [&t](const Op& o) {
      const uint32_t ev = t.op_shapes[o.shape].event;
      return t.ts_ns[ev] + t.dur_ns[ev];
    };
    std::vector<Op> ops;
    ops.reserve(t.op_shapes.size());
    for (uint32_t i = 0; i < t.op_shapes.size(); ++i) {
      uint32_t ev = t.op_shapes[i].event;
      if (t.cat[ev] != Category::CpuOp || t.strings.str(t.name[ev]).rfind("nccl:", 0) == 0) continue;  // collectives' sizes
      int64_t key = (static_cast<int64_t>(t.pid[ev]) << 32) ^ static_cast<int64_t>(static_cast<uint32_t>(t.tid[ev]));
      ops.push_back(Op{key, t.ts_ns[ev], i});
    }
    // Two operators that start and end together (aten::matmul and its aten::mm): the caller
    // (the smaller External id) first, so that the attribution below, which takes the last one
    // holding the launch, gives the kernels to the inner one; then by name and shapes. The
    // file's order had decided (review of 2026-12-06: a shuffled trace listed 141 smaller shapes
    // for 140).
    std::sort(ops.begin(), ops.end(), [&](const Op& a, const Op& b) {
      if (a.key != b.key) return a.key < b.key;
      if (a.ts != b.ts) return a.ts < b.ts;
      if (end_of(a) != end_of(b)) return end_of(a) > end_of(b);
      const uint32_t ea = t.op_shapes[a.shape].event, eb = t.op_shapes[b.shape].event;
      if (t.encloses_tied(ea, eb)) return true;
      if (t.encloses_tied(eb, ea)) return false;
      const OpShape &sa = t.op_shapes[a.shape], &sb = t.op_shapes[b.shape];
      if (sa.dims != sb.dims) return t.dims_of(sa) < t.dims_of(sb);
      if (sa.types != sb.types) return t.types_of(sa) < t.types_of(sb);
      return a.shape < b.shape;  // the same operator and shapes: either order attributes alike
    });
    std::vector<int64_t> gpu_ns(t.op_shapes.size(), 0);
    // Whether an operator launched any kernel that is not a cast or copy: under autocast the outer
    // fp32 aten::linear / addmm launches only the casts of its inputs (its GEMM runs in the inner
    // 16-bit call), and giving it the GEMM's FLOPs over the casts' time would put it far above the roof.
    std::vector<uint8_t> computes(t.op_shapes.size(), 0);
    // Whether an fp32 operator's kernels ran on tensor cores in TF32 (torch's allow_tf32: cuBLAS
    // and CUTLASS name them "tf32", or "s1688" for Ampere's 16x8x8 TF32 MMA): its roof is the TF32
    // peak, not the CUDA cores' fp32 one (which such kernels exceed several times over).
    std::vector<uint8_t> tf32(t.op_shapes.size(), 0);
    std::unordered_map<uint32_t, bool> tf32_kernel;  // kernel name id -> TF32 tensor-core kernel
    std::unordered_map<uint32_t, bool> copy_like;  // kernel name id -> elementwise or memcpy class
    for (const auto& g : f.gpu) {
      if (g.runtime < 0) continue;
      uint32_t ce = f.cpu[static_cast<size_t>(g.runtime)].event;
      int64_t key = (static_cast<int64_t>(t.pid[ce]) << 32) ^ static_cast<int64_t>(static_cast<uint32_t>(t.tid[ce]));
      int64_t cts = t.ts_ns[ce];
      auto it = std::upper_bound(ops.begin(), ops.end(), std::make_pair(key, cts), [](const auto& kv, const Op& o) {
        return kv.first != o.key ? kv.first < o.key : kv.second < o.ts;
      });
      for (int back = 0; it != ops.begin() && back < 16; ++back) {
        --it;
        if (it->key != key) break;
        if (end_of(*it) > cts) {
          gpu_ns[it->shape] += t.dur_ns[g.event];
          auto cl = copy_like.find(g.name);
          if (cl == copy_like.end()) {
            const std::string c = op_class(f.name(g.name), g.kind);
            cl = copy_like.emplace(g.name, c == "elementwise" || c == "memcpy").first;
          }
          if (!cl->second) computes[it->shape] = 1;
          auto tk = tf32_kernel.find(g.name);
          if (tk == tf32_kernel.end()) {
            const std::string n = lower(f.name(g.name));
            tk = tf32_kernel.emplace(g.name, has(n, "tf32") || has(n, "s1688")).first;
          }
          if (tk->second) tf32[it->shape] = 1;
          break;
        }
      }
    }
    ops = {};  // not needed past the attribution
    // Shapes repeat every iteration: each distinct (operator, dims, types) is parsed once.
    // (Keyed by the rank's string ids of the operator, dims and types: one text each.)
    struct Parsed {
      bool ok = false;
      int fail = 0;  // 1: dims not parsable, 2: no FLOP formula fits
      Agg* agg = nullptr;  // the row it adds to (std::map: stable address)
    };
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint8_t>, Parsed> parsed;
    for (uint32_t i = 0; i < t.op_shapes.size(); ++i) {
      if (gpu_ns[i] <= 0) continue;
      const OpShape& s = t.op_shapes[i];
      const std::string& op = t.strings.str(t.name[s.event]);
      const std::string& dims_text = t.dims_of(s);
      if (!computes[i]) {
        ++shapes_casts_only;
        first_call(casts_only_example, f, op, dims_text);
        continue;
      }
      const std::string& types_text = t.types_of(s);
      const auto memo_key = std::make_tuple(t.name[s.event], s.dims, s.types, tf32[i]);
      if (auto hit = parsed.find(memo_key); hit != parsed.end()) {
        if (!hit->second.ok) {
          ++(hit->second.fail == 1 ? shapes_unparsed : shapes_no_formula);
          continue;
        }
        Agg& a = *hit->second.agg;
        ++a.calls;
        a.gpu_ns += gpu_ns[i];
        continue;
      }
      Parsed& memo = parsed[memo_key];
      std::vector<std::vector<int64_t>> dims;
      std::string type0;
      try {
        auto j = nlohmann::json::parse(dims_text);
        for (const auto& a : j) {
          std::vector<int64_t> v;
          if (a.is_array())
            for (const auto& x : a)
              if (x.is_number_integer()) v.push_back(x.get<int64_t>());
          dims.push_back(v);
        }
        if (!types_text.empty()) {
          auto jt = nlohmann::json::parse(types_text);
          for (const auto& x : jt)
            if (x.is_string() && !x.get<std::string>().empty()) {
              type0 = x.get<std::string>();
              break;
            }
        }
      } catch (const nlohmann::json::exception&) {
        ++shapes_unparsed;
        first_call(unparsed_example, f, op, dims_text);
        memo.fail = 1;
        continue;
      }
      Cost c = cost_of(op, dims);
      if (!c.ok) {
        ++shapes_no_formula;
        first_call(no_formula_example, f, op, dims_text);
        memo.fail = 2;
        continue;
      }
      DtypeInfo di = dtype_of(type0);
      if (tf32[i] && di.peak == DType::FP32) {
        di.peak = DType::TF32;
        di.name = "tf32";  // fp32 tensors, TF32 tensor-core kernels
      }
      memo.ok = true;
      auto& a = agg[{op, dims_text, di.name}];
      memo.agg = &a;
      a.op = op;
      a.dims = dims_text;
      a.dtype = di.name.empty() ? "(unknown)" : di.name;
      a.basis = c.basis;
      a.flops = c.flops;
      a.bytes = di.bytes > 0 ? c.elems * di.bytes : std::nan("");
      a.peak_dtype = di.peak;
      ++a.calls;
      a.gpu_ns += gpu_ns[i];
    }
  }
  if (shapes_unparsed)
    ctx.diagnostics.add_count("workload: Input Dims not parsable", "info", unparsed_example, shapes_unparsed);
  if (shapes_casts_only)
    ctx.diagnostics.add_count("workload: operators whose kernels are only casts or copies (autocast wrappers), left off the roofline",
                              "info", casts_only_example, shapes_casts_only);
  if (shapes_no_formula)
    ctx.diagnostics.add_count("workload: shapes that do not fit the operator's FLOP formula", "info", no_formula_example,
                              shapes_no_formula);
  // --- device ---
  // The catalog is read only when there is something to place on a roofline, and a device to
  // place it on (--device, or a deviceProperties name to match): without either, no catalog entry
  // can be chosen, and reading the accelerator YAML would cost ~20-40 ms for nothing.
  const bool roofline_wanted = !agg.empty() || !ctx.opt.device.empty();
  std::string dev_name;
  for (const Frame& f : ctx.frames)
    if (!f.trace->device_names.empty()) {
      dev_name = f.trace->device_names.front();
      break;
    }
  std::shared_ptr<const Catalog> cat;
  try {
    // The roofline needs one device: only the catalog files that mention it are parsed (an
    // accelerator file takes yaml-cpp several ms), all of them when --device names none.
    const std::string dir = !ctx.opt.catalog_dir.empty() ? ctx.opt.catalog_dir : (std::filesystem::path(data_dir()) / "catalog").string();
    if (roofline_wanted && !ctx.opt.device.empty()) {
      cat = Catalog::load_accelerators_mentioning(dir, ctx.opt.device);
      if (!cat->has_accelerator(ctx.opt.device)) cat = Catalog::load_accelerators(dir);  // valid choices
    } else if (roofline_wanted && !dev_name.empty()) {
      cat = Catalog::load_accelerators_mentioning(dir, device_model_token(name_tokens(dev_name)));
    }
  } catch (const Error& e) {
    // A --catalog the user gave that does not load is their input's error; the bundled one
    // failing leaves the analysis without a roofline.
    if (!ctx.opt.catalog_dir.empty()) throw;
    ctx.diagnostics.add("workload: catalog not loaded, no roofline", "warning", e.what());
  }
  const Accelerator* acc = nullptr;
  if (roofline_wanted && !cat && ctx.opt.device.empty() && dev_name.empty()) {
    r.set("workload_device", std::string("(unknown)"));
    r.set("workload_trace_device_name", std::string("(none)"));
  }
  if (cat) {
    std::string id = ctx.opt.device;
    if (!id.empty() && !cat->has_accelerator(id))
      throw Error(SourceLocation{"", 0, 0, "--device"}, "unknown device '" + id + "'",
                  valid_choices_hint(id, cat->accelerator_ids()));
    if (id.empty() && !dev_name.empty()) {
      std::string note;
      id = match_device(*cat, dev_name, note);
      if (!note.empty()) ctx.diagnostics.add("workload: device match ambiguous (use --device)", "info", note);
      if (id.empty()) ctx.diagnostics.add("workload: device not in the catalog (use --device)", "info", dev_name);
    }
    if (!id.empty() && !ctx.opt.device.empty() && !dev_name.empty()) {
      // --device given: the GPU the trace names is matched too, and a different one is said (an
      // H200 trace read as an H100 PCIe put most GEMMs above the peak; 2026-12-04 review).
      std::string traced;
      try {
        const std::string dir2 = !ctx.opt.catalog_dir.empty() ? ctx.opt.catalog_dir : (std::filesystem::path(data_dir()) / "catalog").string();
        const auto named = Catalog::load_accelerators_mentioning(dir2, device_model_token(name_tokens(dev_name)));
        std::string note;
        traced = match_device(*named, dev_name, note);
      } catch (const Error&) {
        // No catalog file names the trace's GPU: nothing to compare with but --device itself.
      }
      if (!traced.empty()) {
        r.set("workload_trace_device", traced);
        if (traced != id)
          ctx.diagnostics.add("workload: --device is not the trace's GPU", "warning",
                              "--device " + id + ", the trace's deviceProperties name " + dev_name + " (" + traced + ")");
      } else if (!device_name_fits(cat->accelerator(id), dev_name)) {
        // The trace's GPU is in no catalog entry, and --device's entry does not fit its name (its
        // size or form factor differs): said, as for a GPU that has an entry (2026-12-07 review:
        // --device h100-sxm-80gb on an "NVIDIA A100-SXM-64GB" trace passed without a word).
        ctx.diagnostics.add("workload: --device is not the trace's GPU", "warning",
                            "--device " + id + ", the trace's deviceProperties name " + dev_name +
                                " (no catalog entry; this one's name, size or form factor differs)");
      }
    }
    if (!id.empty()) acc = &cat->accelerator(id);
    r.set("workload_device", id.empty() ? std::string("(unknown)") : id);
    r.set("workload_trace_device_name", dev_name.empty() ? std::string("(none)") : dev_name);
    if (acc && acc->memory_bandwidth_bytes_per_s.known)
      r.set("workload_memory_bandwidth_bytes_per_s", acc->memory_bandwidth_bytes_per_s.value);
  }

  std::vector<const Agg*> rows;
  int64_t above_roof = 0, above_roof_calls = 0;
  std::string above_roof_example;
  for (const auto& [k, a] : agg) rows.push_back(&a);
  std::stable_sort(rows.begin(), rows.end(), [](const Agg* a, const Agg* b) { return a->gpu_ns > b->gpu_ns; });
  Table& rt = r.add_table("roofline",
                          "operators with shapes: FLOPs, bytes, achieved rate and place on the device roofline "
                          "(all ranks, by GPU time)");
  rt.add_str("op");
  rt.add_str("input_dims");
  rt.add_str("dtype");
  rt.add_i64("calls_count");
  rt.add_f64("gpu_time_us");
  rt.add_f64("flops_per_call");
  rt.add_f64("bytes_per_call");
  rt.add_f64("arithmetic_intensity_flops_per_byte");
  rt.add_f64("achieved_flops_per_s");
  rt.add_f64("achieved_bytes_per_s");
  rt.add_f64("peak_flops_per_s");
  rt.add_f64("roofline_flops_per_s");
  rt.add_f64("roofline_fraction");
  rt.add_str("bound");
  rt.add_str("flops_basis");
  const size_t cap = static_cast<size_t>(std::max(1, ctx.opt.top_kernels)) * 3;
  double total_flops = 0, total_s = 0;
  for (const Agg* a : rows) {
    total_flops += a->flops * static_cast<double>(a->calls);
    total_s += static_cast<double>(a->gpu_ns) * 1e-9;
  }
  for (size_t i = 0; i < rows.size() && i < cap; ++i) {
    const Agg& a = *rows[i];
    const double secs = static_cast<double>(a.gpu_ns) * 1e-9;
    const double n = static_cast<double>(a.calls);
    const double ach_f = a.flops * n / secs, ach_b = a.bytes * n / secs;
    const double ai = a.bytes > 0 ? a.flops / a.bytes : std::nan("");
    double peak = std::nan(""), roof = std::nan(""), frac = std::nan("");
    std::string bound = "(no device)";
    if (acc && acc->has_peak(a.peak_dtype) && acc->memory_bandwidth_bytes_per_s.known) {
      peak = acc->peak(a.peak_dtype);
      const double bw = acc->memory_bandwidth_bytes_per_s.value;
      roof = std::isnan(ai) ? peak : std::min(peak, ai * bw);
      frac = ach_f / roof;
      bound = std::isnan(ai) ? "compute" : (ai * bw < peak ? "memory" : "compute");
      // Above the roof: the device or the dtype's peak is not the one the kernels ran at (a
      // device matched by name to another memory size, kernels in a lower precision than the
      // tensors): kept as measured, marked, and counted.
      if (frac > 1.0) {
        bound = "above_roof";
        ++above_roof;
        above_roof_calls += a.calls;
        if (above_roof_example.empty()) above_roof_example = a.op + " " + a.dims + " " + a.dtype;
      }
    }
    rt.add_row({a.op, a.dims, a.dtype, a.calls, static_cast<double>(a.gpu_ns) / 1000.0, a.flops, a.bytes, ai, ach_f,
                ach_b, peak, roof, frac, bound, a.basis});
  }
  // Counted in calls, the operators' events (review of 2026-12-06: it had been 1 whatever the rows).
  if (above_roof > 0)
    ctx.diagnostics.add_count("workload: operator shapes measured above the device roof (check --device and the kernels' "
                              "precision)", "warning", above_roof_example + " (" + std::to_string(above_roof) +
                              " roofline row" + (above_roof > 1 ? "s" : "") + ", bound 'above_roof')",
                              above_roof_calls);
  r.set("workload_shaped_ops_flops", total_flops);
  r.set("workload_shaped_ops_gpu_time_s", total_s);
  if (rows.size() > cap)
    r.notes.push_back("roofline: " + std::to_string(rows.size() - cap) + " smaller operator shapes not listed");
}

}  // namespace sextant::trace
