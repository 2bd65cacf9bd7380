#pragma once
// Registries of implementations chosen by name (one implementation per file; docs/architecture.md).
//
// Two shapes, one contract:
//  - InstanceRegistry<T>: stateless implementations built once (pipeline schedules, collective
//    algorithms, MoE dispatchers). T has `std::string name() const`.
//  - FactoryRegistry<T, Args...>: implementations built per use from their options (failure
//    distributions, checkpoint strategies): a name maps to `unique_ptr<T>(Args...)`.
// Contract of both: names are unique (registering one twice is a programming error and throws
// std::logic_error); lookup of an unknown name throws sextant::Error located where the caller
// says (file, line, key), naming the family and listing the valid names, the closest first;
// names() lists the names in registration order for instances (search enumerates them in that
// order) and sorted for factories (reports list them alphabetically). A registry is built once and then only read,
// so sharing one between threads needs no lock; none is global (each owner builds its own).
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

namespace sextant {

template <class T>
class InstanceRegistry {
 public:
  // `key` locates the choice in the input (e.g. "parallel.schedule"); `noun` names the family
  // in messages (e.g. "pipeline schedule").
  InstanceRegistry(std::string key, std::string noun) : key_(std::move(key)), noun_(std::move(noun)) {}

  void add(std::unique_ptr<T> item) {
    if (find(item->name())) throw std::logic_error(noun_ + " '" + item->name() + "' registered twice");
    items_.push_back(std::move(item));
  }
  const T* find(const std::string& name) const {
    for (const auto& it : items_)
      if (it->name() == name) return it.get();
    return nullptr;
  }
  const T& get(const std::string& name) const {
    if (const T* it = find(name)) return *it;
    throw Error(SourceLocation{"", 0, 0, key_}, "unknown " + noun_ + " '" + name + "'", valid_choices_hint(name, names()));
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(items_.size());
    for (const auto& it : items_) out.push_back(it->name());
    return out;
  }
  const std::vector<std::unique_ptr<T>>& items() const { return items_; }

 private:
  std::string key_, noun_;
  std::vector<std::unique_ptr<T>> items_;
};

template <class T, class... Args>
class FactoryRegistry {
 public:
  using Factory = std::function<std::unique_ptr<T>(Args...)>;

  explicit FactoryRegistry(std::string noun) : noun_(std::move(noun)) {}

  void add(const std::string& name, Factory f) {
    if (!entries_.emplace(name, std::move(f)).second) throw std::logic_error(noun_ + " '" + name + "' registered twice");
  }
  bool has(const std::string& name) const { return entries_.count(name) > 0; }
  std::unique_ptr<T> create(const std::string& name, const SourceLocation& where, Args... args) const {
    const auto it = entries_.find(name);
    if (it == entries_.end()) throw Error(where, "unknown " + noun_ + " '" + name + "'", valid_choices_hint(name, names()));
    return it->second(std::forward<Args>(args)...);
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const auto& e : entries_) out.push_back(e.first);
    return out;
  }

 private:
  std::string noun_;
  std::map<std::string, Factory> entries_;
};

}  // namespace sextant
