#pragma once
// Shared fixtures of the infer tests: the bundled catalog and engine data.
#include <memory>
#include <string>

#include "catalog/catalog.hpp"
#include "infer/deployment.hpp"
#include "infer/engine.hpp"

namespace sextant::infer::fixtures {

inline const Catalog& catalog() {
  static const std::shared_ptr<const Catalog> c = Catalog::load(std::string(SEXTANT_SOURCE_DIR) + "/data/catalog");
  return *c;
}
inline const InferData& infer_data() {
  static const std::shared_ptr<const InferData> d = InferData::load(std::string(SEXTANT_SOURCE_DIR) + "/data/infer");
  return *d;
}
// The spec of a deployment in 16 bits (the KV cache as the engine keeps it).
inline DeploymentSpec spec(const std::string& model, const std::string& accel, const std::string& engine = "vllm",
                           const std::string& wfmt = "bf16", int tp = 1, int ep = 1, int pp = 1) {
  DeploymentSpec s;
  s.model = model;
  s.accelerator = accel;
  s.engine = engine;
  s.weight_format = wfmt;
  s.activation_format = "bf16";
  s.kv_format = engine == "llama.cpp" ? "fp16" : "bf16";  // llama.cpp's caches are f16 / f32
  s.tp = tp;
  s.ep = ep;
  s.pp = pp;
  return s;
}
inline Deployment deployment(const std::string& model, const std::string& accel, const std::string& engine = "vllm",
                             const std::string& wfmt = "bf16", int tp = 1, int ep = 1) {
  return make_deployment(catalog(), infer_data(), spec(model, accel, engine, wfmt, tp, ep));
}

}  // namespace sextant::infer::fixtures
