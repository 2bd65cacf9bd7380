#include "infer/formats.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "core/yaml_reader.hpp"

namespace sextant::infer {
namespace {
struct Row {
  const char* name;
  double bits;
  DType dt;
  bool block;
  const char* base = "";  // a GGUF file type: the block type most of its tensors are stored in
};
// Bits per element including scales (ggml-common.h block layouts; AWQ/GPTQ group 128; NVFP4).
constexpr Row kFormats[] = {
    {"fp32", 32, DType::FP32, false},   {"fp16", 16, DType::FP16, false},   {"bf16", 16, DType::BF16, false},
    {"fp8", 8, DType::FP8, false},      {"fp4", 4.5, DType::FP4, false},    {"int8", 8, DType::INT8, false},
    {"mxfp4", 4.25, DType::FP4, false},  // OCP MX: 32 x E2M1 + one E8M0 scale = 17 bytes / 32 (gpt-oss's experts)
    // weight-only int4 (W4A16): 128 x 4 bit + fp16 scale + 4-bit zero = 532 bits / 128. Dequantised
    // to the model's 16-bit dtype, bf16 as the activations' default (vLLM's AWQ/GPTQ Marlin kernels
    // take bf16 or fp16 activations); llama.cpp's blocks below dequantise to fp16 (its cuBLAS and
    // Metal paths). Before 2026-12-07 int4 read fp16 too, which won over 8-bit activations: `--weights
    // int4 --activations fp8` read compute_dtype fp16 on an H100 (review).
    {"int4", 4.15625, DType::BF16, true},
    {"q8_0", 8.5, DType::FP16, true},   // 32 x int8 + fp16 scale = 34 bytes / 32
    {"q4_0", 4.5, DType::FP16, true},   // 32 x 4 bit + fp16 scale = 18 bytes / 32
    {"q4_1", 5.0, DType::FP16, true},   // + fp16 min = 20 bytes / 32
    {"q5_0", 5.5, DType::FP16, true},   // 22 bytes / 32
    {"q5_1", 6.0, DType::FP16, true},   // 24 bytes / 32
    {"q2_k", 2.625, DType::FP16, true}, // 84 bytes / 256
    {"q3_k", 3.4375, DType::FP16, true},// 110 bytes / 256
    {"q4_k", 4.5, DType::FP16, true},   // 144 bytes / 256
    {"q5_k", 5.5, DType::FP16, true},   // 176 bytes / 256
    {"q6_k", 6.5625, DType::FP16, true},// 210 bytes / 256
    // llama.cpp's file types (llama_ftype): mixes of block types chosen tensor by tensor
    // (llama_tensor_get_type: attn_v and ffn_down in Q6_K on half the layers under Q4_K_M, ...).
    // Bits: the transformer layers' mean, from the file sizes llama-quantize prints for
    // Llama-3-8B (tools/quantize/quantize.cpp QUANT_OPTIONS: Q4_K_M 4.58G, Q4_K_S 4.37G, ...),
    // less the embedding in the base type and the output matrix in q6_k (the same arithmetic
    // gives 6.569 for Q6_K, 4.509 for Q4_0 and 5.504 for Q5_0, whose layers are pure). Other
    // models mix in other proportions (the share of attn_v and ffn_down): within a few percent.
    {"q2_k_s", 2.952, DType::FP16, true, "q2_k"},  // 2.96G
    {"q3_k_s", 3.444, DType::FP16, true, "q3_k"},  // 3.41G
    {"q3_k_m", 3.850, DType::FP16, true, "q3_k"},  // 3.74G
    {"q3_k_l", 4.207, DType::FP16, true, "q3_k"},  // 4.03G
    {"q4_k_s", 4.546, DType::FP16, true, "q4_k"},  // 4.37G
    {"q4_k_m", 4.804, DType::FP16, true, "q4_k"},  // 4.58G
    {"q5_k_s", 5.504, DType::FP16, true, "q5_k"},  // 5.21G
    {"q5_k_m", 5.652, DType::FP16, true, "q5_k"},  // 5.33G
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int width_rank(DType d) {
  switch (d) {
    case DType::FP4: case DType::INT4: return 0;
    case DType::FP8: case DType::INT8: return 1;
    case DType::FP16: case DType::BF16: return 2;
    case DType::TF32: return 3;
    case DType::FP32: return 4;
    case DType::FP64: return 5;
  }
  return 2;
}
}  // namespace

const std::vector<std::string>& format_names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v;
    for (const auto& r : kFormats) v.push_back(r.name);
    return v;
  }();
  return n;
}

const std::vector<std::string>& stored_weight_format_names() {
  static const std::vector<std::string> n = [] {
    std::vector<std::string> v;
    for (const auto& r : kFormats)
      if (!*r.base) v.push_back(r.name);
    return v;
  }();
  return n;
}

// The cache types engines offer (llama.cpp's --cache-type-k/v: f32, f16, bf16, q8_0, q4_0, q4_1,
// q5_0, q5_1; vLLM's fp8; NVFP4 and int8 caches of TensorRT-LLM); the K-quants and weight-only
// int4/mxfp4 are weight formats no engine caches in (--kv q2_k was costed on the generic engine,
// 2026-12-05 review).
const std::vector<std::string>& kv_format_names() {
  static const std::vector<std::string> n = {"fp32", "fp16", "bf16", "fp8", "int8", "fp4", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1"};
  return n;
}

namespace {
NumberFormat parse(const std::string& name_in, const SourceLocation& where, bool file_types);
bool gguf_format(const NumberFormat& f);
}

NumberFormat parse_format(const std::string& name_in, const SourceLocation& where) { return parse(name_in, where, false); }

NumberFormat parse_weight_format(const std::string& name_in, const SourceLocation& where) { return parse(name_in, where, true); }

namespace {
NumberFormat parse(const std::string& name_in, const SourceLocation& where, bool file_types) {
  std::string name = lower(name_in);
  // llama-quantize's own names for its K-quant file types (tools/quantize/quantize.cpp
  // QUANT_OPTIONS): Q3_K, Q4_K and Q5_K are aliases of Q3_K_M, Q4_K_M and Q5_K_M, and Q2_K is a
  // file type of its own, 2.96G on Llama-3-8B like Q2_K_S (so the same bits per layer weight).
  // A *.Q2_K.gguf file had been costed as pure q2_k blocks, 9% light (2026-12-05 review). The
  // block types keep these names everywhere else (an engine's formats, a file type's base).
  if (file_types) {
    if (name == "q3_k" || name == "q4_k" || name == "q5_k") name += "_m";
    if (name == "q2_k") {
      NumberFormat f = parse("q2_k_s", where, false);
      f.name = "q2_k";
      return f;
    }
  }
  if (name == "f16") name = "fp16";
  if (name == "f32") name = "fp32";
  if (name.rfind("mixed:", 0) == 0) {
    // mixed:A:B:FRACTION_A
    auto p1 = name.find(':', 6), p2 = p1 == std::string::npos ? p1 : name.find(':', p1 + 1);
    if (p2 == std::string::npos)
      throw Error(where, "malformed mixed format '" + name_in + "'", "write mixed:A:B:FRACTION_A, e.g. mixed:q2_k_s:q4_k_m:0.5");
    NumberFormat a = parse(name.substr(6, p1 - 6), where, file_types), b = parse(name.substr(p1 + 1, p2 - p1 - 1), where, file_types);
    char* end = nullptr;
    const std::string fs = name.substr(p2 + 1);
    double f = std::strtod(fs.c_str(), &end);
    if (fs.empty() || *end != '\0' || !(f >= 0 && f <= 1))
      throw Error(where, "mixed format fraction must be in [0, 1], got '" + fs + "'");
    NumberFormat m;
    m.name = name;
    m.stored = a.stored;
    m.stored.insert(m.stored.end(), b.stored.begin(), b.stored.end());
    m.bits_per_element = f * a.bits_per_element + (1 - f) * b.bits_per_element;
    m.compute_dtype = width_rank(a.compute_dtype) >= width_rank(b.compute_dtype) ? a.compute_dtype : b.compute_dtype;
    m.block_quantized = a.block_quantized || b.block_quantized;
    if (gguf_format(m)) m.embedding_bits = f * embedding_format(a).bits_per_element + (1 - f) * embedding_format(b).bits_per_element;
    return m;
  }
  for (const auto& r : kFormats)
    if (name == r.name) return NumberFormat{r.name, r.bits, r.dt, r.block, r.base, {*r.base ? r.base : r.name}};
  throw Error(where, "unknown number format '" + name_in + "'", valid_choices_hint(name, format_names()));
}
}  // namespace

NumberFormat parse_activation_format(const std::string& name, const SourceLocation& where) {
  static const std::vector<std::string> valid = {"fp32", "fp16", "bf16", "fp8", "int8", "fp4", "mxfp4"};
  const NumberFormat f = parse_format(name, where);
  if (std::find(valid.begin(), valid.end(), f.name) == valid.end())
    throw Error(where, "'" + name + "' is a weight-storage format, not one activations are multiplied in",
                "valid activation formats: fp32, fp16, bf16, fp8, int8, fp4, mxfp4");
  return f;
}

NumberFormat parse_kv_format(const std::string& name, const SourceLocation& where, const std::vector<std::string>& engine_kv_formats,
                             const std::string& engine_id) {
  const NumberFormat f = parse_format(name, where);
  // The formats to name: the engine's kv_formats where it is known and lists some, else every
  // cache format of any engine. The hint had listed the fixed set (int8, fp4, q8_0, ...) as "the
  // engine's kv_formats" for vLLM, whose caches are fp32, fp16, bf16 and fp8: following it with
  // int8 failed again (2026-12-07 review).
  // An engine without kv_formats: the formats Sextant can cost a cache in (kv_format_names), not
  // attributed to engines.yaml, which lists none of int8, fp4 or q* (2026-12-07 review).
  std::string listed;
  for (const auto& k : engine_kv_formats.empty() ? kv_format_names() : engine_kv_formats) listed += (listed.empty() ? "" : ", ") + k;
  const std::string which = engine_kv_formats.empty()
                                ? listed + " (the formats Sextant can cost a KV cache in" +
                                      (engine_id.empty() ? std::string(")") : "; engine " + engine_id + " lists no kv_formats)")
                                : listed + " (engine " + engine_id + "'s kv_formats, data/infer/engines.yaml)";
  // A llama.cpp file type is a per-tensor mix of block types (its bits are those of one model's
  // weights), and a mixed: format a share of two: neither is a cache type of any engine (--kv
  // q4_k_m had been costed at 4.804 bits; review of 2026-12-05).
  if (!f.gguf_base.empty() || f.name.rfind("mixed:", 0) == 0)
    throw Error(where, "'" + name + "' is a mix of weight formats across tensors, not a KV-cache format", "a single format: " + which);
  const auto& cache = kv_format_names();
  if (std::find(cache.begin(), cache.end(), f.name) == cache.end())
    throw Error(where, "'" + name + "' is a weight format no engine keeps a KV cache in", "a cache format: " + which);
  return f;
}

namespace {
// A llama.cpp format: its block types (q4_0, q6_k, ...), a file type, or a mix of them only. A mix
// of GPU formats (mixed:int4:fp8:0.5) keeps the GPU quantisers' 16-bit vocabulary matrices: every
// mixed: name had been taken as llama.cpp's, a mix of int4 with itself 1.4 GB under int4 alone.
bool gguf_format(const NumberFormat& f) {
  if (f.stored.empty()) return false;
  for (const auto& s : f.stored)
    if (!(s.size() >= 2 && s[0] == 'q' && std::isdigit(static_cast<unsigned char>(s[1])))) return false;
  return true;
}
}  // namespace

NumberFormat embedding_format(const NumberFormat& weight) {
  if (!weight.gguf_base.empty()) return parse_format(weight.gguf_base);  // a file type's embedding: its base block type
  if (weight.embedding_bits > 0) {  // a mix of llama.cpp formats: its parts' embeddings, mixed
    NumberFormat e = weight;
    e.bits_per_element = weight.embedding_bits;
    e.embedding_bits = 0;
    return e;
  }
  if (weight.bits_per_element >= 16 || gguf_format(weight)) return weight;
  return parse_format("bf16");
}

NumberFormat output_format(const NumberFormat& weight) {
  if (weight.bits_per_element >= 16) return weight;
  if (gguf_format(weight)) {
    const NumberFormat q6 = parse_format("q6_k");
    return weight.bits_per_element < q6.bits_per_element ? q6 : weight;
  }
  return parse_format("bf16");
}

SourceLocation accelerator_field_location(const Accelerator& a, const std::string& field) {
  SourceLocation at{a.file, 0, 0, a.id + "." + field};
  if (a.file.empty()) return at;
  try {
    const YAML::Node root = parse_yaml_document(read_file(a.file), a.file);
    // The first mapping whose id is a.id and that describes an accelerator (a peak, a memory or a
    // kind): a study names its model and systems by id too.
    std::vector<YAML::Node> todo{root};
    while (!todo.empty()) {
      const YAML::Node n = todo.back();
      todo.pop_back();
      if (n.IsSequence()) {
        for (size_t i = n.size(); i-- > 0;) todo.push_back(n[i]);
        continue;
      }
      if (!n.IsMap()) continue;
      const YAML::Node id = n["id"];
      if (id && id.IsScalar() && id.Scalar() == a.id && (n["peak_tflops"] || n["memory_gib"] || n["kind"])) {
        YAML::Mark m = id.Mark();
        // A sourced value at its number; otherwise the key's own line (a mapping of peaks, or a key
        // written without a value).
        if (const YAML::Node f = n[field]; f && !f.IsNull() && (!f.IsMap() || f["value"])) m = f.IsMap() ? f["value"].Mark() : f.Mark();
        else
          for (const auto& kv : n)
            if (kv.first.IsScalar() && kv.first.Scalar() == field) m = kv.first.Mark();
        if (m.line >= 0) {
          at.line = m.line + 1;
          at.column = m.column + 1;
        }
        return at;
      }
      std::vector<YAML::Node> values;
      for (const auto& kv : n) values.push_back(kv.second);
      for (size_t i = values.size(); i-- > 0;) todo.push_back(values[i]);
    }
  } catch (const std::exception&) {
    // the file no longer reads: named without a line
  }
  return at;
}

bool weight_only_integer(const NumberFormat& w) { return w.block_quantized && width_rank(w.compute_dtype) == 2; }

std::string weight_only_activation_gap(const NumberFormat& w, const NumberFormat& a) {
  if (!weight_only_integer(w) || width_rank(a.compute_dtype) >= 2) return "";
  const std::string an = a.name;
  for (const auto& part : w.stored.empty() ? std::vector<std::string>{w.name} : w.stored) {
    const NumberFormat p = parse_format(part);
    const bool gguf = part.size() >= 2 && part[0] == 'q' && std::isdigit(static_cast<unsigned char>(part[1]));
    if (part == "int4") {
      // TensorRT-LLM's W4A8 AWQ and vLLM's CUTLASS W4A8 (int4 x fp8, Ada/Hopper); QServe's W4A8
      // and vLLM's QQQ (int4 x int8 on int8 tensor cores). No engine runs int4 x fp4.
      if (a.compute_dtype == DType::FP8 || a.compute_dtype == DType::INT8) continue;
      return "no engine multiplies int4 weights by " + an + " activations (W4A8 runs int4 by fp8 or int8 only)";
    }
    if (gguf) {
      // llama.cpp quantises the activations to 8-bit integer blocks (q8_0, q8_1) for its integer
      // dot products (the CPU's ggml_vec_dot_*_q8_*, CUDA's MMQ on int8 tensor cores): int8 only.
      if (a.compute_dtype == DType::INT8) continue;
      return "no engine multiplies llama.cpp's " + part + " blocks by " + an +
             " activations (llama.cpp quantises activations to 8-bit integer blocks, q8_0/q8_1, for its integer dot products: int8; "
             "its other paths dequantise the weights to fp16)";
    }
    // A native narrow part (a mix's fp8 or int8) runs in the activations' format where it is no
    // wider; a 16-bit or wider part is multiplied in its own format.
    if (width_rank(p.compute_dtype) <= width_rank(a.compute_dtype)) continue;
    return "the " + part + " part of " + w.name + " is wider than " + an;
  }
  return "";
}

DType compute_dtype(const NumberFormat& weight, const NumberFormat& activation, const Accelerator& a,
                    const std::vector<DType>& allowed) {
  DType d = width_rank(weight.compute_dtype) > width_rank(activation.compute_dtype) ? weight.compute_dtype
                                                                                     : activation.compute_dtype;
  // Weight-only integer weights (int4, llama.cpp blocks) multiplied by 8-bit activations an engine
  // pairs them with run in the activations' format, the weights converted to it in the kernel (W4A8:
  // TensorRT-LLM's and vLLM's int4 x fp8 on fp8 tensor cores, QServe's int4 x int8). Before
  // 2026-12-07 the weights' 16-bit type won: a W4A8 prefill cost twice its fp8 time (review).
  if (weight_only_integer(weight) && width_rank(activation.compute_dtype) < 2 && weight_only_activation_gap(weight, activation).empty())
    d = activation.compute_dtype;
  auto usable = [&](DType c) {
    return a.has_peak(c) && (allowed.empty() || std::find(allowed.begin(), allowed.end(), c) != allowed.end());
  };
  // Move to the next wider dtype the device has a peak for (and the engine multiplies in).
  static const DType ladder[] = {DType::FP4, DType::INT4, DType::FP8, DType::INT8, DType::FP16, DType::BF16, DType::FP32};
  if (usable(d)) return d;
  if (d == DType::BF16 && usable(DType::FP16)) return DType::FP16;
  if (d == DType::FP16 && usable(DType::BF16)) return DType::BF16;
  for (DType c : ladder)
    if (width_rank(c) > width_rank(d) && usable(c)) return c;
  // At the entry's line, with the peaks to write (2026-12-07 review: the file alone, no hint).
  std::string wider;
  for (DType c : ladder)
    if (width_rank(c) >= width_rank(d) && (allowed.empty() || std::find(allowed.begin(), allowed.end(), c) != allowed.end()))
      wider += (wider.empty() ? "" : ", ") + to_string(c);
  throw Error(accelerator_field_location(a, "peak_tflops"),
              "accelerator '" + a.id + "' has no peak for " + to_string(d) + " or any wider format" +
                  (allowed.empty() ? std::string() : std::string(" the engine multiplies in")),
              "write the entry's peak_tflops for one of " + (wider.empty() ? to_string(d) : wider) + " (dense TFLOP/s" +
                  (wider.find("int") != std::string::npos ? "; TOPS for int8 and int4" : "") + ") with its provenance, e.g. peak_tflops: {" +
                  (wider.empty() ? to_string(d) : wider.substr(0, wider.find(','))) + ": {value: N, source: ID}}");
}

DType attention_dtype(const NumberFormat& kv, const NumberFormat& activation, const Accelerator& a,
                      const std::vector<DType>& allowed) {
  // A side dequantised to 16 bits has no 16-bit type of its own: it takes the other side's where
  // that is 16-bit (int8 activations over a bf16 cache attend in bf16, the wider of the two sides
  // as documented), fp16 where both are dequantised. Before 2026-12-07 the widened side was fp16
  // and won the tie with the other side's bf16 (review: attention_dtype fp16 for W8A8 int8 with a
  // bf16 cache).
  auto widened = [](const NumberFormat& f) {
    return f.block_quantized || f.compute_dtype == DType::INT8 || f.compute_dtype == DType::INT4;
  };
  auto side = [&](NumberFormat f, const NumberFormat& other) {
    if (widened(f))
      f.compute_dtype = !widened(other) && (other.compute_dtype == DType::BF16 || other.compute_dtype == DType::FP16) ? other.compute_dtype
                                                                                                                   : DType::FP16;
    else if (f.compute_dtype == DType::FP4) f.compute_dtype = DType::FP8;
    return f;
  };
  return compute_dtype(side(kv, activation), side(activation, kv), a, allowed);
}

}  // namespace sextant::infer
