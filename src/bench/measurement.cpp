#include "bench/measurement.hpp"

#include <cstdlib>

#include "core/error.hpp"

namespace sextant::bench {

Summary Measurement::summary() const {
  if (samples.empty())
    throw Error("suite " + suite + ", case '" + name + "' (" + metric + "): no samples: no repetition was measured or stored");
  return summarize(samples);
}

const std::string& Measurement::param(const std::string& key) const {
  for (const auto& [k, v] : params)
    if (k == key) return v;
  std::vector<std::string> keys;
  for (const auto& kv : params) keys.push_back(kv.first);
  throw Error(SourceLocation{"", 0, 0, suite + "/" + name + "." + key}, "measurement has no parameter '" + key + "'",
              valid_choices_hint(key, keys));
}

bool Measurement::has_param(const std::string& key) const {
  for (const auto& kv : params)
    if (kv.first == key) return true;
  return false;
}

double Measurement::param_f64(const std::string& key) const {
  const std::string& v = param(key);
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0')
    throw Error(SourceLocation{"", 0, 0, suite + "/" + name + "." + key}, "parameter '" + v + "' is not a number");
  return d;
}

void Measurement::set_param(const std::string& key, const std::string& value) {
  for (auto& kv : params)
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  params.emplace_back(key, value);
}

}  // namespace sextant::bench
