// Hugging Face config.json -> ModelConfig. Each model_type maps its own key names; keys that
// do not change the performance model (token ids, rope theta, norm epsilons, ...) are listed in
// ModelConfig::ignored_keys so the user sees what was not used.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <cstdint>
#include <set>
#include <tuple>

#include "catalog/catalog.hpp"

namespace sextant {

const std::vector<std::string>& hf_model_types() {
  static const std::vector<std::string> t = {
      "llama", "mistral", "mixtral", "qwen", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "deepseek_v2",
      "deepseek_v3", "gpt2", "gpt_neox", "gemma", "gemma2", "gemma3", "gemma3_text", "phi3", "nemotron", "olmo", "olmo2", "granite",
      "gpt_oss"};
  return t;
}

namespace {
// Transformers' keys that never change a step's cost: left out of the ignored-keys note, and
// never the "did you mean" of a missing key (they are correct keys).
const std::set<std::string>& hf_keys_without_effect() {
  static const std::set<std::string> k = {
      "_name_or_path", "architectures", "attention_bias", "attention_dropout", "attn_pdrop", "auto_map", "bos_token_id",
      "embd_pdrop", "eos_token_id", "hidden_dropout", "initializer_range", "layer_norm_eps", "layer_norm_epsilon",
      "max_window_layers", "mlp_bias", "norm_topk_prob", "output_router_logits", "pad_token_id", "pretraining_tp",
      "resid_pdrop", "rms_norm_eps", "rope_scaling", "rope_theta", "router_aux_loss_coef", "routed_scaling_factor",
      "scoring_func", "topk_method", "torch_dtype", "transformers_version", "use_cache", "query_pre_attn_scalar",
      "rope_local_base_freq", "cache_implementation", "rope_parameters",
      "quantization_config", "ep_size", "router_jitter_noise", "summary_type", "summary_use_proj", "summary_activation",
      "summary_proj_to_labels", "summary_first_dropout", "task_specific_params", "scale_attn_weights"};
  return k;
}

// The model_type of a Transformers model class named in a config's `architectures`, "" for a class
// this table does not know (a remote-code class, a multimodal wrapper's: never an error). The
// supported types' classes are their stem and a head (LlamaForCausalLM, LlamaForSequenceClassification,
// LlamaModel, ...: one type for every head); other architectures' causal-LM classes name their own
// type, which no supported type builds. vLLM builds the model from this class and Transformers from
// model_type (review of 2026-12-06).
const std::map<std::string, std::string>& hf_class_stems() {
  static const std::map<std::string, std::string> stems = {
      {"Llama", "llama"},         {"Mistral", "mistral"},     {"Mixtral", "mixtral"},         {"Qwen2", "qwen2"},
      {"Qwen2Moe", "qwen2_moe"},  {"Qwen3", "qwen3"},         {"Qwen3Moe", "qwen3_moe"},      {"DeepseekV2", "deepseek_v2"},
      {"DeepseekV3", "deepseek_v3"}, {"GPT2", "gpt2"},        {"GPTNeoX", "gpt_neox"},        {"Gemma", "gemma"},
      {"Gemma2", "gemma2"},       {"Phi3", "phi3"},           {"Nemotron", "nemotron"},       {"Olmo", "olmo"},
      {"Olmo2", "olmo2"},         {"Granite", "granite"},     {"GptOss", "gpt_oss"}};
  return stems;
}
std::string hf_type_of_class(const std::string& cls) {
  const auto& stems = hf_class_stems();
  // Gemma3Model and Gemma3ForConditionalGeneration are the multimodal gemma3: only the text classes.
  static const std::map<std::string, std::string> whole = {
      {"GPT2LMHeadModel", "gpt2"}, {"GPT2DoubleHeadsModel", "gpt2"}, {"Gemma3ForCausalLM", "gemma3_text"},
      {"Gemma3TextModel", "gemma3_text"}, {"QWenLMHeadModel", "qwen"},
      // Other architectures (hf_model_types has none of them).
      {"FalconForCausalLM", "falcon"}, {"RWForCausalLM", "falcon"}, {"PhiForCausalLM", "phi"}, {"BloomForCausalLM", "bloom"},
      {"MptForCausalLM", "mpt"}, {"MPTForCausalLM", "mpt"}, {"GPTJForCausalLM", "gptj"}, {"GPTNeoForCausalLM", "gpt_neo"},
      {"GPTBigCodeForCausalLM", "gpt_bigcode"}, {"OPTForCausalLM", "opt"}, {"StableLmForCausalLM", "stablelm"},
      {"Starcoder2ForCausalLM", "starcoder2"}, {"CohereForCausalLM", "cohere"}, {"Cohere2ForCausalLM", "cohere2"},
      {"DbrxForCausalLM", "dbrx"}, {"JambaForCausalLM", "jamba"}, {"MambaForCausalLM", "mamba"}, {"Mamba2ForCausalLM", "mamba2"},
      {"Qwen3NextForCausalLM", "qwen3_next"}, {"Llama4ForCausalLM", "llama4_text"}, {"OlmoeForCausalLM", "olmoe"},
      {"Olmo3ForCausalLM", "olmo3"}, {"GraniteMoeForCausalLM", "granitemoe"}, {"GraniteMoeSharedForCausalLM", "granitemoeshared"},
      {"GraniteMoeHybridForCausalLM", "granitemoehybrid"}, {"PhimoeForCausalLM", "phimoe"}, {"PhiMoEForCausalLM", "phimoe"},
      {"DeepseekForCausalLM", "deepseek"}, {"DeepseekV32ForCausalLM", "deepseek_v32"}, {"Gemma3nForCausalLM", "gemma3n_text"},
      {"GlmForCausalLM", "glm"}, {"Glm4ForCausalLM", "glm4"}, {"Glm4MoeForCausalLM", "glm4_moe"}, {"InternLM2ForCausalLM", "internlm2"},
      {"ExaoneForCausalLM", "exaone"}, {"Exaone4ForCausalLM", "exaone4"}, {"MiniMaxForCausalLM", "minimax"},
      {"PersimmonForCausalLM", "persimmon"}, {"RecurrentGemmaForCausalLM", "recurrent_gemma"}, {"ZambaForCausalLM", "zamba"},
      {"Zamba2ForCausalLM", "zamba2"}, {"FalconH1ForCausalLM", "falcon_h1"}, {"FalconMambaForCausalLM", "falcon_mamba"},
      {"BambaForCausalLM", "bamba"}, {"NemotronHForCausalLM", "nemotron_h"}, {"HunYuanDenseV1ForCausalLM", "hunyuan_v1_dense"},
      {"HunYuanMoEV1ForCausalLM", "hunyuan_v1_moe"}, {"Ernie4_5ForCausalLM", "ernie4_5"}, {"Ernie4_5_MoeForCausalLM", "ernie4_5_moe"},
      {"SmolLM3ForCausalLM", "smollm3"}, {"SeedOssForCausalLM", "seed_oss"}, {"ArceeForCausalLM", "arcee"},
      {"ApertusForCausalLM", "apertus"}, {"Dots1ForCausalLM", "dots1"}, {"BitNetForCausalLM", "bitnet"}, {"HeliumForCausalLM", "helium"},
      {"Lfm2ForCausalLM", "lfm2"}, {"MiniCPM3ForCausalLM", "minicpm3"}};
  if (const auto it = whole.find(cls); it != whole.end()) return it->second;
  for (const char* head : {"ForCausalLM", "ForSequenceClassification", "ForTokenClassification", "ForQuestionAnswering", "Model"}) {
    const size_t n = std::strlen(head);
    if (cls.size() <= n || cls.compare(cls.size() - n, n, head) != 0) continue;
    if (const auto it = stems.find(cls.substr(0, cls.size() - n)); it != stems.end()) return it->second;
  }
  return "";
}

// The causal-LM class of a supported type, for the hint of a disagreeing architectures.
std::string hf_class_of_type(const std::string& type) {
  static const std::map<std::string, std::string> special = {
      {"gpt2", "GPT2LMHeadModel"}, {"gemma3_text", "Gemma3ForCausalLM"}, {"qwen", "QWenLMHeadModel"}};
  if (const auto it = special.find(type); it != special.end()) return it->second;
  for (const auto& [stem, t] : hf_class_stems())
    if (t == type) return stem + "ForCausalLM";
  return "";
}

// Keys of other architectures that change the model where they are on: a model_type that does not
// read them builds the model without them, silently. Before 2026-12-06 they were listed as ignored
// keys (Llama-3.1-8B with Falcon's alibi, parallel_attn, multi_query and num_kv_heads 1 read as the
// 8-KV-head llama) or refused by accident (MLA's v_head_dim as a near miss of head_dim, and the
// hint followed built a multi-head model; review). `owners`: the supported types that read the key
// (the check does not apply to them); `readers`: who reads it, for the message.
struct ForeignKey {
  const char* key;
  enum When { kTrue, kNotNull, kKvHeads, kQkNorm, kMultiQuery } when;
  std::set<std::string> owners;
  const char* readers;
  const char* what;
};
const std::vector<ForeignKey>& foreign_keys() {
  static const char* kMla = "model_type deepseek_v2 and deepseek_v3";
  static const char* kMlaWhat = "multi-head latent attention, MLA";
  static const std::vector<ForeignKey> k = {
      {"kv_lora_rank", ForeignKey::kNotNull, {"deepseek_v2", "deepseek_v3"}, kMla, kMlaWhat},
      {"q_lora_rank", ForeignKey::kNotNull, {"deepseek_v2", "deepseek_v3"}, kMla, kMlaWhat},
      {"qk_nope_head_dim", ForeignKey::kNotNull, {"deepseek_v2", "deepseek_v3"}, kMla, kMlaWhat},
      {"qk_rope_head_dim", ForeignKey::kNotNull, {"deepseek_v2", "deepseek_v3"}, kMla, kMlaWhat},
      {"v_head_dim", ForeignKey::kNotNull, {"deepseek_v2", "deepseek_v3"}, kMla, kMlaWhat},
      {"alibi", ForeignKey::kTrue, {}, "Falcon's model_type falcon", "ALiBi attention biases in place of rotary positions"},
      {"parallel_attn", ForeignKey::kTrue, {}, "Falcon's model_type falcon", "attention and MLP in parallel from one norm"},
      {"new_decoder_architecture", ForeignKey::kTrue, {}, "Falcon's model_type falcon", "Falcon-40B's grouped KV heads and two norms"},
      {"multi_query", ForeignKey::kMultiQuery, {}, "model_type falcon and gpt_bigcode", "one key/value head, multi-query attention"},
      {"num_kv_heads", ForeignKey::kKvHeads, {}, "Falcon's model_type falcon", "the number of key/value heads"},
      {"n_head_kv", ForeignKey::kKvHeads, {}, "Falcon's earlier RefinedWeb code", "the number of key/value heads"},
      {"use_parallel_residual", ForeignKey::kTrue, {"gpt_neox"}, "model_type gpt_neox and stablelm", "attention and MLP in parallel"},
      {"parallel_residual", ForeignKey::kTrue, {}, "litgpt's configs (Transformers' gpt_neox and stablelm: use_parallel_residual)",
       "attention and MLP in parallel"},
      {"qk_layernorm", ForeignKey::kQkNorm, {}, "model_type stablelm and persimmon", "query and key norms"},
      {"use_qk_norm", ForeignKey::kQkNorm, {}, "model_type cohere and llama4_text", "query and key norms"}};
  return k;
}

// Keys whose owner types a missing required key's hint names: the config is likely of that type.
const std::map<std::string, std::vector<std::string>>& keys_of_types() {
  static const std::map<std::string, std::vector<std::string>> k = {
      {"num_local_experts", {"mixtral", "gpt_oss"}},
      {"num_experts", {"qwen2_moe", "qwen3_moe"}},
      {"n_routed_experts", {"deepseek_v2", "deepseek_v3"}},
      {"moe_intermediate_size", {"qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3"}},
      {"kv_lora_rank", {"deepseek_v2", "deepseek_v3"}},
      {"qk_nope_head_dim", {"deepseek_v2", "deepseek_v3"}},
      {"kv_channels", {"qwen"}}};
  return k;
}

// Whether file key k is plausibly key a (one the mapping reads) written wrong: within two edits, a
// truncation of it (first_k_dense for first_k_dense_replace), an extension of it, or another
// convention's name of it. Extensions (moe_layer_frequency for moe_layer_freq, sliding_window_size,
// head_dim_size) and Meta's and Mistral's params.json names (n_kv_heads for num_key_value_heads)
// had been ignored keys, the default used in their place: 32 KV heads for 8 (review of
// 2026-12-07). Only a key the file does not write is a candidate `a` (the callers' rule), so
// Gemma 2's sliding_window_size beside its sliding_window stays an ignored key.
const std::map<std::string, std::string>& params_json_names() {
  static const std::map<std::string, std::string> names = {
      {"n_kv_heads", "num_key_value_heads"}, {"n_heads", "num_attention_heads"}, {"n_layers", "num_hidden_layers"},
      {"dim", "hidden_size"},                {"hidden_dim", "intermediate_size"}};
  return names;
}
bool near_miss_of(const std::string& k, const std::string& a) {
  const int d = edit_distance_capped(k, a, 2);
  if (d <= 2 && 3 * d < static_cast<int>(std::max(k.size(), a.size()))) return true;
  const auto starts = [](const std::string& longer, const std::string& prefix) {
    return prefix.size() >= 6 && prefix.size() < longer.size() && longer.compare(0, prefix.size(), prefix) == 0;
  };
  if (starts(a, k) || starts(k, a)) return true;
  const auto it = params_json_names().find(k);
  return it != params_json_names().end() && it->second == a;
}
Error near_miss_error(const std::string& file, const std::string& type, const std::string& k, const std::string& a) {
  const auto it = params_json_names().find(k);
  const std::string what = it != params_json_names().end() && it->second == a ? "the params.json name (Meta's and Mistral's reference code) of '"
                                                                                : "a near miss of '";
  return Error(SourceLocation{file, 0, 0, k}, "unknown key for model_type '" + type + "': " + what + a + "', which it reads (its default would be used)",
               "did you mean '" + a + "'?");
}

struct Reader {
  const nlohmann::json& j;
  std::string file;
  std::set<std::string> used;
  // Keys this mapping reads only in some configurations (a window's keys where the type has one):
  // near misses of them are errors too, though a config may leave them out or not apply them.
  std::set<std::string> may_read;

  // The first required key found missing. The mapping goes on (reading 1 in its place) to learn
  // every key the type reads, then reports it (missing_key_error): the hint names a file key the
  // type does not read, never one of its own.
  std::string missing;

  bool has(const std::string& k) const { return j.contains(k) && !j[k].is_null(); }
  // A key of the file that is plausibly k misspelt ("did you mean"), for a missing required key:
  // num_local_expert for num_local_experts had been reported as missing without a word. Only keys
  // the type does not recognise are candidates: before 2026-12-05 a Qwen3-MoE config with
  // num_expert for num_experts was told "the file has 'num_experts_per_tok'", a correct key (review).
  std::string near_miss(const std::string& k) const {
    if (j.contains(k)) return "it is null; give the value";  // present but null: no near miss to name
    std::vector<std::string> keys;
    if (j.is_object())
      for (const auto& [key, v] : j.items())
        if (!used.count(key) && !may_read.count(key) && !hf_keys_without_effect().count(key)) keys.push_back(key);
    const std::string m = closest_match(k, keys);
    return m.empty() ? std::string() : "the file has '" + m + "': did you mean '" + k + "'?";
  }
  // Where no near miss is written, a key of the types that read `missing`'s kind of value (Mixtral's
  // num_local_experts under qwen2_moe's missing num_experts): the model_type is likely another's.
  // Before 2026-12-06 the error said only that the key was missing (review).
  Error missing_key_error(const std::string& type) const {
    std::string hint = near_miss(missing);
    if (hint.empty() && j.is_object())
      for (const auto& [key, owners] : keys_of_types())
        if (!used.count(key) && has(key) && std::find(owners.begin(), owners.end(), type) == owners.end()) {
          std::string names;
          for (size_t n = 0; n < owners.size(); ++n) names += (n == 0 ? "" : n + 1 == owners.size() ? " and " : ", ") + owners[n];
          hint = "the file has '" + key + "', which model_type " + names + (owners.size() == 1 ? " reads" : " read") + ", not " + type + ": is model_type this model's?";
          break;
        }
    return Error(SourceLocation{file, 0, 0, missing}, "required key is missing for this model_type", hint);
  }
  int i(const std::string& k) {
    used.insert(k);
    if (!has(k)) {
      if (missing.empty()) missing = k;
      return 1;
    }
    if (!j[k].is_number_integer()) throw Error(SourceLocation{file, 0, 0, k}, "expected an integer, got " + j[k].dump());
    // Unsigned values above INT64_MAX and anything outside int: an error, never a truncation.
    if (j[k].is_number_unsigned() && j[k].get<uint64_t>() > static_cast<uint64_t>(INT32_MAX))
      throw Error(SourceLocation{file, 0, 0, k}, "integer out of range: " + j[k].dump());
    const int64_t v = j[k].get<int64_t>();
    if (v < INT32_MIN || v > INT32_MAX) throw Error(SourceLocation{file, 0, 0, k}, "integer out of range: " + j[k].dump());
    return static_cast<int>(v);
  }
  int i(const std::string& k, int dflt) {
    used.insert(k);
    if (!has(k)) return dflt;
    return i(k);
  }
  // Size keys a config left out that took the class default (e.g. "num_hidden_layers 32"),
  // said in the model's source and the results' note (size_or_default).
  std::vector<std::string> defaulted;
  // A size key (layers, widths, heads, vocabulary) with its Transformers config class's default,
  // as Transformers builds the model from a config that leaves the key out; 0: the class has no
  // default and the key is required. A null value is no value (Transformers' model could not be
  // built from it) and stays a missing key.
  int size_or_default(const std::string& k, int dflt) {
    if (dflt <= 0 || j.contains(k)) return i(k);
    used.insert(k);
    defaulted.push_back(k + " " + std::to_string(dflt));
    return dflt;
  }
  std::string s(const std::string& k, const std::string& dflt) {
    used.insert(k);
    if (!has(k)) return dflt;
    if (!j[k].is_string()) throw Error(SourceLocation{file, 0, 0, k}, "expected a string, got " + j[k].dump());
    return j[k].get<std::string>();
  }
  bool b(const std::string& k, bool dflt) {
    used.insert(k);
    if (!has(k)) return dflt;
    if (!j[k].is_boolean()) throw Error(SourceLocation{file, 0, 0, k}, "expected true or false, got " + j[k].dump());
    return j[k].get<bool>();
  }
};

// The MoE layers of a config, said with the catalog's rules (leading dense layers, then every
// k-th) where they fit, else as a per-layer pattern.
void set_layer_pattern(MoEConfig& m, const std::vector<int>& pattern) {
  const int n = static_cast<int>(pattern.size());
  int dense = 0;
  while (dense < n && pattern[static_cast<size_t>(dense)] == 0) ++dense;
  int freq = 1;
  for (int l = dense + 1; l < n; ++l)
    if (pattern[static_cast<size_t>(l)]) {
      freq = l - dense;
      break;
    }
  bool fits = dense < n;
  for (int l = 0; l < n && fits; ++l) fits = (pattern[static_cast<size_t>(l)] != 0) == (l >= dense && (l - dense) % freq == 0);
  m.dense_layers = fits ? dense : 0;
  m.layer_freq = fits ? freq : 1;
  if (!fits) m.layer_pattern = pattern;
}

// The MLP of an activation name; an activation the model cannot represent is an error, never a
// silent SwiGLU. `gated`: the type's MLP multiplies act(gate(x)) by up(x) (LlamaMLP and its kin).
// relu2 (squared ReLU) is the catalog's ungated MLP only (Nemotron's up -> relu^2 -> down): under
// a gated type it had been read as that, the gate matrix dropped (Llama-3-8B with relu2 read 6.15B
// for 8.03B; review of 2026-12-07). No mlp kind is a gated ReLU^2: an error at the key.
std::string mlp_from_act(const std::string& act, bool gated, const std::string& file, const char* key, const std::string& type) {
  if (act == "relu2" && gated)
    throw Error(SourceLocation{file, 0, 0, key},
                "activation 'relu2' under model_type " + type +
                    ", whose MLP is gated (down(relu2(gate(x)) * up(x))): a gated ReLU^2 MLP is not representable (the relu2 MLP is "
                    "ungated, Nemotron's down(relu2(up(x))))",
                "give the model's activation (silu: SwiGLU; a gelu form: GeGLU); an ungated squared-ReLU model is model_type nemotron");
  if (act == "relu2") return "relu2";
  if (act.find("gelu") != std::string::npos) return gated ? "geglu" : "gelu";
  if (act == "silu" || act == "swish") return gated ? "swiglu" : "gelu";
  throw Error(SourceLocation{file, 0, 0, key}, "activation '" + act + "' is not supported",
              "valid: silu, swish, gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu2");
}
// The context window under a config's rope scaling, as vLLM derives its max_model_len
// (vllm/config.py, _get_and_verify_max_len; patch_rope_scaling_dict in
// vllm/transformers_utils/config.py reads the legacy key "type" as "rope_type", "su" as "longrope"
// and "mrope" as "default"): yarn extends original_max_position_embeddings by factor; linear,
// dynamic and default extend max_position_embeddings by it; llama3 and longrope leave
// max_position_embeddings as it is (their configs state the extended length there), and so does
// Gemma 3 ("already scaled"). Positions only: no FLOP and no weight changes. Transformers 5 writes
// rope_parameters (one mapping, or one per layer type) and takes rope_scaling first where both are
// given (convert_rope_params_to_dict). A type neither knows, a factor that is not a number above 0
// and a yarn scaling without original_max_position_embeddings are errors, as every bad value of a
// config (vLLM and Transformers refuse them too). Before 2026-12-06 rope_scaling was listed as
// without effect: Qwen2.5-7B-Instruct with YaRN (32,768 x 4) read a 32,768-token window, and
// `infer` refused a 60k-token prompt vLLM serves (review).
void apply_rope_scaling(ModelConfig& c, Reader& r, const std::string& type) {
  const nlohmann::json& j = r.j;
  const std::string& file = r.file;
  const auto stated = [&](const char* k) { return j.contains(k) && j[k].is_object() && !j[k].empty(); };
  const char* key = stated("rope_scaling") ? "rope_scaling" : "rope_parameters";
  if (!stated(key)) return;
  r.used.insert(key);
  const nlohmann::json& top = j[key];
  // One mapping per layer type ({"full_attention": {...}, "sliding_attention": {...}}) or one.
  std::vector<std::pair<std::string, const nlohmann::json*>> entries;
  const bool nested = !top.contains("rope_type") && !top.contains("type") &&
                      std::all_of(top.begin(), top.end(), [](const nlohmann::json& v) { return v.is_object(); });
  if (nested)
    for (const auto& el : top.items()) entries.emplace_back(std::string(key) + "." + el.key(), &el.value());
  else
    entries.emplace_back(key, &top);
  static const std::vector<std::string> kTypes = {"default", "linear", "dynamic", "yarn", "longrope", "llama3", "su", "mrope"};
  const std::string kValid = "valid rope_type: default, linear, dynamic, yarn, longrope, llama3 (legacy: su, mrope)";
  int64_t base = c.max_seq_len;         // the length the factor extends
  std::string base_text = c.max_seq_len_source + " " + std::to_string(c.max_seq_len);
  double factor = 1.0;                  // vLLM: one factor for every layer type (the last entry's)
  std::string factor_text, applied_type, kept_type;
  for (const auto& [name, entry] : entries) {
    const nlohmann::json& o = *entry;
    const auto fail = [&](const std::string& msg, const std::string& hint) { throw Error(SourceLocation{file, 0, 0, key}, name + ": " + msg, hint); };
    std::string rope_type;
    for (const char* k : {"rope_type", "type"}) {
      if (!o.contains(k)) continue;
      if (!o[k].is_string()) fail(std::string(k) + " must be a string, got " + o[k].dump(), kValid);
      if (!rope_type.empty() && rope_type != o[k].get<std::string>())
        fail("rope_type '" + rope_type + "' and type '" + o[k].get<std::string>() + "' disagree (vLLM refuses it)", "give one of them");
      rope_type = o[k].get<std::string>();
    }
    if (rope_type.empty()) fail("names no rope_type (nor the legacy type): vLLM and Transformers refuse it", kValid);
    if (std::find(kTypes.begin(), kTypes.end(), rope_type) == kTypes.end())
      fail("rope_type '" + rope_type + "' is not a RoPE scaling vLLM or Transformers know", valid_choices_hint(rope_type, kTypes) + "; " + kValid);
    if (rope_type == "su") rope_type = "longrope";
    if (rope_type == "mrope") rope_type = "default";
    const bool needs_factor = rope_type == "linear" || rope_type == "dynamic" || rope_type == "yarn" || rope_type == "llama3";
    if (o.contains("factor")) {
      if (!o["factor"].is_number() || !(o["factor"].get<double>() > 0) || !std::isfinite(o["factor"].get<double>()))
        fail("factor must be a number above 0, got " + o["factor"].dump(), "the length the RoPE is stretched by, e.g. 4.0");
    } else if (needs_factor) {
      fail("a " + rope_type + " scaling needs its factor (Transformers refuses it without one)", "the length the RoPE is stretched by, e.g. 4.0");
    }
    if (rope_type == "longrope" || rope_type == "llama3") {
      kept_type = rope_type;
      continue;
    }
    if (rope_type == "yarn") {
      const char* k = "original_max_position_embeddings";
      // A whole number written as a float (4096.0) is a length: vLLM takes int(original x factor)
      // and Transformers does not check the key's type (it was refused; 2026-12-06 review).
      const bool whole = o.contains(k) && o[k].is_number() && std::isfinite(o[k].get<double>()) &&
                         o[k].get<double>() == std::floor(o[k].get<double>()) && o[k].get<double>() > 0 &&
                         o[k].get<double>() <= static_cast<double>(INT32_MAX);
      if (!whole)
        fail(std::string("a yarn scaling needs ") + k + ", a positive whole number of tokens" + (o.contains(k) ? ", got " + o[k].dump() : std::string()),
             "vLLM extends it by factor (it refuses a yarn scaling without it)");
      base = static_cast<int64_t>(o[k].get<double>());
      base_text = std::string(k) + " " + std::to_string(base);
    }
    if (o.contains("factor")) {
      factor = o["factor"].get<double>();
      factor_text = o["factor"].dump();
    }
    // The entry that extends the window names it; a yarn entry's base stands (vLLM).
    if (applied_type != "yarn" && (o.contains("factor") || rope_type == "yarn")) applied_type = rope_type;
  }
  // Gemma 3's max_position_embeddings is the scaled length already (vLLM skips every gemma3 type).
  if (type == "gemma3_text") {
    if (!c.max_seq_len_source.empty()) c.max_seq_len_source += " (Gemma 3's is already scaled: its " + std::string(key) + " extends nothing, as in vLLM)";
    return;
  }
  if (applied_type.empty() || (applied_type != "yarn" && factor == 1.0)) {
    if (!kept_type.empty() && !c.max_seq_len_source.empty())
      c.max_seq_len_source += " (a " + kept_type + " " + key + " leaves it as it is, as in vLLM)";
    return;
  }
  if (base <= 0) return;  // no stated length to extend: the window stays unknown
  const double window = std::floor(static_cast<double>(base) * factor);
  if (window > INT32_MAX || window < 1)
    throw Error(SourceLocation{file, 0, 0, key}, "the context window it gives, " + base_text + " x factor " + factor_text + ", is out of range",
                "a factor that extends the window to at most 2^31 - 1 tokens");
  c.max_seq_len_source = std::string(key) + " " + applied_type + ": " + base_text + " x factor " + factor_text +
                         ", as vLLM derives max_model_len" +
                         (applied_type == "yarn" && r.has("max_position_embeddings")
                              ? " (max_position_embeddings " + std::to_string(c.max_seq_len) + ")"
                              : std::string());
  c.max_seq_len = static_cast<int>(window);
}

// Line and column (1-based) of byte offset `at` of text.
std::pair<int, int> line_column(const std::string& text, size_t at) {
  int line = 1, column = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// Every key of a config.json in document order, with its path from the top ("rope_scaling.factor",
// "text_config.hidden_size", "a[2].b") and the byte offset of its opening quote. Keys are decoded
// as the parser decodes them (\u escapes, surrogate pairs), so "hidden\u005fsize" is hidden_size.
// The walk stops at the first thing that is not JSON (a duplicate key's error is raised before the
// parser has read the rest) and below 256 levels of nesting (no config is that deep; a fuzzed one
// would cost a path per level). The places had been found by searching the text for `"key":`,
// which took the first copy of a key anywhere in the file: a duplicate's parent key was lost
// (`rope_scaling.factor` said `factor`), and an escaped duplicate on line 10 was placed at the
// first copy on line 5 (review of 2026-12-07).
struct JsonKeyPlace {
  std::string path;
  size_t at;
};
std::vector<JsonKeyPlace> json_key_places(const std::string& t) {
  std::vector<JsonKeyPlace> out;
  struct Frame {
    bool object;
    std::string path;
    size_t count;
  };
  std::vector<Frame> stack;
  size_t i = t.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  const auto ws = [&] {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) ++i;
  };
  const auto hex4 = [&](size_t at, unsigned& cp) {
    if (at + 4 > t.size()) return false;
    cp = 0;
    for (size_t k = at; k < at + 4; ++k) {
      const char ch = t[k];
      cp <<= 4;
      if (ch >= '0' && ch <= '9') cp |= static_cast<unsigned>(ch - '0');
      else if (ch >= 'a' && ch <= 'f') cp |= static_cast<unsigned>(ch - 'a' + 10);
      else if (ch >= 'A' && ch <= 'F') cp |= static_cast<unsigned>(ch - 'A' + 10);
      else return false;
    }
    return true;
  };
  // A string at t[i] == '"', decoded into s; i past its closing quote.
  const auto read_string = [&](std::string& s) {
    ++i;
    while (i < t.size()) {
      const char ch = t[i++];
      if (ch == '"') return true;
      if (ch != '\\') {
        s += ch;
        continue;
      }
      if (i >= t.size()) return false;
      const char e = t[i++];
      switch (e) {
        case '"': case '\\': case '/': s += e; break;
        case 'b': s += '\b'; break;
        case 'f': s += '\f'; break;
        case 'n': s += '\n'; break;
        case 'r': s += '\r'; break;
        case 't': s += '\t'; break;
        case 'u': {
          unsigned cp = 0;
          if (!hex4(i, cp)) return false;
          i += 4;
          if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < t.size() && t[i] == '\\' && t[i + 1] == 'u') {
            unsigned lo = 0;
            if (!hex4(i + 2, lo)) return false;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              i += 6;
            }
          }
          if (cp < 0x80) {
            s += static_cast<char>(cp);
          } else if (cp < 0x800) {
            s += static_cast<char>(0xC0 | (cp >> 6));
            s += static_cast<char>(0x80 | (cp & 0x3F));
          } else if (cp < 0x10000) {
            s += static_cast<char>(0xE0 | (cp >> 12));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            s += static_cast<char>(0xF0 | (cp >> 18));
            s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            s += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default: return false;
      }
    }
    return false;
  };
  enum { kValue, kAfterValue, kKey } state = kValue;
  std::string value_path;  // the path of the value about to be read
  while (true) {
    ws();
    if (i >= t.size()) return out;
    if (state == kKey) {
      if (t[i] != '"') return out;
      const size_t at = i;
      std::string key;
      if (!read_string(key)) return out;
      value_path = stack.back().path.empty() ? key : stack.back().path + "." + key;
      out.push_back({value_path, at});
      ws();
      if (i >= t.size() || t[i] != ':') return out;
      ++i;
      state = kValue;
    } else if (state == kValue) {
      const char ch = t[i];
      if (ch == '{' || ch == '[') {
        if (stack.size() >= 256) return out;
        stack.push_back({ch == '{', value_path, 0});
        ++i;
        ws();
        if (i < t.size() && t[i] == (ch == '{' ? '}' : ']')) {
          ++i;
          stack.pop_back();
          state = kAfterValue;
        } else if (ch == '{') {
          state = kKey;
        } else {
          value_path = stack.back().path + "[0]";
        }
      } else if (ch == '"') {
        std::string ignored;
        if (!read_string(ignored)) return out;
        state = kAfterValue;
      } else {
        const size_t from = i;
        while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '-' || t[i] == '+' || t[i] == '.')) ++i;
        if (i == from) return out;
        state = kAfterValue;
      }
    } else {
      if (stack.empty()) return out;
      Frame& f = stack.back();
      if (t[i] == ',') {
        ++i;
        ++f.count;
        if (f.object) {
          state = kKey;
        } else {
          value_path = f.path + "[" + std::to_string(f.count) + "]";
          state = kValue;
        }
      } else if (t[i] == (f.object ? '}' : ']')) {
        ++i;
        stack.pop_back();
      } else {
        return out;
      }
    }
  }
}

// Where the key at `path` ("model_type", "text_config.model_type", "quantization_config.bits") is
// written: its first place; line 0 when it is not written.
SourceLocation json_key_location(const std::string& text, const std::string& file, const std::string& path) {
  for (const auto& p : json_key_places(text))
    if (p.path == path) {
      const auto [line, column] = line_column(text, p.at);
      return SourceLocation{file, line, column, path};
    }
  return SourceLocation{file, 0, 0, path};
}

// The first key written twice in one object, at its second place, naming its whole path and the
// line of the first; a location without a line when the walk finds none.
Error duplicate_key_error(const std::string& text, const std::string& file, const std::string& key) {
  std::map<std::string, size_t> first;
  for (const auto& p : json_key_places(text))
    if (const auto [it, fresh] = first.emplace(p.path, p.at); !fresh) {
      const auto [line, column] = line_column(text, p.at);
      const auto [first_line, first_column] = line_column(text, it->second);
      return Error(SourceLocation{file, line, column, p.path},
                   "duplicate key '" + p.path + "' (first given at line " + std::to_string(first_line) +
                       (first_line == line ? ", column " + std::to_string(first_column) : std::string()) + ")",
                   "a key may appear once in an object; remove one");
    }
  return Error(SourceLocation{file, 0, 0, key}, "duplicate key '" + key + "'", "a key may appear once in an object; remove one");
}

ModelConfig parse_hf_config_unlocated(const std::string& text, const std::string& file, bool& wrapped);
ModelConfig map_hf_keys(Reader& r, const std::string& type, const std::string& wrapper, const std::vector<std::string>& outer_ignored);

// Routed experts under any model_type's name: an MoE config.
std::pair<std::string, int64_t> experts_in(const nlohmann::json& j) {
  for (const char* k : {"num_local_experts", "num_experts", "n_routed_experts"})
    if (j.contains(k) && j[k].is_number_integer() && j[k].get<int64_t>() > 1) return {k, j[k].get<int64_t>()};
  return {"", 0};
}

// Said in ModelConfig::source after the file, with the wrapper's model_type and ")", when the
// language model was read from a multimodal config's text_config (ignored_keys_note reads it).
constexpr const char* kWrapperMark = " (the language model in text_config of model_type ";
// Said in ModelConfig::source after that, with "CLASS: key value, key value)", when size keys
// left out took the class defaults (ignored_keys_note reads it, catalog show prints the source).
constexpr const char* kDefaultsMark = " (keys it leaves out take the defaults of Transformers' ";

// The size keys' defaults of each supported type's Transformers config class
// (src/transformers/models/<type>/configuration_<type>.py), taken where a config leaves a key
// out, as Transformers builds the model. Before 2026-12-06 only some were (intermediate_size of
// five types, Gemma's heads, Gemma 3's vocabulary) and num_hidden_layers, hidden_size and
// num_attention_heads were required: llava-hf/llava-1.5-7b-hf, whose text_config writes none of
// them (LlamaConfig's 7B: 32, 4096, 32), was refused (review). Transformers' classes default
// every one; 0 is a key without a default (required). GPT2Config's n_inner is None (4 x n_embd,
// read as such); QWenConfig is the checkpoint's own code (trust_remote_code), whose defaults
// changed between its releases: Qwen-1 takes none (every size key required).
// max_positions is the class's max_position_embeddings (GPT-2's n_positions; 0: the class has no
// default), the context window of a config that leaves it out (GPT2Config 1024, LlamaConfig,
// GPTNeoXConfig, OlmoConfig, Olmo2Config, GraniteConfig and DeepseekV2Config 2048, Phi3Config,
// NemotronConfig and DeepseekV3Config 4096, GemmaConfig and Gemma2Config 8192, Qwen2Config,
// Qwen2MoeConfig, Qwen3Config and Qwen3MoeConfig 32768, MistralConfig and MixtralConfig 4096 x 32
// = 131072, Gemma3TextConfig and GptOssConfig 131072; each its configuration_<type>.py's
// `max_position_embeddings` default, huggingface/transformers). Before 2026-12-07 eleven types
// (phi3, gpt_neox, nemotron, olmo, olmo2, granite, qwen2_moe, qwen3_moe, deepseek_v2,
// deepseek_v3, gpt_oss) read 0, no context window, where the key was left out (review).
struct ClassSizes {
  const char* config_class;
  int layers, hidden, heads, ffn_hidden, vocab, max_positions;
};
const ClassSizes& class_sizes(const std::string& type) {
  static const std::map<std::string, ClassSizes> sizes = {
      {"llama", {"LlamaConfig", 32, 4096, 32, 11008, 32000, 2048}},
      {"mistral", {"MistralConfig", 32, 4096, 32, 14336, 32000, 131072}},
      {"mixtral", {"MixtralConfig", 32, 4096, 32, 14336, 32000, 131072}},
      {"qwen2", {"Qwen2Config", 32, 4096, 32, 22016, 151936, 32768}},
      {"qwen2_moe", {"Qwen2MoeConfig", 24, 2048, 16, 5632, 151936, 32768}},
      {"qwen3", {"Qwen3Config", 32, 4096, 32, 22016, 151936, 32768}},
      {"qwen3_moe", {"Qwen3MoeConfig", 24, 2048, 32, 6144, 151936, 32768}},
      {"deepseek_v2", {"DeepseekV2Config", 32, 4096, 32, 11008, 32000, 2048}},
      {"deepseek_v3", {"DeepseekV3Config", 61, 7168, 128, 18432, 129280, 4096}},
      {"gpt2", {"GPT2Config", 12, 768, 12, 0, 50257, 1024}},
      {"gpt_neox", {"GPTNeoXConfig", 44, 6144, 64, 24576, 50432, 2048}},
      {"gemma", {"GemmaConfig", 28, 3072, 16, 24576, 256000, 8192}},
      {"gemma2", {"Gemma2Config", 26, 2304, 8, 9216, 256000, 8192}},
      {"gemma3_text", {"Gemma3TextConfig", 26, 2304, 8, 9216, 262208, 131072}},
      {"phi3", {"Phi3Config", 32, 3072, 32, 8192, 32064, 4096}},
      {"nemotron", {"NemotronConfig", 32, 6144, 48, 24576, 256000, 4096}},
      {"olmo", {"OlmoConfig", 32, 4096, 32, 11008, 50304, 2048}},
      {"olmo2", {"Olmo2Config", 32, 4096, 32, 11008, 50304, 2048}},
      {"granite", {"GraniteConfig", 32, 4096, 32, 11008, 32000, 2048}},
      {"gpt_oss", {"GptOssConfig", 36, 2880, 64, 2880, 201088, 131072}}};
  static const ClassSizes none{"", 0, 0, 0, 0, 0, 0};
  const auto it = sizes.find(type);
  return it == sizes.end() ? none : it->second;
}
}  // namespace

// Errors name the key's line and column in the file (nlohmann's tree keeps no positions: they
// had named the file and key only, 2026-12-03 review).
ModelConfig parse_hf_config(const std::string& text, const std::string& file) {
  bool wrapped = false;  // the language model was read from a multimodal config's text_config
  try {
    return parse_hf_config_unlocated(text, file, wrapped);
  } catch (const Error& e) {
    if (e.where().file != file || e.where().line > 0 || e.where().key.empty()) throw;
    const std::string& key = e.where().key;
    // Keys are found by their path from the top (json_key_places): a nested key
    // ("quantization_config.bits", "text_config.model_type") had been searched for as written and
    // found nowhere, its error given without a line (review of 2026-12-07). A nested key that is
    // not written is placed at the nearest written key above it.
    const auto place = [&](std::string path) {
      SourceLocation at = json_key_location(text, file, path);
      while (at.line == 0 && path.find_last_of(".[") != std::string::npos) {
        path.erase(path.find_last_of(".["));
        at = json_key_location(text, file, path);
      }
      return at;
    };
    if (wrapped && key.rfind("text_config", 0) != 0) {
      // A key of the language model is looked for inside text_config and named with its prefix:
      // a missing one had been placed at the vision tower's key of the same name (2026-12-04
      // review); one that is not written is placed at text_config itself. The wrapper's own
      // quantization_config (read as the language model's) is found at the top.
      SourceLocation at = json_key_location(text, file, "text_config." + key);
      std::string named = "text_config." + key;
      if (at.line == 0 && key.rfind("quantization_config", 0) == 0 && json_key_location(text, file, "quantization_config").line > 0) {
        at = place(key);
        named = key;
      }
      if (at.line == 0) at = place("text_config." + key);
      at.key = named;
      throw Error(at, e.message(), e.hint());
    }
    SourceLocation at = place(key);
    // A required key the file does not write is placed at model_type, the key that requires it
    // (the error had named the file alone; review of 2026-12-06), and so is any error about a key
    // it does not write (its default's value refused: Qwen2-MoE's shared expert 5632; review of
    // 2026-12-07).
    if (at.line == 0) at = json_key_location(text, file, "model_type");
    at.key = key;
    throw Error(at, e.message(), e.hint());
  }
}

namespace {
ModelConfig parse_hf_config_unlocated(const std::string& text, const std::string& file, bool& wrapped) {
  nlohmann::json j;
  // A key twice in one object is an error, as in YAML: the parser kept the last silently
  // (num_hidden_layers 32, then 320, read as 320) before 2026-12-03.
  std::vector<std::set<std::string>> keys_at_depth;
  const nlohmann::json::parser_callback_t no_duplicates = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& v) {
    if (ev == nlohmann::json::parse_event_t::object_start) keys_at_depth.emplace_back();
    else if (ev == nlohmann::json::parse_event_t::object_end && !keys_at_depth.empty()) keys_at_depth.pop_back();
    else if (ev == nlohmann::json::parse_event_t::key && !keys_at_depth.empty() && v.is_string() &&
             !keys_at_depth.back().insert(v.get<std::string>()).second)
      throw duplicate_key_error(text, file, v.get<std::string>());
    return true;
  };
  try {
    j = nlohmann::json::parse(text, no_duplicates);
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = line_column(text, e.byte > 0 ? e.byte - 1 : 0);
    // The parser's reason without the library's "[json.exception.parse_error.101] parse error at
    // line 2, column 1: " prefix: the place is the location's already.
    std::string why = e.what();
    if (const auto k = why.find(": "); k != std::string::npos && why.find("parse error") != std::string::npos) why = why.substr(k + 2);
    throw Error(SourceLocation{file, line, column}, "invalid JSON at byte " + std::to_string(e.byte) + ": " + why);
  } catch (const nlohmann::json::exception& e) {
    // e.g. out_of_range 406, a number too large for a double ("1e999"): found by fuzz_hf_config.
    std::string why = e.what();
    if (const auto k = why.find("] "); k != std::string::npos) why = why.substr(k + 2);
    throw Error(SourceLocation{file}, "invalid JSON: " + why);
  }
  if (!j.is_object()) throw Error(SourceLocation{file}, "a config.json must be a JSON object");
  // Gemma 3's multimodal config (model_type gemma3) holds the language model in text_config; the
  // vision tower and its projector are not modelled, and its keys are listed as ignored.
  // So does any multimodal wrapper whose text_config names a supported type (Mistral 3's mistral,
  // LLaVA's llama): before 2026-12-05 only gemma3 was unwrapped, and mistral3 was refused as "an
  // architecture whose layers no supported type has" (review).
  std::vector<std::string> outer_ignored;
  const auto& types = hf_model_types();
  const auto supported = [&](const nlohmann::json& t) {
    return t.is_string() && t != "gemma3" && std::find(types.begin(), types.end(), t.get<std::string>()) != types.end();
  };
  // A text_config that is not an object, under a type read from it: said at text_config (a llava
  // config with "text_config": "x" had been refused as an unsupported model_type; review of
  // 2026-12-07).
  if (j.contains("model_type") && j["model_type"].is_string() && !supported(j["model_type"]) && j.contains("text_config") &&
      !j["text_config"].is_null() && !j["text_config"].is_object())
    throw Error(SourceLocation{file, 0, 0, "text_config"}, "text_config must be an object (the language model's config), got " + j["text_config"].dump(),
                "a multimodal config holds its language model's keys in text_config: {\"model_type\": ..., \"hidden_size\": ..., ...}");
  // Whether a text_config's model_type is meant as a supported language model: a supported type,
  // or one written wrong (a near name of one, a value that is not a string, a type other than its
  // architectures' supported class). The error is then the text_config's, at its model_type: a
  // LLaVA config with text_config.model_type "lama" (or 5) had been refused as "unsupported
  // model_type 'llava' ... describe it as a catalog YAML entry", at the wrapper's line, though
  // llava wrappers are read (review of 2026-12-07). Another architecture's language model
  // (qwen2_vl_text) stays the wrapper's error.
  const auto meant_as_supported = [&](const nlohmann::json& tc) {
    if (!tc.contains("model_type")) return false;
    const nlohmann::json& t = tc["model_type"];
    if (supported(t) || !t.is_string()) return true;
    // A spelling within two edits (a third of the name at most), in any letter case: closest_match
    // is too wide here (qwen2_vl_text, another architecture's, would read as qwen2_moe misspelt).
    std::string lower = t.get<std::string>();
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const auto& x : types) {
      const int d = edit_distance_capped(lower, x, 2);
      if (x != "gemma3" && d <= 2 && 3 * d < static_cast<int>(std::max(lower.size(), x.size()))) return true;
    }
    if (tc.contains("architectures") && tc["architectures"].is_array())
      for (const auto& a : tc["architectures"])
        if (a.is_string())
          if (const std::string owner = hf_type_of_class(a.get<std::string>()); !owner.empty() && supported(nlohmann::json(owner))) return true;
    return false;
  };
  std::string wrapper;  // the wrapper's model_type when the language model is read from its text_config
  if (j.contains("model_type") && j["model_type"].is_string() && !supported(j["model_type"]) && j["model_type"] != "gemma3" &&
      j.contains("text_config") && j["text_config"].is_object() && meant_as_supported(j["text_config"]))
    wrapper = j["model_type"].get<std::string>();
  // Without text_config a gemma3 config has no language model to read: said at text_config (the
  // error had named vision_config's num_hidden_layers as a missing key; review of 2026-12-05).
  if (j.contains("model_type") && j["model_type"] == "gemma3" && !j.contains("text_config"))
    throw Error(json_key_location(text, file, "model_type"), "a gemma3 config holds its language model in text_config, which this file lacks",
                "give the checkpoint's whole config.json, or write the language model's keys at the top level with model_type gemma3_text");
  if (j.contains("model_type") && j["model_type"] == "gemma3" && j.contains("text_config")) wrapper = "gemma3";
  if (!wrapper.empty()) {
    if (!j["text_config"].is_object())  // gemma3's null text_config
      throw Error(SourceLocation{file, 0, 0, "text_config"}, "text_config must be an object (the language model's config), got " + j["text_config"].dump());
    nlohmann::json text = j["text_config"];
    if (wrapper == "gemma3" && !text.contains("model_type")) text["model_type"] = "gemma3_text";
    // Gemma 3's language model is gemma3_text (its QK-norm and sliding windows); another type here
    // had been mapped as that type, losing both.
    // (Placed at text_config.model_type by its path: it had been given without a line; review of
    // 2026-12-07.)
    if (wrapper == "gemma3" && text["model_type"] != "gemma3_text")
      throw Error(SourceLocation{file, 0, 0, "text_config.model_type"},
                  "a gemma3 config's language model is gemma3_text, not " + text["model_type"].dump(),
                  "set text_config.model_type to gemma3_text or leave it out");
    if (!text.contains("_name_or_path") && j.contains("_name_or_path")) text["_name_or_path"] = j["_name_or_path"];
    // Quantized checkpoints (GPTQ, AWQ, FP8) write quantization_config at the top level: it
    // describes the language model's weights (it was listed as ignored and the weights read as
    // 16-bit, 2026-12-04 review).
    const bool outer_quant = j.contains("quantization_config") && !text.contains("quantization_config");
    if (outer_quant) text["quantization_config"] = j["quantization_config"];
    for (auto it = j.begin(); it != j.end(); ++it)
      if (it.key() != "text_config" && it.key() != "model_type" && it.key() != "_name_or_path" && it.key() != "architectures" &&
          !(outer_quant && it.key() == "quantization_config"))
        outer_ignored.push_back(it.key());
    j = std::move(text);
    wrapped = true;
  }
  Reader r{j, file, {}};
  const auto supported_list = [&] {
    std::string t;
    for (const auto& x : types)
      if (!wrapped || x != "gemma3") t += (t.empty() ? "" : ", ") + x;
    return t;
  };
  // A text_config's model_type that is not a string (5): said at text_config.model_type with the
  // types it may name (review of 2026-12-07).
  if (wrapped && j.contains("model_type") && !j["model_type"].is_null() && !j["model_type"].is_string())
    throw Error(SourceLocation{file, 0, 0, "model_type"}, "expected a string, the language model's model_type, got " + j["model_type"].dump(),
                "supported: " + supported_list());
  const std::string type = r.s("model_type", "");
  // gemma3 is Gemma 3's multimodal wrapper, not a language model: inside another wrapper's
  // text_config it is gemma3_text.
  if (wrapped && type == "gemma3")
    throw Error(SourceLocation{file, 0, 0, "model_type"}, "model_type gemma3 is Gemma 3's multimodal config, not a language model",
                "set text_config.model_type to gemma3_text");
  if (std::find(types.begin(), types.end(), type) == types.end()) {
    // The hint: the supported type its `architectures` class belongs to (Kimi K2's kimi_k2 is a
    // DeepseekV3ForCausalLM), else a near name of the same kind only. A near name had sent MoE and
    // hybrid models to dense types (olmoe -> olmo, granitemoe -> granite), which then read
    // silently wrong; an MoE config is pointed at MoE types only. Review of 2026-12-05.
    // (The class table, hf_type_of_class, is also the one architectures is checked with below.)
    std::string hint;
    // A wrapper whose language model is of a type no mapping reads: said before the wrapper's own
    // hint, which is about the wrapper (review of 2026-12-07).
    const std::string inner_unsupported =
        !wrapped && j.contains("text_config") && j["text_config"].is_object() && j["text_config"].contains("model_type") &&
                j["text_config"]["model_type"].is_string()
            ? "its language model, text_config.model_type '" + j["text_config"]["model_type"].get<std::string>() + "', is no supported type; "
            : std::string();
    // A wrapper whose text_config names no model_type: the language model is there, read when its
    // type is named (it had been refused as an architecture no type has; review of 2026-12-05).
    if (j.contains("text_config") && j["text_config"].is_object() && !j["text_config"].contains("model_type"))
      hint = "a multimodal config holds its language model in text_config, which names no model_type: set text_config.model_type to "
             "its type (the language model is read from text_config; the vision tower is not modelled); supported: " + [&] {
               std::string t;
               for (const auto& x : types) t += (t.empty() ? "" : ", ") + x;
               return t;
             }();
    if (hint.empty() && j.contains("architectures") && j["architectures"].is_array())
      for (const auto& a : j["architectures"])
        if (a.is_string())
          if (const std::string t = hf_type_of_class(a.get<std::string>()); !t.empty() && std::find(types.begin(), types.end(), t) != types.end()) {
            // A near name of the same type is said first, and the supported types after (a
            // LLaVA text_config's "lama" under LlamaForCausalLM; review of 2026-12-07).
            const std::string near = closest_match(type, types);
            hint = (near == t ? "did you mean '" + t + "'? " : std::string()) + "its architectures name " + a.get<std::string>() +
                   ", which is model_type " + t + ": set " + (wrapped ? "text_config." : "") + "model_type to " + t +
                   "; supported: " + supported_list();
            break;
          }
    // Hugging Face model types of other architectures (hybrid linear attention, multimodal,
    // parallel blocks, ...): a near supported name would build a different model (qwen3_next had
    // been pointed at qwen3_moe, olmo3 at olmo, phi at phi3; review of 2026-12-05).
    static const std::set<std::string> other_archs = {
        "qwen3_next", "qwen2_vl", "qwen2_5_vl", "qwen2_5_omni", "qwen3_vl", "qwen3_vl_moe", "qwen3_omni_moe", "olmo3",
        "phi", "phi4_multimodal", "glm", "glm4", "glm4_moe", "glm4v", "chatglm", "llava", "mllama", "gemma3", "gemma3n",
        "jamba", "mamba", "mamba2", "falcon", "falcon_h1", "falcon_mamba", "bamba", "nemotron_h", "granitemoehybrid",
        "granitemoeshared", "cohere", "cohere2", "starcoder2", "dbrx", "exaone", "exaone4", "internlm2", "minimax", "hunyuan_v1_dense",
        "hunyuan_v1_moe", "ernie4_5", "ernie4_5_moe", "deepseek_vl", "deepseek_vl_hybrid", "kimi_vl", "bloom", "opt", "gptj",
        "gpt_neo", "codegen", "gpt_bigcode", "t5", "mt5", "bart", "bert", "roberta", "mpt", "persimmon", "stablelm", "recurrent_gemma",
        "zamba", "zamba2", "lfm2", "smollm3", "seed_oss", "arcee", "apertus", "dots1", "llama4", "llama4_text", "mistral3",
        "pixtral", "mixtral_vision", "bitnet", "helium", "xlstm",
        // DeepSeek-V3.2's sparse attention (its lightning indexer) and Gemma 3n's per-layer
        // embeddings and AltUp: named as other architectures, not pointed at deepseek_v3 or
        // gemma3_text (review of 2026-12-05).
        "deepseek_v32", "gemma3n_text", "gemma3n_audio", "gemma3n_vision",
        // Qwen3.5's hybrid Gated DeltaNet layers (layer_types "linear_attention") and Qwen2-Audio's
        // encoder: they had been pointed at qwen3 / qwen3_moe / qwen2_moe, and the hint followed
        // built 40 softmax layers of a model that has 10 (review of 2026-12-05).
        "qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text", "qwen2_audio", "qwen2_audio_encoder",
        // DeepSeek-MoE (DeepseekForCausalLM): multi-head attention, where deepseek_v2/v3 have
        // latent attention (MLA); it had been pointed at deepseek_v2 (review of 2026-12-06).
        "deepseek"};
    // Why, where a near supported name is another architecture.
    static const std::map<std::string, std::string> why = {
        {"deepseek", "DeepSeek-MoE's attention is multi-head, where deepseek_v2 and deepseek_v3 have latent attention (MLA)"}};
    if (hint.empty() && other_archs.count(type))
      hint = "'" + type + "' is a Hugging Face architecture whose layers no supported type has" +
             (why.count(type) ? ": " + why.at(type) + "; " : std::string(" (")) + "a near name would build a different model" +
             (why.count(type) ? "" : ")") + ": describe it as a catalog YAML entry (docs/catalog.md, Models); supported: " + [&] {
               std::string t;
               for (const auto& x : types) t += (t.empty() ? "" : ", ") + x;
               return t;
             }();
    if (hint.empty()) {
      const bool moe = !experts_in(j).first.empty();
      static const std::set<std::string> moe_types = {"mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3", "gpt_oss"};
      std::vector<std::string> same_kind;
      for (const auto& t : types)
        if ((!moe || moe_types.count(t)) && !(wrapped && t == "gemma3")) same_kind.push_back(t);
      hint = valid_choices_hint(type, same_kind);
      // valid_choices_hint begins "valid: ", which the MoE sentence says already ("the supported
      // MoE types: valid: mixtral, ..." before 2026-12-06, review).
      if (moe && hint.rfind("valid: ", 0) == 0) hint.erase(0, 7);
      if (moe) hint = "a mixture-of-experts config (" + experts_in(j).first + "); the supported MoE types: " + hint;
    }
    // Inside a wrapper the type is the language model's (placed at text_config.model_type).
    const std::string where = wrapped ? " for the language model in text_config of this " + wrapper + " config" : std::string();
    throw Error(SourceLocation{file, 0, 0, "model_type"},
                type.empty() ? (wrapped ? "text_config names no model_type (it is null)" : "config.json has no model_type")
                             : "unsupported model_type '" + type + "'" + where,
                type.empty() && wrapped ? "set text_config.model_type to the language model's type; supported: " + supported_list()
                                        : inner_unsupported + hint);
  }
  // The class vLLM builds (architectures) and the one Transformers builds (model_type) must be one
  // model. Before 2026-12-06 architectures was not compared: Llama-3.1-8B written as mistral read
  // with Mistral's 4096-token window on every layer, as gemma with 256-wide heads, and a Falcon-7B
  // config written as llama as a 71-KV-head llama (review). A class the table does not know (remote
  // code, a multimodal wrapper's) is no error, and every head of a type (LlamaForCausalLM,
  // LlamaForSequenceClassification) is that type.
  if (j.contains("architectures") && j["architectures"].is_array())
    for (const auto& a : j["architectures"]) {
      if (!a.is_string()) continue;
      const std::string cls = a.get<std::string>(), owner = hf_type_of_class(cls);
      if (owner.empty() || owner == type) continue;
      // The line of architectures, said in the message: the error is placed at model_type.
      const SourceLocation at = json_key_location(text, file, wrapped ? "text_config.architectures" : "architectures");
      const bool owner_supported = std::find(types.begin(), types.end(), owner) != types.end();
      const std::string own_class = hf_class_of_type(type);
      throw Error(SourceLocation{file, 0, 0, "model_type"},
                  std::string("architectures") + (at.line > 0 ? " (line " + std::to_string(at.line) + ")" : std::string()) + " names " + cls +
                      ", which is model_type " + owner + (owner_supported ? "" : " (not a supported type)") + "; model_type says " + type +
                      ": they are different models (Transformers builds model_type's, vLLM the architectures class)",
                  "fix one: " +
                      (owner_supported ? "model_type " + owner + " for " + cls
                                       : owner + "'s layers no supported type has: describe it as a catalog YAML entry (docs/catalog.md, Models)") +
                      ", or " + (own_class.empty() ? "the class of model_type " + type : own_class) + " in architectures for model_type " + type);
    }
  // A required key left out is reported once the mapping has read every key of the type (the
  // hint's candidates); an error the placeholder value caused on the way is that key's.
  try {
    ModelConfig c = map_hf_keys(r, type, wrapper, outer_ignored);
    if (r.missing.empty()) return c;
  } catch (const Error& e) {
    if (r.missing.empty()) {
      // An error about a key the file does not write (its default's value refused) where the file
      // has a near miss of that key: the near miss is the error, as it would have been had the
      // mapping gone on (Qwen2-MoE's shared_expert_intermediate for shared_expert_intermediate_size
      // had been refused for the class default 5632, the typo unsaid; review of 2026-12-07).
      const std::string& key = e.where().key;
      if (!key.empty() && !j.contains(key) && (r.used.count(key) || r.may_read.count(key)))
        for (auto it = j.begin(); it != j.end(); ++it) {
          const std::string& k = it.key();
          const bool foreign = std::any_of(foreign_keys().begin(), foreign_keys().end(), [&](const ForeignKey& f) { return k == f.key; });
          if (!r.used.count(k) && !r.may_read.count(k) && !foreign && near_miss_of(k, key)) throw near_miss_error(file, type, k, key);
        }
      throw;
    }
  }
  throw r.missing_key_error(type);
}

// The keys of a supported model_type, read into a model.
ModelConfig map_hf_keys(Reader& r, const std::string& type, const std::string& wrapper, const std::vector<std::string>& outer_ignored) {
  const nlohmann::json& j = r.j;
  const std::string& file = r.file;
  ModelConfig c;
  c.file = file;
  c.source = "Hugging Face config.json " + file;
  if (!wrapper.empty()) c.source += kWrapperMark + wrapper + ")";
  c.name = r.s("_name_or_path", "");
  // Without _name_or_path (a config.json saved by hand) the id is the file's: its folder for a
  // config.json in a model snapshot ("Qwen3-235B-A22B/config.json"), else its name without
  // ".json" and ".config" ("qwen3-30b-a3b.config.json"); model_type ("qwen3_moe") only when
  // the path names nothing.
  c.id = c.name;
  if (c.id.empty()) {
    const std::filesystem::path p(file);
    std::string stem = p.filename().string();
    if (stem == "config.json") {
      stem = p.parent_path().filename().string();
      // The Hugging Face cache (hub/models--ORG--NAME/snapshots/COMMIT/config.json): the model's
      // name, not the commit hash the folder is named after (2026-12-03 review).
      const std::filesystem::path snapshots = p.parent_path().parent_path();
      const std::string repo = snapshots.parent_path().filename().string();
      if (snapshots.filename() == "snapshots" && repo.rfind("models--", 0) == 0 && repo.size() > 8) {
        stem = repo.substr(8);
        for (size_t at; (at = stem.find("--")) != std::string::npos;) stem.replace(at, 2, "/");
      }
    } else {
      // (in any case: Mistral.JSON had kept its extension in the id)
      for (const char* ext : {".json", ".config"}) {
        const size_t n = std::strlen(ext);
        if (stem.size() <= n) continue;
        std::string tail = stem.substr(stem.size() - n);
        for (auto& ch : tail) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (tail == ext) stem.resize(stem.size() - n);
      }
    }
    c.id = stem.empty() || stem == "." || stem == ".." ? type : stem;
    c.name = c.id;  // shown by catalog show and the results (it was empty)
  }
  r.used.insert("architectures");
  const ClassSizes& sizes = class_sizes(type);

  if (type == "gpt2") {
    c.layers = r.size_or_default("n_layer", sizes.layers);
    c.hidden = r.size_or_default("n_embd", sizes.hidden);
    c.heads = r.size_or_default("n_head", sizes.heads);
    c.kv_heads = c.heads;
    c.ffn_hidden = r.i("n_inner", 4 * c.hidden);
    c.vocab = r.size_or_default("vocab_size", sizes.vocab);
    // GPT2Config's 1024 where it is left out: the learned position table's length (its size).
    c.max_seq_len = r.size_or_default("n_positions", 1024);
    c.max_seq_len_source = r.has("n_positions") ? "n_positions" : "the Transformers config class's default n_positions for model_type gpt2";
    c.mlp = "gelu";
    c.norm = "layernorm";
    c.tied_embeddings = r.b("tie_word_embeddings", true);
    c.learned_position = true;
    // GPT2MLP applies ACT2FN[activation_function]: the GELU forms cost alike; another activation
    // is an error, as hidden_act's of the other types (it was read and dropped: "relu" and "foo"
    // modelled GELU; review of 2026-12-05).
    const std::string act = r.s("activation_function", "gelu_new");
    static const std::set<std::string> gelus = {"gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh", "gelu_python", "gelu_accurate"};
    if (!gelus.count(act)) c.mlp = mlp_from_act(act, false, file, "activation_function", type);
  } else if (type == "gpt_neox") {
    c.layers = r.size_or_default("num_hidden_layers", sizes.layers);
    c.hidden = r.size_or_default("hidden_size", sizes.hidden);
    c.heads = r.size_or_default("num_attention_heads", sizes.heads);
    c.kv_heads = c.heads;
    c.ffn_hidden = r.size_or_default("intermediate_size", sizes.ffn_hidden);
    c.vocab = r.size_or_default("vocab_size", sizes.vocab);
    // GPTNeoXConfig's 2048 where it is left out (class_sizes; it had read 0, no context window:
    // review of 2026-12-07).
    c.max_seq_len = r.i("max_position_embeddings", sizes.max_positions);
    c.max_seq_len_source = r.has("max_position_embeddings")
                               ? "max_position_embeddings"
                               : "the Transformers config class's default max_position_embeddings for model_type " + type;
    c.mlp = mlp_from_act(r.s("hidden_act", "gelu"), false, file, "hidden_act", type);
    c.norm = "layernorm";
    c.tied_embeddings = r.b("tie_word_embeddings", false);
  } else if (type == "qwen") {
    // Qwen-1 (QWenLMHeadModel, the checkpoint's own modeling_qwen.py): multi-head attention whose
    // c_attn projects 3 x kv_channels x heads (kv_channels the head width), RMSNorm, and QWenMLP,
    // a SwiGLU whose w1, w2 and c_proj are intermediate_size // 2 wide. Before 2026-12-06 'qwen'
    // was pointed at qwen2, which read intermediate_size as the width: Qwen-7B as 12.05B, not
    // 7.72B (review). Biases are not counted (c_attn's; no_bias drops the others). QWenConfig's
    // defaults changed between its releases: every size is required.
    c.layers = r.i("num_hidden_layers");
    c.hidden = r.i("hidden_size");
    c.heads = r.i("num_attention_heads");
    c.kv_heads = c.heads;
    c.head_dim = r.i("kv_channels");
    // QWenAttention splits c_attn's output at hidden_size and c_proj maps hidden_size back: any
    // other projection width builds no working model.
    if (r.missing.empty() && static_cast<int64_t>(c.head_dim) * c.heads != c.hidden)
      throw Error(SourceLocation{file, 0, 0, "kv_channels"},
                  "kv_channels " + std::to_string(c.head_dim) + " x num_attention_heads " + std::to_string(c.heads) +
                      " is not hidden_size " + std::to_string(c.hidden),
                  "QWenAttention splits its query, key and value at hidden_size: kv_channels is hidden_size / num_attention_heads");
    const int width = r.i("intermediate_size");
    if (r.missing.empty() && (width <= 0 || width % 2 != 0))
      throw Error(SourceLocation{file, 0, 0, "intermediate_size"},
                  "must be a positive even number (QWenMLP's SwiGLU is intermediate_size / 2 wide), got " + std::to_string(width));
    c.ffn_hidden = width / 2;
    c.vocab = r.i("vocab_size");
    c.mlp = "swiglu";
    c.norm = "rmsnorm";
    c.tied_embeddings = r.b("tie_word_embeddings", false);
    r.used.insert("no_bias");
    // vLLM's max_model_len is the least of the length keys it reads (_get_and_verify_max_len:
    // max_position_embeddings, seq_length, ...): Qwen-7B's 32,768 and 8,192 give 8,192. Its
    // dynamic NTK and log-n scaling (use_dynamic_ntk, use_logn_attn) stretch it in its own code
    // only, and are listed as ignored.
    const int positions = r.i("max_position_embeddings", 0), seq = r.i("seq_length", 0);
    for (const auto& [k, v] : {std::pair<const char*, int>{"seq_length", seq}, {"max_position_embeddings", positions}})
      if (r.has(k) && v <= 0) throw Error(SourceLocation{file, 0, 0, k}, "must be a positive number of tokens, got " + std::to_string(v));
    if (seq > 0 && (positions <= 0 || seq <= positions)) {
      c.max_seq_len = seq;
      c.max_seq_len_source = r.has("max_position_embeddings")
                                 ? "seq_length (the lesser of it and max_position_embeddings, as vLLM derives max_model_len)"
                                 : "seq_length";
    } else if (r.has("max_position_embeddings")) {
      c.max_seq_len = positions;
      c.max_seq_len_source = "max_position_embeddings";
    }
  } else {
    // The llama family layout, shared by most decoder-only models. The sizes left out take the
    // class's defaults (class_sizes).
    c.layers = r.size_or_default("num_hidden_layers", sizes.layers);
    c.hidden = r.size_or_default("hidden_size", sizes.hidden);
    // Transformers' defaults where a key is left out: Gemma2Config and Gemma3TextConfig 8 heads
    // (class_sizes) and 4 KV heads (google/gemma-3-4b-it's text_config writes neither: it was
    // refused, then read as multi-head, twice the cache), MistralConfig and MixtralConfig 8 KV
    // heads (a trimmed config had read 32: four times the cache), the others multi-head.
    const bool gemma_gqa = type == "gemma2" || type == "gemma3_text";
    c.heads = r.size_or_default("num_attention_heads", sizes.heads);
    // GptOssConfig 8 and Qwen3MoeConfig 4 KV heads (they had read as multi-head: 8x and 8x the
    // cache; review of 2026-12-05).
    // Qwen2Config and Qwen3Config 32, Qwen2MoeConfig 16 (a Qwen2.5-72B config without the key had
    // read 64, twice the cache; review of 2026-12-05).
    // An explicit null is what Transformers' configs map to multi-head attention (LlamaConfig,
    // MistralConfig, Qwen2Config...: "if num_key_value_heads is None: num_key_value_heads =
    // num_attention_heads"); it had read as the class default (Mistral 8 where Transformers runs
    // 32: a quarter of the cache). Gemma's configs have no such rule: refused there.
    const bool kv_null = j.contains("num_key_value_heads") && j["num_key_value_heads"].is_null();
    if (kv_null && (gemma_gqa || type == "gemma"))
      throw Error(SourceLocation{file, 0, 0, "num_key_value_heads"}, "is null; give the number of key/value heads",
                  "Gemma's configs take no null here (the others read it as num_attention_heads)");
    if (kv_null) r.used.insert("num_key_value_heads");
    c.kv_heads = kv_null ? c.heads : r.i("num_key_value_heads", type == "mistral" || type == "mixtral" || type == "gpt_oss" ? 8
                                            : gemma_gqa || type == "qwen3_moe"                          ? 4
                                            : type == "qwen2" || type == "qwen3"                        ? 32
                                            : type == "qwen2_moe"                                       ? 16
                                                                                                        : c.heads);
    // Transformers' defaults: Qwen3Config 128, GemmaConfig, Gemma2Config and Gemma3TextConfig 256;
    // the others hidden / heads (a trimmed Qwen3 or Gemma config had read 64 and 192).
    const bool gemma = type == "gemma" || type == "gemma2" || type == "gemma3_text";
    // (GptOssConfig 64: 2880 / 64 heads is 45; review of 2026-12-05.)
    c.head_dim = r.i("head_dim", type == "qwen3" ? 128 : gemma ? 256 : type == "gpt_oss" ? 64 : 0);
    // 0 is the model's "derive it" value: a config that writes head_dim 0 (or less) had been given
    // hidden / heads without a word.
    if (r.has("head_dim") && c.head_dim <= 0)
      throw Error(SourceLocation{file, 0, 0, "head_dim"}, "must be a positive number of channels per head, got " + std::to_string(c.head_dim),
                  "or leave it out (hidden_size / num_attention_heads)");
    // The class's default where it is left out (a config that left it out had been refused at an
    // internal key, 2026-12-04 review). Gemma 3's published configs leave vocab_size to
    // Gemma3TextConfig's default, 262,208.
    c.ffn_hidden = r.size_or_default("intermediate_size", sizes.ffn_hidden);
    c.vocab = r.size_or_default("vocab_size", sizes.vocab);
    // Where a size took its default, the KV heads and head width the class gave go with it in the
    // note (the LLaVA 1.5 text_config's 32 KV heads: multi-head).
    if (!r.defaulted.empty()) {
      if (!j.contains("num_key_value_heads")) r.defaulted.push_back("num_key_value_heads " + std::to_string(c.kv_heads));
      if (!j.contains("head_dim") && c.head_dim > 0) r.defaulted.push_back("head_dim " + std::to_string(c.head_dim));
    }
    // The class's default where it is left out (class_sizes): Gemma3TextConfig's 131,072
    // (google/gemma-3-*'s text_config writes none: the context limit was lost and a 250k-token
    // prompt "fit", 2026-12-04 review). Eleven types had no default here and read 0, no limit
    // (review of 2026-12-07).
    const int ctx_default = sizes.max_positions;
    c.max_seq_len = r.i("max_position_embeddings", ctx_default);
    if (r.has("max_position_embeddings")) c.max_seq_len_source = "max_position_embeddings";
    else if (ctx_default > 0) c.max_seq_len_source = "the Transformers config class's default max_position_embeddings for model_type " + type;
    c.tied_embeddings = r.b("tie_word_embeddings", gemma);
    // Query and key norms are in the architecture, not the config: Qwen3(Moe)Attention,
    // Olmo2Attention (over the whole projection: the same bytes) and Gemma3Attention build them.
    c.qk_norm = type == "qwen3" || type == "qwen3_moe" || type == "olmo2" || type == "gemma3_text";
    // The activation's key: Gemma's MLPs read hidden_activation (GemmaMLP, Gemma2MLP, Gemma3MLP),
    // the others hidden_act; the other key is read only when the first is absent, and is listed as
    // ignored when both are written (a llama config's hidden_activation beside hidden_act had been
    // neither applied nor listed; review of 2026-12-05). Transformers' defaults: GemmaConfig and
    // Gemma2Config gelu_pytorch_tanh, NemotronConfig relu2 (squared ReLU, no gate; silu had made it
    // "gelu"), the others silu.
    const char* first = gemma ? "hidden_activation" : "hidden_act";
    const char* second = gemma ? "hidden_act" : "hidden_activation";
    const char* act_key = r.has(first) || !r.has(second) ? first : second;
    const std::string act = r.s(act_key, gemma ? "gelu_pytorch_tanh" : type == "nemotron" ? "relu2" : "silu");
    r.may_read.insert(first);
    c.mlp = mlp_from_act(act, type != "nemotron", file, act_key, type);
    // NemotronLayerNorm1P and OLMo's OlmoLayerNorm are LayerNorms (mean subtracted), the others
    // RMSNorms. OlmoLayerNorm has no weight nor bias (modeling_olmo.py: F.layer_norm(x, shape,
    // None, None)); the model has no field for that, so the parameter count keeps its two norms a
    // layer and the final one, 2h per layer + h (266,240 weights in OLMo-7B, 0.004%). Before
    // 2026-12-07 olmo read as RMSNorm (review).
    c.norm = type == "nemotron" || type == "olmo" ? "layernorm" : "rmsnorm";
    // A window that is not a whole number is an error, as every integer key (4096.0 and "4096" had
    // been dropped silently: full attention).
    if (r.has("sliding_window") && !j["sliding_window"].is_number_integer())
      throw Error(SourceLocation{file, 0, 0, "sliding_window"}, "expected an integer number of tokens (or null), got " + j["sliding_window"].dump());
    // A window left out (not null) takes the type's Transformers default, as every key: MistralConfig,
    // Gemma2Config, Gemma3TextConfig and the Qwen2/Qwen3 configs 4096 (Qwen's only with
    // use_sliding_window), GptOssConfig 128; Mixtral and Phi-3 none. A trimmed Gemma 2 config had
    // been given full attention (2026-12-04 review).
    const int default_window = type == "gpt_oss" ? 128
                               : (type == "mistral" || type == "gemma2" || type == "gemma3_text" || type == "qwen2" || type == "qwen3" ||
                                  type == "qwen2_moe" || type == "qwen3_moe")
                                   ? 4096
                                   : 0;
    const bool window_default = !j.contains("sliding_window") && default_window > 0;
    // The window's keys of a type that has one are near-miss candidates whether or not the config
    // writes them: "sliding_windows": 8192 in a Mistral config had been listed as ignored and the
    // default 4096 used, a misspelt layer_types had left every layer windowed (2026-12-05 review).
    if (default_window > 0 || type == "mixtral" || type == "phi3") r.may_read.insert("sliding_window");
    if (default_window > 0) r.may_read.insert({"use_sliding_window", "layer_types"});
    if (type == "qwen2" || type == "qwen3" || type == "qwen2_moe" || type == "qwen3_moe") r.may_read.insert("max_window_layers");
    if (type == "gemma3_text") r.may_read.insert("sliding_window_pattern");
    // Whatever applies a window: a layer kind other than softmax attention (Qwen3.5's and
    // Qwen3-Next's "linear_attention", a Mamba layer) is a layer this model_type cannot build. It
    // had been listed as ignored where no window applied, and every layer modelled as softmax
    // attention with its KV cache (review of 2026-12-05).
    if (j.contains("layer_types") && j["layer_types"].is_array()) {
      const auto& lt = j["layer_types"];
      for (size_t idx = 0; idx < lt.size(); ++idx)
        if (lt[idx].is_string() && lt[idx] != "sliding_attention" && lt[idx] != "full_attention") {
          const std::string kind = lt[idx].get<std::string>();
          // The other layer kinds of Transformers' hybrid models get no near name (linear_attention
          // is not a misspelt sliding_attention); a typo of a softmax kind does.
          bool other = closest_match(kind, {"sliding_attention", "full_attention"}).empty();
          for (const char* o : {"linear", "mamba", "conv", "ssm", "delta", "recurrent", "rwkv", "mlp"})
            other = other || kind.find(o) != std::string::npos;
          if (!other)
            throw Error(SourceLocation{file, 0, 0, "layer_types"}, "entry " + std::to_string(idx) + " is '" + kind + "', not a layer kind",
                        valid_choices_hint(kind, {"sliding_attention", "full_attention"}));
          throw Error(SourceLocation{file, 0, 0, "layer_types"},
                      "entry " + std::to_string(idx) + " is '" + kind + "': model_type " + type +
                          " builds softmax attention layers only (sliding_attention, full_attention)",
                      "a model with other layers (linear attention, state-space) is another architecture: describe it as a catalog YAML "
                      "entry (docs/catalog.md, Models)");
        }
    }
    if (r.has("sliding_window") || window_default) {
      // Transformers windows every layer of Mistral, Mixtral and Phi-3 (their attention reads
      // config.sliding_window); Gemma 2's even layers (layer_idx % 2 == 0: local, the odd ones
      // global); Qwen2/Qwen3 only with use_sliding_window and only from layer max_window_layers
      // on; where the config lists layer_types (GPT-OSS, recent Transformers), its
      // "sliding_attention" layers. The windowed layers' count is kept (sliding_window_layers);
      // before 2026-12-02 only a window on every layer was modelled and the others were ignored.
      const bool by_default = type == "mistral" || type == "mixtral" || type == "phi3" || type == "gemma2" || type == "gemma3_text" ||
                              type == "gpt_oss";
      bool use = r.b("use_sliding_window", by_default);
      int windowed = c.layers;
      // Qwen's configs default max_window_layers to 28 (Qwen2Config ... Qwen3MoeConfig). An explicit
      // layer_types is what Transformers uses (it derives the list from max_window_layers only when
      // none is given): then it decides below (a list had been dropped where max_window_layers
      // reached the last layer; review of 2026-12-05).
      if (use && (type == "qwen2" || type == "qwen3" || type == "qwen2_moe" || type == "qwen3_moe") && !r.has("layer_types")) {
        const int from = r.i("max_window_layers", 28);
        if (from >= c.layers) {
          use = false;  // no layer reaches the window: listed as ignored with the keys that would have applied it
          r.used.erase("use_sliding_window");
          r.used.erase("max_window_layers");
        } else if (from > 0) {
          windowed = c.layers - from;
        }
      }
      if (use && type == "gemma2") windowed = (c.layers + 1) / 2;
      // Gemma 3 without layer_types: every sliding_window_pattern-th layer is global (default 6:
      // five local layers to one global).
      if (use && type == "gemma3_text" && !r.has("layer_types")) {
        const int pattern = r.i("sliding_window_pattern", 6);
        if (pattern < 1)
          throw Error(SourceLocation{file, 0, 0, "sliding_window_pattern"}, "must be 1 or more (every k-th layer global), got " + std::to_string(pattern));
        windowed = c.layers - c.layers / pattern;
        if (windowed == 0) use = false;  // pattern 1: every layer global (Transformers runs full attention)
      }
      // GptOssConfig without layer_types alternates too: layer i slides when (i + 1) % 2 (every
      // layer had been windowed).
      if (use && type == "gpt_oss" && !r.has("layer_types")) windowed = (c.layers + 1) / 2;
      if (use && r.has("layer_types")) {
        r.used.insert("layer_types");
        const auto& lt = j["layer_types"];
        if (!lt.is_array()) throw Error(SourceLocation{file, 0, 0, "layer_types"}, "expected a list of layer kinds, got " + lt.dump());
        int n = 0;
        for (size_t idx = 0; idx < lt.size(); ++idx) {
          const auto& k = lt[idx];
          const std::string kind = k.is_string() ? k.get<std::string>() : k.dump();
          // Each entry a known kind: a typo or a number had been read as full attention.
          if (!k.is_string() || (kind != "sliding_attention" && kind != "full_attention"))
            throw Error(SourceLocation{file, 0, 0, "layer_types"},
                        "entry " + std::to_string(idx) + " is '" + kind + "', not a layer kind",
                        valid_choices_hint(kind, {"sliding_attention", "full_attention"}));
          n += kind == "sliding_attention" ? 1 : 0;
        }
        if (static_cast<int>(lt.size()) != c.layers)
          throw Error(SourceLocation{file, 0, 0, "layer_types"},
                      "lists " + std::to_string(lt.size()) + " layers for num_hidden_layers " + std::to_string(c.layers));
        windowed = n;
        if (n == 0) use = false;
      }
      if (use) {
        const int w = window_default ? default_window : r.i("sliding_window");
        if (w <= 0)
          throw Error(SourceLocation{file, 0, 0, "sliding_window"}, "sliding_window must be a positive number of tokens, got " + std::to_string(w),
                      "or null / use_sliding_window: false for full attention");
        c.sliding_window = w;
        c.sliding_window_layers = windowed >= c.layers ? -1 : windowed;
      }
    } else {
      r.used.insert("sliding_window");
      r.used.insert("use_sliding_window");
    }
    if (type == "mixtral" || type == "gpt_oss") {
      // GPT-OSS: Mixtral's layout (every layer routed, experts as wide as intermediate_size);
      // its 128-token window on alternate layers is read from layer_types above; its attention
      // sinks and SwiGLU clamp are listed as ignored.
      MoEConfig m;
      m.num_experts = r.i("num_local_experts");
      m.topk = r.i("num_experts_per_tok");
      m.expert_ffn_hidden = c.ffn_hidden;
      c.moe = m;
    } else if (type == "qwen2_moe" || type == "qwen3_moe") {
      MoEConfig m;
      m.num_experts = r.i("num_experts");
      m.topk = r.i("num_experts_per_tok");
      m.expert_ffn_hidden = r.i("moe_intermediate_size");
      // Transformers' default where the key is left out: Qwen2MoeConfig 5632 (four experts of its
      // default 1408); Qwen3MoeConfig has no shared expert (a trimmed Qwen1.5-MoE config had read
      // 13.5B / 1.9B for 14.3B / 2.7B; review of 2026-12-05).
      // Qwen3MoeConfig has no shared expert at all: the key is not read there (listed as ignored; a
      // Qwen3-Next config written as qwen3_moe had been given one).
      const int shared = type == "qwen2_moe" ? r.i("shared_expert_intermediate_size", 5632) : 0;
      if (shared < 0)
        throw Error(SourceLocation{file, 0, 0, "shared_expert_intermediate_size"},
                    "must be 0 (no shared expert) or a width, got " + std::to_string(shared));
      // The shared expert is modelled as whole experts of the routed width (Qwen2-57B: 20480 =
      // 8 x 2560): a width that is not a multiple was rounded silently (1000 became 2560).
      if (shared > 0 && m.expert_ffn_hidden > 0 && shared % m.expert_ffn_hidden != 0)
        throw Error(SourceLocation{file, 0, 0, "shared_expert_intermediate_size"},
                    "shared_expert_intermediate_size " + std::to_string(shared) +
                        // A width the file does not write is the class's: said so (review of 2026-12-07).
                        (r.has("shared_expert_intermediate_size") ? std::string() : " (not written: the Qwen2MoeConfig default)") +
                        " is not a multiple of moe_intermediate_size " +
                        std::to_string(m.expert_ffn_hidden) + ": the shared expert is modelled as whole experts of that width",
                    "write the model as a catalog YAML entry with moe.shared_experts");
      m.shared_experts = shared > 0 ? shared / std::max(1, m.expert_ffn_hidden) : 0;
      // Transformers (Qwen2MoeDecoderLayer, Qwen3MoeDecoderLayer): layer i is MoE when it is not
      // in mlp_only_layers and (i + 1) % decoder_sparse_step == 0, counted from layer 1. Before
      // 2026-12-02 the listed layers were taken as the first ones and the step counted from layer 0.
      const int step = r.i("decoder_sparse_step", 1);
      if (step < 1)
        throw Error(SourceLocation{file, 0, 0, "decoder_sparse_step"},
                    "every k-th layer is MoE: k must be 1 or more, got " + std::to_string(step));
      std::set<int> mlp_only;
      r.used.insert("mlp_only_layers");
      if (r.has("mlp_only_layers")) {
        const auto& list = j["mlp_only_layers"];
        if (!list.is_array()) throw Error(SourceLocation{file, 0, 0, "mlp_only_layers"}, "expected a list of layer indices, got " + list.dump());
        for (const auto& v : list) {
          if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= c.layers)
            throw Error(SourceLocation{file, 0, 0, "mlp_only_layers"},
                        "entry " + v.dump() + " is not a layer index (0.." + std::to_string(c.layers - 1) + ")");
          mlp_only.insert(static_cast<int>(v.get<int64_t>()));
        }
      }
      std::vector<int> pattern(static_cast<size_t>(std::max(0, c.layers)));
      for (int l = 0; l < c.layers; ++l) pattern[static_cast<size_t>(l)] = !mlp_only.count(l) && (l + 1) % step == 0;
      set_layer_pattern(m, pattern);
      c.moe = m;
    } else if (type == "deepseek_v2" || type == "deepseek_v3") {
      MoEConfig m;
      m.num_experts = r.i("n_routed_experts");
      m.topk = r.i("num_experts_per_tok");
      m.expert_ffn_hidden = r.i("moe_intermediate_size");
      // Transformers' defaults where a key is left out: DeepseekV3Config 1 shared expert, 3 dense
      // layers first, q_lora_rank 1536; DeepseekV2Config 2 shared experts, 0, 1536 (a trimmed V3
      // config had read 709B / 42.5B instead of 671B / 37B; V2's shared experts had defaulted to
      // none, 15.3B for V2-Lite's 15.7B, review of 2026-12-05). A key given as null means none
      // (V2-Lite's q_lora_rank: no query compression).
      const bool v3 = type == "deepseek_v3";
      const bool shared_null = j.contains("n_shared_experts") && j["n_shared_experts"].is_null();
      m.shared_experts = r.i("n_shared_experts", shared_null ? 0 : v3 ? 1 : 2);
      // Transformers (DeepseekV3DecoderLayer): layer i is MoE when i >= first_k_dense_replace and
      // i % moe_layer_freq == 0.
      const int first_dense = r.i("first_k_dense_replace", v3 ? 3 : 0);
      const int freq = r.i("moe_layer_freq", 1);
      if (first_dense < 0 || first_dense > c.layers)
        throw Error(SourceLocation{file, 0, 0, "first_k_dense_replace"},
                    "must be in 0.." + std::to_string(c.layers) + " (the layers), got " + std::to_string(first_dense));
      if (freq < 1)
        throw Error(SourceLocation{file, 0, 0, "moe_layer_freq"}, "every k-th layer is MoE: k must be 1 or more, got " + std::to_string(freq));
      std::vector<int> pattern(static_cast<size_t>(std::max(0, c.layers)));
      for (int l = 0; l < c.layers; ++l) pattern[static_cast<size_t>(l)] = l >= first_dense && l % freq == 0;
      set_layer_pattern(m, pattern);
      // The multi-token-prediction modules trained beside the model (V3: 1).
      c.mtp_layers = r.i("num_nextn_predict_layers", 0);
      // Group-limited routing: DeepSeek-V3's router (Transformers' DeepseekV3TopkRouter) picks the
      // topk_group best of n_group expert groups, then its experts within them (defaults 8 and 4);
      // V2's only under topk_method group_limited_greedy. 1 group is no limit.
      const std::string method = r.s("topk_method", v3 ? "noaux_tc" : "greedy");
      if (v3 || method == "group_limited_greedy") {
        const int groups = r.i("n_group", v3 ? 8 : 1), per_token = r.i("topk_group", v3 ? 4 : 1);
        // Checked at the config's keys (the model's checks named moe.router_groups; a topk_group
        // beyond n_group had dropped the group limit silently; review of 2026-12-05).
        if (groups < 1 || m.num_experts % groups != 0)
          throw Error(SourceLocation{file, 0, 0, "n_group"}, "must divide the " + std::to_string(m.num_experts) + " routed experts (n_routed_experts) into equal groups, got " +
                                                                 std::to_string(groups));
        if (per_token < 1 || per_token > groups)
          throw Error(SourceLocation{file, 0, 0, "topk_group"}, "must be from 1 to n_group (" + std::to_string(groups) + "), got " + std::to_string(per_token));
        if (groups > 1 && static_cast<int64_t>(per_token) * (m.num_experts / groups) < m.topk)
          throw Error(SourceLocation{file, 0, 0, "topk_group"},
                      std::to_string(per_token) + " groups of " + std::to_string(m.num_experts / groups) + " experts hold fewer than the " +
                          std::to_string(m.topk) + " experts each token picks (num_experts_per_tok)");
        if (groups > 1 && per_token < groups) {
          m.router_groups = groups;
          m.router_groups_per_token = per_token;
        }
      } else {
        r.used.insert("n_group");  // read and without effect under greedy routing
        r.used.insert("topk_group");
      }
      c.moe = m;
      MLAConfig a;
      a.q_lora_rank = r.i("q_lora_rank", j.contains("q_lora_rank") && j["q_lora_rank"].is_null() ? 0 : 1536);
      a.kv_lora_rank = r.i("kv_lora_rank");
      a.qk_nope_head_dim = r.i("qk_nope_head_dim");
      a.qk_rope_head_dim = r.i("qk_rope_head_dim");
      a.v_head_dim = r.i("v_head_dim");
      c.mla = a;
      c.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
    }
  }
  // The sizes that took the class's defaults, said where the model is shown and in the results'
  // note (ignored_keys_note): the config is read as Transformers builds it, and a user sees which
  // numbers were not the file's.
  if (!r.defaulted.empty()) {
    std::string list;
    for (const auto& d : r.defaulted) list += (list.empty() ? "" : ", ") + d;
    c.source += std::string(kDefaultsMark) + sizes.config_class + ": " + list + ")";
  }
  // Transformers' default head_dim is hidden / heads; where that is not whole, the config must
  // state it, as a YAML entry must (8100 / 64 was floored to 126).
  if (c.head_dim == 0 && c.heads > 0) {
    if (c.hidden % c.heads != 0)
      throw Error(SourceLocation{file, 0, 0, "head_dim"},
                  "hidden_size " + std::to_string(c.hidden) + " is not a multiple of num_attention_heads " + std::to_string(c.heads) +
                      ", and no head_dim is given",
                  "state head_dim in the config");
    c.head_dim = c.hidden / c.heads;
  }
  // The checkpoint's quantisation (the weights' stored format): gpt-oss's MXFP4 and DeepSeek-V3's
  // FP8 had been costed in bf16 by `infer` without a word (2026-12-03 review).
  if (r.has("quantization_config")) {
    r.used.insert("quantization_config");
    const nlohmann::json& q = j["quantization_config"];
    // The keys read here are checked as the top-level ones are (review of 2026-12-07): a value of
    // the wrong type ("bits": "4"), a quant_method no engine knows ("fp88") and a near miss of a
    // key read ("load_in_4bitt") are errors at the key. They had all read as no format Sextant
    // maps, the weights costed in bf16 with a note: an AWQ 4-bit Llama-3-8B held 16.06 GB for
    // 5.73 GB. Keys not read (group_size, desc_act, zero_point, ...) are ignored, as at the top.
    const std::string qk = "quantization_config";
    if (!q.is_object())
      throw Error(SourceLocation{file, 0, 0, qk}, "expected an object (quant_method, bits, ...) or null, got " + q.dump());
    {
      const auto wrong = [&](const std::string& path, const std::string& expected, const nlohmann::json& v) {
        return Error(SourceLocation{file, 0, 0, qk + "." + path}, "expected " + expected + ", got " + v.dump());
      };
      const auto given = [&](const nlohmann::json& o, const char* k) { return o.is_object() && o.contains(k) && !o[k].is_null(); };
      const auto str = [&](const char* k) {
        if (!given(q, k)) return std::string();
        if (!q[k].is_string()) throw wrong(k, "a string", q[k]);
        return q[k].get<std::string>();
      };
      // A bit width: a whole number from 1 to 64 (4.0 is 4, as vLLM compares it).
      const auto width = [&](const nlohmann::json& v, const std::string& path) {
        if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() != std::floor(v.get<double>()))
          throw wrong(path, "a whole number of bits", v);
        if (v.get<double>() < 1 || v.get<double>() > 64)
          throw Error(SourceLocation{file, 0, 0, qk + "." + path}, "must be a number of bits from 1 to 64, got " + v.dump());
        return static_cast<int>(v.get<double>());
      };
      const auto flag = [&](const char* k) {
        if (!given(q, k)) return false;
        if (!q[k].is_boolean()) throw wrong(k, "true or false", q[k]);
        return q[k].get<bool>();
      };
      std::string method = str("quant_method");
      for (auto& ch : method) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      // The methods mapped to a weight format, and the others Transformers (QuantizationMethod)
      // and vLLM (QUANTIZATION_METHODS) know: those are named in a note and costed in bf16.
      static const std::vector<std::string> kMapped = {"fp8", "fbgemm_fp8", "modelopt", "mxfp4", "awq", "gptq", "compressed-tensors",
                                                       "bitsandbytes"};
      static const std::vector<std::string> kKnown = {
          "aqlm", "vptq", "quanto", "eetq", "higgs", "hqq", "torchao", "bitnet", "spqr", "quark", "fp_quant", "auto-round",
          "metal", "fouroversix", "sinq", "modelopt_fp4", "nvfp4", "gptq_marlin", "gptq_marlin_24", "awq_marlin", "marlin",
          "gguf", "qqq", "experts_int8", "moe_wna16", "ptpc_fp8", "deepspeedfp", "tpu_int8", "ipex", "inc", "petit_nvfp4",
          "rtn", "bitblas", "gptq_bitblas", "squeezellm", "neuron_quant"};
      // A method on neither list is named in the note with the nearest listed one, and costed in
      // bf16 as a known unmapped one: the lists trail the libraries (mxfp8, auto-round's
      // "intel/auto-round" were refused as unknown, "did you mean 'mxfp4'?", by the first version
      // of this check; review of 2026-12-07), so an unlisted name is no proof of a typo.
      std::string unlisted;
      if (!method.empty() && std::find(kMapped.begin(), kMapped.end(), method) == kMapped.end() &&
          std::find(kKnown.begin(), kKnown.end(), method) == kKnown.end()) {
        std::vector<std::string> all = kMapped;
        all.insert(all.end(), kKnown.begin(), kKnown.end());
        const std::string near = closest_match(method, all);
        unlisted = " (a method not on Sextant's lists" + (near.empty() ? std::string() : "; the nearest listed is '" + near + "'") + ")";
      }
      // The keys read for this method: a key of the file within a near miss of one it does not
      // write is that key written wrong (its default would be used), as at the top level.
      std::vector<std::string> read = {"quant_method"};
      if (method == "awq") read.insert(read.end(), {"bits", "w_bit"});
      if (method == "gptq") read.push_back("bits");
      if (method == "modelopt") read.insert(read.end(), {"quant_algo", "quantization"});
      if (method == "compressed-tensors") read.push_back("config_groups");
      if (method == "bitsandbytes") read.insert(read.end(), {"load_in_4bit", "load_in_8bit", "_load_in_4bit", "_load_in_8bit", "bnb_4bit_quant_type"});
      // AutoFP8's ignored_layers, which vLLM's Fp8Config reads first, is one more name of the list
      // (it had been refused as a near miss of 'ignore'; review of 2026-12-07).
      if (c.moe) read.insert(read.end(), {"modules_to_not_convert", "ignore", "exclude_modules", "ignored_layers"});
      for (const auto& [k, v] : q.items()) {
        if (std::find(read.begin(), read.end(), k) != read.end()) continue;
        for (const auto& a : read)
          if (!q.contains(a) && a[0] != '_' && near_miss_of(k, a))
            throw Error(SourceLocation{file, 0, 0, qk + "." + k},
                        "unknown key for quant_method '" + (method.empty() ? std::string("(none)") : method) + "': a near miss of '" + a +
                            "', which it reads (the checkpoint's format would be missed)",
                        "did you mean '" + a + "'?");
      }
      const auto bits_of = [&](const char* k) { return given(q, k) ? width(q[k], k) : 0; };
      const int bits = given(q, "bits") ? bits_of("bits") : bits_of("w_bit");
      std::string algo = str("quant_algo");
      if (algo.empty() && given(q, "quantization")) {
        if (!q["quantization"].is_object()) throw wrong("quantization", "an object (quant_algo, exclude_modules, ...)", q["quantization"]);
        if (given(q["quantization"], "quant_algo")) {
          if (!q["quantization"]["quant_algo"].is_string()) throw wrong("quantization.quant_algo", "a string", q["quantization"]["quant_algo"]);
          algo = q["quantization"]["quant_algo"].get<std::string>();
        }
      }
      for (auto& ch : algo) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      c.checkpoint_quantization = method.empty() ? "unnamed" : method;
      if (!algo.empty()) c.checkpoint_quantization += " " + algo;
      else if (bits > 0) c.checkpoint_quantization += " " + std::to_string(bits) + "-bit";
      c.checkpoint_quantization += unlisted;
      if (method == "fp8" || (method == "modelopt" && algo.rfind("FP8", 0) == 0) || method == "fbgemm_fp8") c.checkpoint_weight_format = "fp8";
      else if (method == "mxfp4") c.checkpoint_weight_format = "mxfp4";
      else if (method == "modelopt" && algo.find("FP4") != std::string::npos) c.checkpoint_weight_format = "fp4";
      else if ((method == "awq" || method == "gptq") && bits == 4) c.checkpoint_weight_format = "int4";
      // The common schemes that had been costed in bf16 with a note (review of 2026-12-05). GPTQ
      // 8-bit: int8 weights (W8A16). llm-compressor's compressed-tensors: the weights' num_bits and
      // type in config_groups (RedHatAI's FP8 checkpoints: 8-bit float), one scheme for all groups.
      // bitsandbytes: load_in_8bit is int8 (LLM.int8()); load_in_4bit (NF4 or its FP4) is weight-only
      // 4-bit dequantised to 16-bit for the product, as int4 is costed (4.16 bits a weight; NF4
      // stores 4.13 with bnb_4bit_use_double_quant, 4.5 without: 64-weight blocks, fp32 scales).
      else if (method == "gptq" && bits == 8) c.checkpoint_weight_format = "int8";
      else if (method == "compressed-tensors") {
        // (type, num_bits, group_size) of each group's weights; group_size 0 where not a number.
        std::set<std::tuple<std::string, int, int>> schemes;
        if (given(q, "config_groups") && !q["config_groups"].is_object())
          throw wrong("config_groups", "an object of groups ({\"group_0\": {\"weights\": ...}})", q["config_groups"]);
        if (given(q, "config_groups"))
          for (const auto& [name, g] : q["config_groups"].items()) {
            const std::string at = "config_groups." + name + ".weights";
            const nlohmann::json* w = g.is_object() && g.contains("weights") && g["weights"].is_object() ? &g["weights"] : nullptr;
            // A weights scheme's values of the wrong type are errors at them (review of 2026-12-07).
            if (w && given(*w, "num_bits")) (void)width((*w)["num_bits"], at + ".num_bits");
            if (w && given(*w, "type") && !(*w)["type"].is_string()) throw wrong(at + ".type", "a string (int, float)", (*w)["type"]);
            if (w && given(*w, "group_size") && !(*w)["group_size"].is_number_integer())
              throw wrong(at + ".group_size", "an integer or null", (*w)["group_size"]);
            const bool ok = w && given(*w, "num_bits") && given(*w, "type");
            const int group = w && given(*w, "group_size")
                                  ? static_cast<int>(std::clamp<int64_t>((*w)["group_size"].get<int64_t>(), INT32_MIN, INT32_MAX))
                                  : 0;
            schemes.insert(ok ? std::tuple{(*w)["type"].get<std::string>(), width((*w)["num_bits"], at + ".num_bits"), group}
                              : std::tuple{std::string("?"), 0, 0});
          }
        if (schemes.size() == 1 && std::get<0>(*schemes.begin()) != "?") {
          const auto& [wtype, wbits, group] = *schemes.begin();
          c.checkpoint_quantization += " " + std::to_string(wbits) + "-bit " + wtype;
          if (wtype == "float" && wbits == 8) c.checkpoint_weight_format = "fp8";
          else if (wtype == "int" && wbits == 8) c.checkpoint_weight_format = "int8";
          else if (wtype == "int" && wbits == 4) c.checkpoint_weight_format = "int4";
          else if (wtype == "float" && wbits == 4 && group == 16) c.checkpoint_weight_format = "fp4";  // NVFP4: 16 values to an FP8 scale
        }
      } else if (method == "bitsandbytes") {
        // Transformers writes each flag twice (load_in_4bit and _load_in_4bit): either says it.
        const bool four = flag("load_in_4bit") || flag("_load_in_4bit"), eight = flag("load_in_8bit") || flag("_load_in_8bit");
        if (four) {
          std::string kind = str("bnb_4bit_quant_type");
          for (auto& ch : kind) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
          c.checkpoint_quantization += " 4-bit " + (kind.empty() ? std::string("FP4") : kind);  // BitsAndBytesConfig's default: fp4
          c.checkpoint_weight_format = "int4";
        } else if (eight) {
          c.checkpoint_quantization += " 8-bit";
          c.checkpoint_weight_format = "int8";
        }
      }
      // Modules left unquantised: where the attention is among them (gpt-oss: self_attn, router,
      // embed_tokens, lm_head), only the MoE experts are quantised.
      // The list has three names: Transformers' modules_to_not_convert, ModelOpt's and
      // llm-compressor's ignore, ModelOpt's hf_quant_config exclude_modules (an NVFP4 DeepSeek
      // checkpoint lists its self_attn there: its attention had been costed in FP4, 12% fast per
      // output token; review of 2026-12-05).
      if (c.moe)
        for (const char* key : {"modules_to_not_convert", "ignore", "exclude_modules", "ignored_layers"}) {
          const nlohmann::json* list = q.contains(key) ? &q[key] : nullptr;
          std::string path = key;
          if (!list && q.contains("quantization") && q["quantization"].is_object() && q["quantization"].contains(key)) {
            list = &q["quantization"][key];
            path = std::string("quantization.") + key;
          }
          if (!list || list->is_null()) continue;
          if (!list->is_array()) throw wrong(path, "a list of module names or null", *list);
          for (const auto& mod : *list)
            if (mod.is_string() && mod.get<std::string>().find("attn") != std::string::npos) c.checkpoint_quantized_experts_only = true;
        }
    }
  }
  // Dropout probabilities, under any model_type's names: a model trained without dropout (MPT,
  // BLOOM, Pythia: all 0.0) saves no masks and runs no dropout kernels; GELU models had been given
  // them whatever the config said (2026-12-04 review).
  // A key of the type's Transformers config class left out (or null) takes the class's default, as
  // every key: before 2026-12-06 a Pythia config, which writes neither of GPTNeoXConfig's
  // attention_dropout and hidden_dropout (0.0), was "not stated" and given dropout as a GELU model
  // (review). The defaults (configuration_*.py): GPT2Config resid_pdrop, embd_pdrop and attn_pdrop
  // 0.1; GPTNeoXConfig attention_dropout and hidden_dropout 0.0; Phi3Config resid_pdrop, embd_pdrop
  // and attention_dropout 0.0; every other supported type's class attention_dropout 0.0, its only
  // dropout (LlamaConfig, MistralConfig, MixtralConfig, the Qwen2/Qwen3 and their MoE configs,
  // DeepseekV2Config, DeepseekV3Config, GemmaConfig, Gemma2Config, Gemma3TextConfig, NemotronConfig,
  // OlmoConfig, Olmo2Config, GraniteConfig, GptOssConfig). The heads' dropouts (GPT2Config's
  // summary_first_dropout, GPTNeoXConfig's classifier_dropout) are not the language model's.
  // Qwen-1's QWenConfig (the checkpoint's code) names its own: attn_dropout_prob and
  // emb_dropout_prob, 0.0 in every release.
  {
    using Defaults = std::vector<std::pair<const char*, double>>;
    static const std::map<std::string, Defaults> class_defaults = {
        {"gpt2", {{"resid_pdrop", 0.1}, {"embd_pdrop", 0.1}, {"attn_pdrop", 0.1}}},
        {"gpt_neox", {{"attention_dropout", 0.0}, {"hidden_dropout", 0.0}}},
        {"phi3", {{"resid_pdrop", 0.0}, {"embd_pdrop", 0.0}, {"attention_dropout", 0.0}}},
        {"qwen", {{"attn_dropout_prob", 0.0}, {"emb_dropout_prob", 0.0}}}};
    const auto known = class_defaults.find(type);
    const Defaults defaults = known != class_defaults.end() ? known->second : Defaults{{"attention_dropout", 0.0}};
    bool stated = false, on = false;
    for (const auto& [k, p] : defaults)
      if (!r.has(k)) {
        stated = true;
        if (p > 0) on = true;
      }
    std::vector<const char*> keys = {"attention_dropout", "hidden_dropout", "attn_pdrop", "resid_pdrop", "embd_pdrop", "emb_pdrop", "dropout",
                                     "hidden_dropout_prob", "attention_probs_dropout_prob", "activation_dropout"};
    if (type == "qwen") keys.insert(keys.end(), {"attn_dropout_prob", "emb_dropout_prob"});
    for (const char* k : keys)
      if (j.contains(k) && j[k].is_number()) {
        r.used.insert(k);
        stated = true;
        const double p = j[k].get<double>();
        // A probability: -0.5 had read as no dropout and 1.5 as dropout (torch refuses both).
        if (!(p >= 0 && p <= 1))
          throw Error(SourceLocation{file, 0, 0, k}, "a dropout probability must lie in [0, 1], got " + j[k].dump());
        if (p > 0) on = true;
      } else if (j.contains(k) && !j[k].is_null()) {
        // "0.1" as a string had been listed as ignored and the dropout left unstated (2026-12-05 review).
        throw Error(SourceLocation{file, 0, 0, k}, "expected a dropout probability (a number), got " + j[k].dump());
      }
    if (stated) c.dropout = on ? 1 : 0;
  }
  // rope_scaling (Transformers 5: rope_parameters) is an object or null in every Transformers
  // config: "yes" had passed without a word. It sets the context window of a rotary model
  // (apply_rope_scaling); GPT-2's learned positions have none to scale.
  for (const char* k : {"rope_scaling", "rope_parameters"})
    if (j.contains(k) && !j[k].is_null() && !j[k].is_object())
      throw Error(SourceLocation{file, 0, 0, k}, "expected an object (rope_type, factor, ...) or null, got " + j[k].dump());
  if (type != "gpt2") apply_rope_scaling(c, r, type);
  // A model routed in every layer has no dense FFN width (the catalog's entries say 0): Mixtral's
  // intermediate_size is its experts' width, read above.
  if (c.all_layers_moe()) c.ffn_hidden = 0;
  // A key of another architecture that changes the model where it is on (foreign_keys) is refused
  // under a type that does not read it; where it is off (false, null, the KV heads read) it is
  // ignored as any other (Llama configs carry "pretraining_tp", "mlp_bias": false).
  for (const ForeignKey& f : foreign_keys()) {
    if (r.used.count(f.key) || f.owners.count(type) || !j.contains(f.key) || j[f.key].is_null()) continue;
    const nlohmann::json& v = j[f.key];
    const bool on = v.is_boolean() ? v.get<bool>() : v.is_number() ? v.get<double>() != 0 : !v.is_null();
    bool changes = false;
    switch (f.when) {
      case ForeignKey::kTrue: changes = on; break;
      case ForeignKey::kNotNull: changes = true; break;
      // Compared as a number: 8.0 is the 8 heads the model builds (it had been refused as "8.0,
      // ... it builds 8", 2026-12-06 review).
      case ForeignKey::kKvHeads: changes = !v.is_number() || v.get<double>() != static_cast<double>(c.kv_heads); break;
      case ForeignKey::kQkNorm: changes = on && !c.qk_norm; break;
      case ForeignKey::kMultiQuery: changes = on && c.kv_heads != 1; break;
    }
    if (!changes) continue;
    const std::string effect = f.when == ForeignKey::kKvHeads ? " does not read it (it builds " + std::to_string(c.kv_heads) +
                                                                    " key/value heads)"
                                                              : " does not read it and would build the model without it";
    throw Error(SourceLocation{file, 0, 0, f.key},
                "is " + v.dump() + ", a key of another architecture (" + f.what + ") read by " + f.readers + ": model_type " + type + effect,
                std::string("give the model's own model_type, or remove the key if it does not describe this model") +
                    (f.owners.empty() ? "; an architecture no supported type has is described as a catalog YAML entry (docs/catalog.md, Models)"
                                      : ""));
  }
  // A key this mapping does not read is ignored, unless it is a near miss of a key it reads
  // (num_key_value_head for num_key_value_heads, first_k_dense for first_k_dense_replace): the
  // default would then replace the value the user meant, silently.
  std::set<std::string> foreign_names;
  for (const ForeignKey& f : foreign_keys()) foreign_names.insert(f.key);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (r.used.count(k)) continue;
    // Another architecture's key left off (null, false, the KV heads read) was weighed above and
    // is ignored as docs/catalog.md says: a null v_head_dim had still been refused here as a near
    // miss of head_dim (2026-12-06 review).
    if (foreign_names.count(k)) {
      c.ignored_keys.push_back(k);
      continue;
    }
    std::set<std::string> candidates = r.used;
    candidates.insert(r.may_read.begin(), r.may_read.end());
    // A key the mapping knows but did not apply (a window with use_sliding_window false) is
    // ignored, not the near miss of a longer one (sliding_window of sliding_window_pattern).
    if (r.may_read.count(k)) candidates.clear();
    for (const auto& a : candidates)
      if (!j.contains(a) && near_miss_of(k, a)) throw near_miss_error(file, type, k, a);
    c.ignored_keys.push_back(k);
  }
  for (const auto& k : outer_ignored) c.ignored_keys.push_back(k);
  // Routed experts in a config read as dense: an error, not an ignored key (OLMoE written as
  // olmo had read as a 0.6B dense model; review of 2026-12-05).
  if (!c.moe)
    if (const auto [k, n] = experts_in(j); !k.empty())
      throw Error(SourceLocation{file, 0, 0, k}, "model_type '" + type + "' is a dense architecture, but the config has " + k + " " +
                                                     std::to_string(n) + " (routed experts)",
                  "give the model's own model_type; the supported MoE types: mixtral, qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3, gpt_oss");
  try {
    c.validate(SourceLocation{file});
  } catch (const Error& e) {
    // Name the config.json key the user wrote, not the model field it maps to.
    static const std::map<std::string, std::vector<std::string>> hf_keys = {
        {"layers", {"num_hidden_layers", "n_layer"}},
        {"hidden", {"hidden_size", "n_embd"}},
        {"heads", {"num_attention_heads", "n_head"}},
        {"kv_heads", {"num_key_value_heads", "num_attention_heads", "n_head"}},
        {"head_dim", {"head_dim", "hidden_size", "n_embd"}},  // derived from hidden_size where head_dim is not given
        {"vocab", {"vocab_size"}},
        {"ffn_hidden", {"intermediate_size", "n_inner"}},
        {"moe.num_experts", {"num_local_experts", "num_experts", "n_routed_experts"}},
        {"moe.topk", {"num_experts_per_tok"}},
        {"moe.expert_ffn_hidden", {"moe_intermediate_size", "intermediate_size"}},
        {"moe.dense_layers", {"first_k_dense_replace"}},
        {"moe.shared_experts", {"n_shared_experts", "shared_expert_intermediate_size"}},
        {"moe.layer_freq", {"moe_layer_freq", "decoder_sparse_step"}},
        {"mla.q_lora_rank", {"q_lora_rank"}},
        {"mla.kv_lora_rank", {"kv_lora_rank"}},
        {"mla.qk_nope_head_dim", {"qk_nope_head_dim"}},
        {"mla.qk_rope_head_dim", {"qk_rope_head_dim"}},
        {"mla.v_head_dim", {"v_head_dim"}},
        {"max_seq_len", {"max_position_embeddings", "n_positions"}},
        {"sliding_window", {"sliding_window"}},
        {"mtp_layers", {"num_nextn_predict_layers"}},
        {"moe.router_groups", {"n_group"}},
        {"moe.router_groups_per_token", {"topk_group"}},
        {"moe.layer_pattern", {"first_k_dense_replace", "mlp_only_layers", "decoder_sparse_step", "moe_layer_freq"}},
    };
    const auto it = hf_keys.find(e.where().key);
    if (it == hf_keys.end()) throw;
    // A YAML remedy does not apply to a config.json: where no layer is routed, say so in its terms.
    const std::string hint = e.where().key == "moe.layer_pattern"
                                 ? "no layer is routed with these keys (Transformers would build a dense model): route some layers, or give a "
                                   "dense model_type"
                                 : e.hint();
    const std::string msg = e.where().key == "moe.layer_pattern" ? "model '" + c.id + "': no layer is routed (every layer dense)" : e.message();
    for (const auto& k : it->second)
      if (j.contains(k)) throw Error(SourceLocation{file, 0, 0, k}, msg, hint);
    throw Error(SourceLocation{file, 0, 0, it->second.front()}, msg, hint);
  }
  return c;
}
}  // namespace

std::string ignored_keys_note(const ModelConfig& m) {
  // Transformers' keys that never change a step's cost are left out of the note.
  const auto& kNoEffect = hf_keys_without_effect();
  std::string keys;
  for (const auto& k : m.ignored_keys)
    if (!kNoEffect.count(k)) keys += (keys.empty() ? "" : ", ") + k;
  std::string note = keys.empty() ? std::string() : "config.json keys this model does not read (check none is a misspelt key it does read): " + keys;
  const bool wrapped = m.source.find(kWrapperMark) != std::string::npos;
  // Sizes the config left out, read as the class's defaults (map_hf_keys): said before the unread
  // keys, which stay the note's end.
  if (const size_t at = m.source.find(kDefaultsMark); at != std::string::npos) {
    const size_t from = at + std::strlen(kDefaultsMark), to = m.source.find(')', from);
    const std::string text = m.source.substr(from, to == std::string::npos ? to : to - from);  // "CLASS: key value, ..."
    const size_t colon = text.find(": ");
    note = std::string("the sizes ") + (wrapped ? "text_config" : "config.json") + " leaves out take the defaults of Transformers' " +
           text.substr(0, colon) + ", as Transformers builds the model (check they are this model's)" +
           (colon == std::string::npos ? std::string() : text.substr(colon)) + (note.empty() ? std::string() : "; " + note);
  }
  // A multimodal config: only its language model is costed (the vision tower's cost had gone
  // unsaid, its keys listed as any other; review of 2026-12-05).
  if (const size_t at = m.source.find(kWrapperMark); at != std::string::npos) {
    const size_t from = at + std::strlen(kWrapperMark), to = m.source.find(')', from);
    note = "the language model is read from text_config of this " + m.source.substr(from, to == std::string::npos ? to : to - from) +
           " config: its vision tower and projector are not modelled, and its keys outside text_config are ignored" +
           (note.empty() ? std::string() : "; " + note);
  }
  return note;
}

}  // namespace sextant
