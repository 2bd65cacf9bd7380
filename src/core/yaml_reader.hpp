#pragma once
// Strict YAML reading. A YamlMap wraps one mapping node of a file; every key read is marked,
// and finish() throws an Error for any key never read, naming file, line and key, and listing
// the valid keys with the closest match. Type errors name the expected type.
//
// Sourced numbers: catalog values are written either as a plain number (only where the entry
// allows unsourced values) or as {value: X, source: ID-or-text} / {value: X, estimated: basis}.
#include <yaml-cpp/yaml.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace sextant {

struct Sourced {
  double value = 0;
  std::string source;     // citation id or text
  std::string estimated;  // non-empty when the value is an estimate: its basis
  bool known = false;     // false when the field was absent or `unknown`
};

// Parses one YAML document: a syntax error names the file (`name`), line and column; a text
// holding more than one document (a second after `---`, which would be ignored) is an error.
YAML::Node parse_yaml_document(const std::string& text, const std::string& name);

class YamlMap {
 public:
  YamlMap(YAML::Node node, std::string file, std::string path = {});

  // Parse a whole file / string; the root must be a mapping.
  static YamlMap load_file(const std::string& file);
  static YamlMap load_string(const std::string& text, const std::string& name);

  bool has(const std::string& key) const;
  SourceLocation loc(const std::string& key = {}) const;  // location of key (or of the map)
  // Location of a dotted key below this map (parallel.overlap.tp_comm): the deepest mapping of the
  // path that exists, its key's own line where it was written. Reads nothing.
  SourceLocation locate(const std::string& dotted) const;
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  std::string key_path(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  // Required accessors throw when the key is missing; optional ones return the default.
  double f64(const std::string& key) const;
  double f64(const std::string& key, double dflt) const;
  int64_t i64(const std::string& key) const;
  int64_t i64(const std::string& key, int64_t dflt) const;
  // The same, for a field held in an int: a value beyond its range is an error, never truncated.
  int i32(const std::string& key) const;
  int i32(const std::string& key, int dflt) const;
  bool boolean(const std::string& key) const;
  bool boolean(const std::string& key, bool dflt) const;
  std::string str(const std::string& key) const;
  std::string str(const std::string& key, const std::string& dflt) const;
  std::string choice(const std::string& key, const std::vector<std::string>& valid) const;
  std::string choice(const std::string& key, const std::vector<std::string>& valid, const std::string& dflt) const;
  std::vector<std::string> str_list(const std::string& key) const;
  std::vector<int64_t> i64_list(const std::string& key) const;
  Sourced sourced(const std::string& key) const;  // absent -> known=false

  YamlMap map(const std::string& key) const;                 // required sub-mapping
  std::optional<YamlMap> opt_map(const std::string& key) const;
  std::vector<YamlMap> map_list(const std::string& key) const;  // sequence of mappings
  std::vector<std::string> keys() const;  // all keys in file order
  YAML::Node raw(const std::string& key) const;  // marks the key used

  // Throws on the first key that was never read. The valid keys it lists are every key read or
  // asked about (has()) so far.
  void finish() const;
  // Every key read or asked about (has()) so far: the keys this map's reader knows.
  std::vector<std::string> known_keys() const;

  // Error at key with message and hint. A key of this map that is a likely typo of a key asked
  // about but absent (`duration_dayz` for `duration_days`) is the cause more often than not: it is
  // reported first, as finish() would report it.
  [[noreturn]] void fail(const std::string& key, const std::string& message, const std::string& hint = {}) const;
  // An error when the key is written without a value (`parallel:`): for optional keys a reader
  // takes as a whole (raw) rather than through a typed getter.
  void reject_blank(const std::string& key) const;
  // Throws the near-miss error of a key of this map that is likely a typo of one of `expected`
  // (or of a key asked about so far) and is absent: for an error raised elsewhere (a catalog
  // lookup) that a misspelt key may have caused (`hardwre:` left an inline accelerator unknown).
  void check_typos(const std::vector<std::string>& expected) const;

 private:
  YAML::Node node_for(const std::string& key) const;
  [[noreturn]] void unknown_key(const YAML::Node& key_node, const std::string& meant = {}) const;
  void throw_if_typo() const;
  YAML::Node node_;
  std::string file_;
  std::string path_;
  std::shared_ptr<std::set<std::string>> used_;
  std::shared_ptr<std::set<std::string>> asked_;  // keys has() was asked about
};

// `--set KEY=VALUE` on a parsed document: KEY is a dotted path (mappings are created where absent),
// VALUE is parsed as YAML (a plain string when it is not valid YAML). An empty path component or a
// path through a non-mapping is an error located at `--set` and the key.
void apply_yaml_override(YAML::Node root, const std::string& key, const std::string& value);
// As above, for an override of the file `file`: an error that needed the file's content (an index
// beyond its list, a key under a scalar) names "FILE (--set)" as the other --set errors after the
// read do (it said a bare "--set:").
void apply_yaml_override(YAML::Node root, const std::string& key, const std::string& value, const std::string& file);

// Whether a text is empty or nothing but whitespace: a provenance (a source, a basis, a citation's
// text) of such a text is none.
bool is_blank(const std::string& text);

// In a file that lists citations (sources: {ID: text}), a source written as one word that is none of
// them is a misspelt id (`h100-wpp` for `h100-wp`), not free text; so is the word before the colon
// of "ID: arithmetic" (a colon and a space). Throws at key naming the closest id. A URL, or a
// reference such as "arXiv:2407.21783", is free text; no citations, no check. A source that names a
// citation (whole, or before "ID: arithmetic") whose text is blank is refused at key too.
void check_citation_word(const YamlMap& m, const std::string& key, const std::string& source,
                         const std::map<std::string, std::string>& sources);

// Throws at the first key of a mapping (at any depth of root) written without a value (`restart_s:`,
// `~`, `null`): for documents where no key means "null" and a reader's optional key would otherwise
// take its default as if the key were absent. Names the key's line, or "FILE (--set)".
void reject_null_values(const YAML::Node& root, const std::string& file, const std::string& path = {});

}  // namespace sextant
