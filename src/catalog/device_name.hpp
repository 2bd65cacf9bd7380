#pragma once
// Matching a device name as the runtime reports it (CUDA's deviceProperties name in a trace,
// nvidia-smi's name in a bench run: "NVIDIA H100 80GB HBM3") to catalog accelerators. One rule
// for the trace analysis (which entry a trace ran on) and calibrate (whether --peak-from's entry
// can be the GPU a run measured); before 2026-12-06 calibrate held a copy of it.
#include <set>
#include <string>
#include <vector>

namespace sextant {

class Catalog;
struct Accelerator;

// Lower-case runs of letters and digits ("NVIDIA H100 80GB HBM3": nvidia, h100, 80gb, hbm3).
std::set<std::string> name_tokens(const std::string& s);

// The model token of a device name's tokens ("a100" in "NVIDIA A100-SXM4-80GB"): letters and
// digits, at most 6 characters, not a memory size. Empty when there is none (then nothing matches).
std::string device_model_token(const std::set<std::string>& dev_tokens);

// Whether a catalog accelerator can be the GPU device_name names: the name's model token is among
// the entry's name and id tokens, neither states a form factor (pcie, nvl) the other does not, and
// a memory size the name states is the entry's (its id, name or memory_gib; 2026-12-07 review).
bool device_name_fits(const Accelerator& a, const std::string& device_name);

// Among the catalog accelerators device_name_fits, the one whose name or id shares the most
// tokens with device_name. Empty when none fits: a form factor or memory size the name states
// that no entry of its model has is a part the catalog lacks ("NVIDIA A100-SXM-64GB"; before
// 2026-12-07 (review) a mismatch cost 2 of the score and it was taken for a100-sxm-40gb). note
// says so when several fit equally well (the first in id order is taken).
std::string match_device(const Catalog& cat, const std::string& device_name, std::string& note);

// The catalog accelerators of device_name's model token (among their name and id tokens), fitting
// or not, in id order: for an error saying that none of them is this part. Empty without a model token.
std::vector<std::string> entries_of_model(const Catalog& cat, const std::string& device_name);

// The catalog's accelerator ids for an error about device_name (a device's name, an id, or both):
// those whose name, id or vendor share the most of its tokens (vendor, model, memory size; a
// word of 3 or more characters that begins one counts half) first, the rest in id order. valid_choices_hint
// lists 40: in id order an AMD device's error never showed mi250x or mi300x (2026-12-07 review).
std::vector<std::string> accelerator_ids_like(const Catalog& cat, const std::string& device_name);

}  // namespace sextant
