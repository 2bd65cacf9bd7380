#pragma once
// Number formats of weights, activations and the KV cache, and the compute path each runs on.
//
// A format has its real storage cost in bits per element including block scales: llama.cpp's
// q4_0 stores 32 4-bit values with one fp16 scale (4.5 bits), q8_0 32 int8 values with one fp16
// scale (8.5 bits); int4 is AWQ/GPTQ-style 4-bit with an fp16 scale and a 4-bit zero point
// per group of 128 (4.15625 bits: AutoAWQ's and GPTQ's qzeros pack eight 4-bit zeros in an
// int32; 4.25 before 2026-12-05, which took the zero for fp16); fp4 is NVFP4 (4-bit E2M1, one fp8 scale per 16 values: 4.5 bits); mxfp4 is the OCP
// microscaling format (4-bit E2M1, one E8M0 scale per 32 values: 4.25 bits); mixed formats
// are written "mixed:A:B:FRACTION_A" (e.g. "mixed:q2_k:q4_k:0.5" for a 2/4-bit mix). llama.cpp's
// file types (q4_k_m, q4_k_s, q5_k_m, q5_k_s, q3_k_s/m/l, q2_k_s) mix block types tensor by
// tensor: their bits are the layers' mean in the files llama-quantize writes for Llama-3-8B
// (q4_k_m 4.80 where its base q4_k block is 4.5); q2_k ... q6_k name the block types.
//
// The compute path: a matrix multiply runs on the tensor/ALU rate of the wider of the weight's
// compute type and the activation format (W4A16 dequantises int4 to bf16 and llama.cpp's blocks
// to fp16; W8A8 runs int8; fp8 x fp8 runs fp8; f32 activations (llama.cpp) run the fp32 rate),
// except that weight-only integer weights multiplied by 8-bit activations an engine pairs them
// with run in the activations' format (W4A8: int4 x fp8 and int4 x int8, llama.cpp's blocks x int8;
// weight_only_activation_gap).
#include <string>
#include <vector>

#include "catalog/catalog.hpp"

namespace sextant::infer {

struct NumberFormat {
  std::string name;
  double bits_per_element = 16;
  DType compute_dtype = DType::FP16;  // the arithmetic type its values are multiplied in
  bool block_quantized = false;       // dequantised on the fly by the kernel (llama.cpp blocks, int4 groups)
  // A llama.cpp file type (q4_k_m, q5_k_s, ...): the block type most of its tensors are in (its
  // embedding's, and what an engine must support); bits_per_element is then the layers' mean.
  std::string gguf_base;
  // The stored formats an engine must support: the format itself, a file type's base block type,
  // or both parts of a mixed:A:B:F (each checked against the engine's weight_formats: a mix of fp4
  // had run on llama.cpp, which refuses fp4 alone; review of 2026-12-05).
  std::vector<std::string> stored;
  // A mix of llama.cpp formats: its input embedding's bits, the parts' embedding formats mixed in
  // the same fraction (a file type's embedding is its base block type); 0 otherwise.
  double embedding_bits = 0;
  double bytes() const { return bits_per_element / 8.0; }
};

// The formats a quantised checkpoint keeps its vocabulary matrices in. GPU quantisers (AWQ, GPTQ,
// llm-compressor FP8/INT8, ModelOpt NVFP4) leave the input embedding and the LM head in 16 bits;
// llama.cpp's quantiser writes the output matrix (or, tied, the one embedding matrix) in q6_k
// where the file's type is narrower (llama_tensor_get_type), and the input embedding in the
// file's type. 16-bit and 32-bit weights keep their format.
NumberFormat embedding_format(const NumberFormat& weight);
NumberFormat output_format(const NumberFormat& weight);

// Every named format (mixed ones are parsed, not listed).
const std::vector<std::string>& format_names();
// The names NumberFormat::stored holds, so the names an engine's weight_formats may list: every
// named format but llama.cpp's file types, which run where their base block type does.
const std::vector<std::string>& stored_weight_format_names();
// The KV-cache formats parse_kv_format takes, so the names an engine's kv_formats may list.
const std::vector<std::string>& kv_format_names();
// Parses a name (case-insensitive; "f16" = "fp16", "f32" = "fp32"); throws Error naming `where`.
NumberFormat parse_format(const std::string& name, const SourceLocation& where = {});
// A weight format as a user names it: parse_format, except that llama-quantize's names of its
// file types mean those (q2_k the Q2_K file type; q3_k, q4_k, q5_k aliases of q3_k_m, q4_k_m,
// q5_k_m), also inside a mixed: format; the block types keep the names in parse_format.
NumberFormat parse_weight_format(const std::string& name, const SourceLocation& where = {});
// An activation format: a number format activations are multiplied in (fp32, fp16, bf16, fp8,
// int8, fp4, mxfp4); weight-storage formats (llama.cpp blocks, int4 groups, mixes) are refused
// naming `where` (they had been accepted and run as fp16).
NumberFormat parse_activation_format(const std::string& name, const SourceLocation& where = {});
// A KV-cache format: one element format (a GGUF file type or a mixed: format is refused).
// engine_kv_formats / engine_id: the chosen engine's kv_formats, which the refusal's hint lists
// (empty: no engine known, or one that lists none: every format Sextant can cost a cache in).
NumberFormat parse_kv_format(const std::string& name, const SourceLocation& where = {},
                             const std::vector<std::string>& engine_kv_formats = {}, const std::string& engine_id = "");

// Where a field of accelerator `a` is written, for an error about a value it lacks: its file, and
// the line of the field (or, where the field is left out, of the entry: its `id`), found by reading
// a.file again (an entry of a catalog file, a single-entry file, or a study's hardware.accelerators);
// key "ID.FIELD". The line is 0 where the file no longer reads or holds no such entry. Errors of a
// missing bandwidth or peak had named the file alone, with no line (2026-12-07 review).
SourceLocation accelerator_field_location(const Accelerator& a, const std::string& field);

// Weights stored as integers narrower than the arithmetic and dequantised in the kernel, with no
// arithmetic type of their own: AWQ/GPTQ int4 groups, llama.cpp's blocks and file types, and mixes
// holding them (their compute_dtype is the 16-bit type they dequantise to).
bool weight_only_integer(const NumberFormat& w);

// For weight-only integer weights and activations narrower than 16 bits: "" where an engine
// multiplies these weights in the activations' format (the weights converted to it in the
// kernel), else why none does (2026-12-07 review). int4 runs by fp8 (TensorRT-LLM's W4A8 AWQ,
// Model Optimizer: Ada and later; vLLM's CUTLASS W4A8 on Hopper, PR #23198) and by int8 (QServe's
// W4A8KV4, vLLM's QQQ); llama.cpp's blocks by int8 only (its activations quantised to q8_0/q8_1
// blocks: CPU integer dot products, CUDA MMQ on int8 tensor cores, PR #7676); nothing runs them
// by fp4 or mxfp4. "" too for other weights or 16-bit and wider activations.
std::string weight_only_activation_gap(const NumberFormat& w, const NumberFormat& a);

// The dtype a GEMM with these weight and activation formats runs at on `a`: the wider of the
// two compute types (the activations' for weight-only integer weights an engine multiplies by
// them: weight_only_activation_gap), moved to the next wider dtype the accelerator has a peak for.
// `allowed`: the dtypes the engine multiplies in (empty: any the accelerator has a peak for).
DType compute_dtype(const NumberFormat& weight, const NumberFormat& activation, const Accelerator& a,
                    const std::vector<DType>& allowed = {});

// The dtype attention (QK^T and PV over the KV cache) runs at: the wider of the activations' and
// the KV cache's, where an integer or block-quantised side is dequantised to 16 bits in the
// kernel and an fp4 cache to fp8 (FlashAttention-3's FP8 path needs both fp8 queries and an fp8
// cache; W8A8 or NVFP4 weights with a 16-bit cache attend in 16 bits), then moved up as
// compute_dtype does. Before 2026-12-03 attention ran at the GEMMs' dtype: an fp8 Llama 3.1 8B
// with a bf16 cache read 2x the attention rate of bf16 at a 32k prompt.
DType attention_dtype(const NumberFormat& kv, const NumberFormat& activation, const Accelerator& a,
                      const std::vector<DType>& allowed = {});

}  // namespace sextant::infer
