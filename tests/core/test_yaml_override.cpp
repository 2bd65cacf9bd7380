// Question: does `--set KEY=VALUE` (one implementation for scenarios, goodput and infer files)
// set nested keys, create missing mappings, keep unparseable values as strings, and reject bad
// paths with an error that names `--set` and the key?
#include <gtest/gtest.h>

#include <functional>

#include "core/error.hpp"
#include "core/yaml_reader.hpp"

using namespace sextant;

TEST(YamlOverride, SetsNestedKeysAndCreatesMappings) {
  YAML::Node root = YAML::Load("parallel: {tp: 8, pp: 4}\nname: a\n");
  apply_yaml_override(root, "parallel.tp", "4");
  apply_yaml_override(root, "training.fp8_recipe", "current");
  apply_yaml_override(root, "name", "b");
  EXPECT_EQ(root["parallel"]["tp"].as<int>(), 4);
  EXPECT_EQ(root["parallel"]["pp"].as<int>(), 4);  // siblings untouched
  EXPECT_EQ(root["training"]["fp8_recipe"].as<std::string>(), "current");
  EXPECT_EQ(root["name"].as<std::string>(), "b");
}

TEST(YamlOverride, ValuesAreYamlOrPlainStrings) {
  YAML::Node root = YAML::Load("a: 1\n");
  apply_yaml_override(root, "list", "[1, 2, 3]");
  EXPECT_TRUE(root["list"].IsSequence());
  EXPECT_EQ(root["list"].size(), 3u);
  // Not valid YAML: kept as the string given, not an exception from the parser.
  apply_yaml_override(root, "text", "a: b: c");
  EXPECT_EQ(root["text"].as<std::string>(), "a: b: c");
}

TEST(YamlOverride, BadPathsNameSetAndTheKey) {
  for (const std::string key : {"parallel..tp", ".tp", "parallel.", "name.inner"}) {
    YAML::Node root = YAML::Load("parallel: {tp: 8}\nname: a\n");
    try {
      apply_yaml_override(root, key, "1");
      ADD_FAILURE() << key << ": no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("--set"), std::string::npos) << what;
      EXPECT_NE(what.find(key), std::string::npos) << what;
    }
  }
  // With the file known, an error that depends on its content names it ("FILE (--set)"); one of
  // the override itself stays "--set" (review of 2026-12-05).
  for (const auto& [key, where] : std::vector<std::pair<std::string, std::string>>{
           {"name.inner", "job.yaml (--set): key 'name.inner'"}, {"list.5", "job.yaml (--set): key 'list.5'"}, {"parallel..tp", "--set: key 'parallel..tp'"}}) {
    YAML::Node root = YAML::Load("parallel: {tp: 8}\nname: a\nlist: [1, 2]\n");
    try {
      apply_yaml_override(root, key, "1", "job.yaml");
      ADD_FAILURE() << key << ": no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(where, 0), 0u) << what;
    }
  }
}

// Does a typo surface as itself? `has()` did not count as reading a key, so the valid keys an
// unknown-key error listed left out every key read through has(), and a misspelt key surfaced as
// whatever the reader checked first ("the job needs its length" for `duration_dayz`).
TEST(YamlStrict, KeysAskedAboutAreValidAndATypoIsReportedFirst) {
  auto m = sextant::YamlMap::load_string("num_gpus: 8\nduration_dayz: 3\n", "job.yaml");
  EXPECT_EQ(m.i64("num_gpus"), 8);
  EXPECT_FALSE(m.has("duration_days"));
  EXPECT_FALSE(m.has("tokens"));
  try {
    m.fail("", "the job needs its length", "tokens or duration_days");
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("job.yaml:2:1"), std::string::npos) << w;
    EXPECT_NE(w.find("unknown key"), std::string::npos) << w;
    EXPECT_NE(w.find("did you mean 'duration_days'"), std::string::npos) << w;
  }
  auto n = sextant::YamlMap::load_string("num_gpus: 8\ntokenz: 3\n", "job.yaml");
  EXPECT_EQ(n.i64("num_gpus"), 8);
  EXPECT_FALSE(n.has("duration_days"));
  try {
    n.finish();
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("valid: duration_days, num_gpus"), std::string::npos) << w;
  }
  // A key that is no near miss of an absent one is left to finish(): the error stays the reader's.
  auto o = sextant::YamlMap::load_string("num_gpus: 8\ncolour: red\n", "job.yaml");
  EXPECT_FALSE(o.has("tokens"));
  try {
    o.fail("num_gpus", "must be a power of two");
  } catch (const sextant::Error& e) {
    EXPECT_NE(std::string(e.what()).find("power of two"), std::string::npos) << e.what();
  }
}

// A key twice in one mapping (yaml-cpp keeps both and finds the first: `tp: 8` then `tp: 4`
// silently ran tp 8) and a second YAML document after `---` (silently ignored) are errors that
// name the file, the line and the key.
TEST(YamlStrict, DuplicateKeysAndSecondDocumentsAreErrors) {
  try {
    sextant::YamlMap::load_string("parallel:\n  tp: 8\n  tp: 4\n", "plan.yaml").map("parallel");
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("plan.yaml:3:3"), std::string::npos) << w;
    EXPECT_NE(w.find("duplicate key 'tp' (first given at line 2)"), std::string::npos) << w;
    EXPECT_NE(w.find("parallel.tp"), std::string::npos) << w;
  }
  EXPECT_THROW(sextant::YamlMap::load_string("num_gpus: 8\nnum_gpus: 16\n", "job.yaml"), sextant::Error);
  try {
    sextant::parse_yaml_document("num_gpus: 8\n---\nnum_gpus: 16\n", "job.yaml");
    FAIL() << "no error";
  } catch (const sextant::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("job.yaml:3"), std::string::npos) << w;
    EXPECT_NE(w.find("2 YAML documents"), std::string::npos) << w;
  }
  // One document with a leading `---` (and the same key in different mappings) is fine.
  EXPECT_NO_THROW(sextant::YamlMap::load_string("---\na: {x: 1}\nb: {x: 2}\n", "ok.yaml"));
}

// Question (review of 2026-12-05): is a quoted string the file never closes a syntax error at its
// opening quote? yaml-cpp ran it to the end of the text (the last line's `name: "oops` read as
// "oops "; a first line's swallowed the file and a required key was blamed).
TEST(YamlStrict, AQuotedStringNeverClosedIsAnError) {
  for (const auto& [text, where] : std::vector<std::pair<std::string, std::string>>{
           {"model: llama3-8b\nname: \"oops\n", "u.yaml:2:7"},
           {"name: \"oops\nmodel: llama3-8b\nnum_gpus: 8\n", "u.yaml:1:7"},
           {"model: llama3-8b\nname: 'it''s\n", "u.yaml:2:7"},
           {"model: llama3-8b\nname: &a \"x\n", "u.yaml:2:7"},      // the mark is on the anchor
           {"model: llama3-8b\nname: !!str \"x\n", "u.yaml:2:7"},   // ... or on the tag
           {"\xEF\xBB\xBFmodel: m\nname: \"oops\n", "u.yaml:2:7"}}) {  // a byte-order mark the marks do not count
    try {
      sextant::parse_yaml_document(text, "u.yaml");
      FAIL() << "no error for " << text;
    } catch (const sextant::Error& e) {
      const std::string w = e.what();
      EXPECT_NE(w.find(where), std::string::npos) << w;
      EXPECT_NE(w.find("never closed"), std::string::npos) << w;
    }
  }
  // Closed ones, escapes, doubled single quotes and quotes inside plain scalars are fine.
  EXPECT_NO_THROW(sextant::parse_yaml_document("a: \"x \\\" y\"\nb: 'it''s'\nc: it's\nd: [\"p\", 'q']\n", "ok.yaml"));
  EXPECT_NO_THROW(sextant::parse_yaml_document("\xEF\xBB\xBF'name': \"x\"\nb: &a 'y'\nc: *a\n", "bom.yaml"));
  // Nested aliases are walked once each: 10^8 paths through 9 levels are a few nodes.
  std::string bomb = "x0: &a0 ['q', 'q', 'q', 'q', 'q', 'q', 'q', 'q', 'q', 'q']\n";
  for (int i = 1; i <= 8; ++i) {
    bomb += "x" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    bomb += "]\n";
  }
  EXPECT_NO_THROW(sextant::parse_yaml_document(bomb, "bomb.yaml"));
}

namespace {
std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const sextant::Error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

// Does each way of writing a value wrongly get its own message at the key's own line? A key
// without a value was "required key is missing" (or silently nothing for a mapping) and pointed at
// the line below it; a quoted number is a string in YAML and was converted; YAML 1.1 booleans were
// accepted in part; a control character was read as an escape.
TEST(YamlStrict, ValuesAreWhatYamlSaysTheyAre) {
  using sextant::YamlMap;
  // No value: at the key's line, for required, optional and mapping keys alike.
  auto blank = YamlMap::load_string("name: x\ntraining:\nparallel:\ntp:\n", "b.yaml");
  auto w = what_of([&] { blank.map("training"); });
  EXPECT_NE(w.find("b.yaml:2:1"), std::string::npos) << w;
  EXPECT_NE(w.find("no value given"), std::string::npos) << w;
  w = what_of([&] { blank.opt_map("parallel"); });
  EXPECT_NE(w.find("b.yaml:3:1"), std::string::npos) << w;
  EXPECT_NE(w.find("no value given"), std::string::npos) << w;
  w = what_of([&] { blank.i64("tp", 1); });
  EXPECT_NE(w.find("b.yaml:4:1"), std::string::npos) << w;
  // A misspelt required key is named as itself, with the key it resembles (a transposition is one edit).
  auto typo = YamlMap::load_string("name: x\nmodle: llama3-8b\n", "t.yaml");
  w = what_of([&] { typo.str("model"); });
  EXPECT_NE(w.find("t.yaml:2:1"), std::string::npos) << w;
  EXPECT_NE(w.find("unknown key"), std::string::npos) << w;
  EXPECT_NE(w.find("did you mean 'model'?"), std::string::npos) << w;
  // Quoted numbers and booleans are strings.
  auto q = YamlMap::load_string("seq_len: \"8192\"\nsp: 'true'\nok: 8192\n", "q.yaml");
  EXPECT_EQ(q.i64("ok"), 8192);
  w = what_of([&] { q.i64("seq_len"); });
  EXPECT_NE(w.find("quoted string \"8192\""), std::string::npos) << w;
  EXPECT_NE(what_of([&] { q.boolean("sp"); }).find("quoted string"), std::string::npos);
  // Booleans: YAML 1.2's true/false in three spellings, nothing else.
  for (const char* yes : {"true", "True", "TRUE"}) EXPECT_TRUE(YamlMap::load_string(std::string("b: ") + yes + "\n", "y.yaml").boolean("b"));
  for (const char* other : {"yes", "on", "y", "1"}) {
    w = what_of([&] { YamlMap::load_string(std::string("b: ") + other + "\n", "y.yaml").boolean("b"); });
    EXPECT_NE(w.find(std::string("expected true or false, got '") + other + "'"), std::string::npos) << w;
  }
  // A quoted --set value stays a string.
  YAML::Node root = YAML::Load("a: 1\n");
  apply_yaml_override(root, "n", "\"1024\"");
  EXPECT_NE(what_of([&] { YamlMap(root, "s.yaml").i64("n"); }).find("quoted string"), std::string::npos);
  // A merge key is said to be one.
  w = what_of([&] { YamlMap::load_string("parallel:\n  <<: {tp: 8}\n", "m.yaml").map("parallel").finish(); });
  EXPECT_NE(w.find("merge keys"), std::string::npos) << w;
  // ... also where it would have brought in a required key (it had read as that key missing).
  w = what_of([&] { YamlMap::load_string("training:\n  <<: {seq_len: 4096}\n", "m.yaml").map("training").i64("seq_len"); });
  EXPECT_NE(w.find("m.yaml:2:3"), std::string::npos) << w;
  EXPECT_NE(w.find("merge keys"), std::string::npos) << w;
  // Control characters and bytes that are not UTF-8: at their line and column.
  w = what_of([] { sextant::parse_yaml_document(std::string("a: 1\nname: x\0y\n", 15), "n.yaml"); });
  EXPECT_NE(w.find("n.yaml:2:8"), std::string::npos) << w;
  EXPECT_NE(w.find("control character U+0000"), std::string::npos) << w;
  w = what_of([] { sextant::parse_yaml_document("model: llama3-8b\x01\n", "c.yaml"); });
  EXPECT_NE(w.find("c.yaml:1:17"), std::string::npos) << w;
  w = what_of([] { sextant::parse_yaml_document("name: caf\xe9\n", "u.yaml"); });
  EXPECT_NE(w.find("u.yaml:1:10"), std::string::npos) << w;
  EXPECT_NE(w.find("not UTF-8"), std::string::npos) << w;
  EXPECT_EQ(what_of([] { sextant::parse_yaml_document("name: caf\xc3\xa9 \xe2\x82\xac\n", "ok.yaml"); }), "(no error)");
  // Nesting beyond the parser's depth is said to be that.
  w = what_of([] { sextant::parse_yaml_document("seed: " + std::string(3000, '['), "d.yaml"); });
  EXPECT_NE(w.find("nests too deeply"), std::string::npos) << w;
}

// Is a suggestion offered only where the word resembles it? `xy` is two edits from `cp` and
// shares nothing with it.
TEST(YamlStrict, ASuggestionResemblesTheWord) {
  EXPECT_EQ(sextant::valid_choices_hint("xy", {"cp", "dp", "tp"}).find("did you mean"), std::string::npos);
  EXPECT_NE(sextant::valid_choices_hint("tq", {"cp", "dp", "tp"}).find("did you mean"), std::string::npos);
  EXPECT_NE(sextant::valid_choices_hint("sytem", {"model", "system"}).find("did you mean 'system'"), std::string::npos);
  // At equal distance the shared start decides (review of 2026-12-02: "tpp" had suggested pp).
  EXPECT_EQ(sextant::closest_match("tpp", {"dp", "pp", "tp", "vpp"}), "tp");
  // The same letters with other separators win (review of 2026-12-04: "llama-3-70b" had suggested
  // llama-2-70b, one substitution away, as near as llama3-70b).
  EXPECT_EQ(sextant::closest_match("llama-3-70b", {"llama-2-70b", "llama3-70b", "llama3-8b"}), "llama3-70b");
  EXPECT_EQ(sextant::closest_match("Qwen3_30B_A3B", {"qwen3-235b-a22b", "qwen3-30b-a3b"}), "qwen3-30b-a3b");
  EXPECT_EQ(sextant::edit_distance("modle", "model"), 1);
  // An empty catalog folder offers nothing: the hint says so instead of "valid: ".
  EXPECT_EQ(sextant::valid_choices_hint("llama3-70b", {}).find("valid:"), std::string::npos);
  EXPECT_NE(sextant::valid_choices_hint("llama3-70b", {}).find("catalog folder empty"), std::string::npos);
}

// Is the word in other letter case the suggestion, before a longer name it begins (review of
// 2026-12-05: model_type Qwen2 had been pointed at qwen2_moe, Gemma at gemma2, another model,
// accelerator H20 at h200-sxm-141gb, system DGX-A100 at dgx-a100-selene)?
TEST(YamlStrict, TheWordInOtherLetterCaseIsTheSuggestion) {
  const std::vector<std::string> types = {"gemma", "gemma2", "olmo", "olmo2", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe"};
  EXPECT_EQ(sextant::closest_match("Qwen2", types), "qwen2");
  EXPECT_EQ(sextant::closest_match("Qwen3", types), "qwen3");
  EXPECT_EQ(sextant::closest_match("OLMo", types), "olmo");
  EXPECT_EQ(sextant::closest_match("Gemma", types), "gemma");
  const std::string acc = sextant::valid_choices_hint("H20", {"h100-sxm-80gb", "h20", "h200-sxm-141gb"});
  EXPECT_NE(acc.find("did you mean 'h20'?"), std::string::npos) << acc;
  const std::string sys = sextant::valid_choices_hint("DGX-A100", {"dgx-a100", "dgx-a100-selene", "dgx-h100"});
  EXPECT_NE(sys.find("did you mean 'dgx-a100'?"), std::string::npos) << sys;
  EXPECT_EQ(sys.find("also"), std::string::npos) << sys;
  // Where no candidate is the word, a longer id it begins is still the intent.
  EXPECT_EQ(sextant::closest_match("H100", {"b200", "h100-sxm-80gb"}), "h100-sxm-80gb");
}

// Can a list entry be named by its index (failures.processes.0.shape), and is an index that is
// not one, or beyond the list, an error naming the key?
TEST(YamlOverride, ListEntriesAreNamedByTheirIndex) {
  YAML::Node root = YAML::Load("failures: {processes: [{name: a, shape: 0.5}, {name: b}]}\nlayers: [1, 2, 3]\n");
  apply_yaml_override(root, "failures.processes.0.shape", "3");
  apply_yaml_override(root, "failures.processes.1.rate_per_job_day", "2");
  apply_yaml_override(root, "layers.2", "7");
  EXPECT_EQ(root["failures"]["processes"][0]["shape"].as<double>(), 3.0);
  EXPECT_EQ(root["failures"]["processes"][0]["name"].as<std::string>(), "a");
  EXPECT_EQ(root["failures"]["processes"][1]["rate_per_job_day"].as<int>(), 2);
  EXPECT_TRUE(root["layers"].IsSequence());
  EXPECT_EQ(root["layers"][2].as<int>(), 7);
  for (const std::string key : {"failures.processes.2.shape", "failures.processes.x.shape", "layers.-1"}) {
    try {
      apply_yaml_override(root, key, "1");
      ADD_FAILURE() << key << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.where().key, key);
      EXPECT_TRUE(e.message().find("index") != std::string::npos) << e.message();
    }
  }
  EXPECT_TRUE(root["failures"]["processes"].IsSequence());
  // The form the error messages use, key[N], names the same entry (it was an unknown key,
  // 2026-12-04 review); a bracket that is not an index suffix is an error naming the key.
  apply_yaml_override(root, "failures.processes[1].shape", "0.6");
  apply_yaml_override(root, "layers[0]", "5");
  EXPECT_EQ(root["failures"]["processes"][1]["shape"].as<double>(), 0.6);
  EXPECT_EQ(root["layers"][0].as<int>(), 5);
  for (const std::string key : {"failures.proc]esses.shape", "failures.[0].shape", "failures.processes[9].shape"}) {
    try {
      apply_yaml_override(root, key, "1");
      ADD_FAILURE() << key << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.where().key, key);
    }
  }
}

// Does an override change only the key it names when the file reuses a value through an anchor
// and aliases? (It had written into the shared node: `--set parallel.tp=4` gave tp 4 and pp 4.)
TEST(YamlOverride, AnAliasedValueChangesOnlyTheNamedKey) {
  YAML::Node root = YAML::Load("num_gpus: &n 16\nparallel: {tp: &t 2, pp: *t}\ntraining: {global_batch: *n}\nlayers: &l [1, 2]\nother: *l\n");
  apply_yaml_override(root, "parallel.tp", "4");
  apply_yaml_override(root, "num_gpus", "32");
  apply_yaml_override(root, "layers.1", "5");
  EXPECT_EQ(root["parallel"]["tp"].as<int>(), 4);
  EXPECT_EQ(root["parallel"]["pp"].as<int>(), 2);
  EXPECT_EQ(root["num_gpus"].as<int>(), 32);
  EXPECT_EQ(root["training"]["global_batch"].as<int>(), 16);
  EXPECT_EQ(root["layers"][1].as<int>(), 5);
  EXPECT_EQ(root["other"][1].as<int>(), 2);
  // The untouched alias keeps its place in the file for error messages.
  EXPECT_EQ(root["parallel"]["pp"].Mark().line, 1);
}

// Is a key given twice inside an override's mapping an error, as in a file?
TEST(YamlOverride, ADuplicateKeyInTheValueIsAnError) {
  YAML::Node root = YAML::Load("parallel: {tp: 8}\n");
  try {
    apply_yaml_override(root, "parallel", "{tp: 2, pp: 1, tp: 8}");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().key, "parallel.tp");
    EXPECT_NE(e.message().find("duplicate key 'tp'"), std::string::npos) << e.message();
  }
}

// Is a bad entry of a list an error at the entry: its own line in the file, or "(--set)" when an
// override wrote it?
TEST(YamlOverride, ABadListEntryIsLocatedAtTheEntry) {
  YAML::Node root = YAML::Load("parallel:\n  stage_layers:\n    - 16\n    - x\n");
  YamlMap m(root, "s.yaml");
  try {
    (void)m.map("parallel").i64_list("stage_layers");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, "s.yaml");
    EXPECT_EQ(e.where().line, 4);
    EXPECT_EQ(e.where().key, "parallel.stage_layers.1");
  }
  apply_yaml_override(root, "parallel.stage_layers.1", "[1]");
  try {
    (void)YamlMap(root, "s.yaml").map("parallel").i64_list("stage_layers");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, "s.yaml (--set)");
    EXPECT_EQ(e.where().key, "parallel.stage_layers.1");
  }
}

// Question (review of 2026-12-04): a syntax error caused by a tab in a line's indentation says so
// (the parser's "illegal map value" did not); other syntax errors get no such hint.
TEST(YamlDocument, ATabInTheIndentationIsNamed) {
  std::string what, hint;
  try {
    (void)parse_yaml_document("parallel:\n  tp: 8\n\tpp: 2\n", "t.yaml");
  } catch (const Error& e) {
    what = e.what();
    hint = e.hint();
  }
  EXPECT_NE(what.find("t.yaml:"), std::string::npos) << what;
  EXPECT_NE(what.find("YAML syntax error"), std::string::npos) << what;
  EXPECT_EQ(hint, "line 3 is indented with a tab; YAML indents with spaces only") << what;
  hint = "(none)";
  try {
    (void)parse_yaml_document("parallel: {tp: 8\n", "t.yaml");
  } catch (const Error& e) {
    hint = e.hint();
  }
  EXPECT_EQ(hint, "");
  // A tab-indented line after the error's is not blamed.
  hint = "(none)";
  try {
    (void)parse_yaml_document("parallel: {tp: 8\nx:\n\ty: 2\n", "t.yaml");
  } catch (const Error& e) {
    hint = e.hint();
  }
  EXPECT_EQ(hint.find("indented with a tab"), std::string::npos) << hint;
}

// Question (review of 2026-12-04): a value tagged as a string (`!!str 8`) is a string, as a quoted
// one is: refused where a number is expected (it had been read as 8).
TEST(YamlDocument, AStringTaggedNumberIsAString) {
  const YamlMap m = YamlMap::load_string("tp: !!str 8\npp: 8\n", "t.yaml");
  std::string what;
  try {
    (void)m.i64("tp");
  } catch (const Error& e) {
    what = e.what();
  }
  EXPECT_NE(what.find("expected an integer, got the quoted string \"8\""), std::string::npos) << what;
  EXPECT_EQ(m.i64("pp"), 8);
}

// Review of 2026-12-06: a string or a choice checks its tag as a number does (`model: !!int x`
// had been read as the string), and YAML's own non-finite spellings and a number beyond a double
// are said to be what they are (`.nan` and `1e-400` had read "expected a number").
TEST(YamlStrict, StringTagsAndNumbersBeyondADoubleAreNamed) {
  const YamlMap m = YamlMap::load_string(
      "model: !!int llama3-70b\nprecision: !!float bf16\nmods: [core_attn, !!bool mlp]\nname: !!str 8\nplain: 8\n"
      "a: .nan\nb: -.Inf\nc: 1e-400\nd: 1e400\ne: nan\n",
      "t.yaml");
  auto w = what_of([&] { (void)m.str("model"); });
  EXPECT_NE(w.find("t.yaml:1:8: key 'model': is tagged !!int where a string is expected"), std::string::npos) << w;
  w = what_of([&] { (void)m.choice("precision", {"bf16", "fp8"}, "bf16"); });
  EXPECT_NE(w.find("t.yaml:2:12: key 'precision': is tagged !!float where a string is expected"), std::string::npos) << w;
  w = what_of([&] { (void)m.str_list("mods"); });
  EXPECT_NE(w.find("key 'mods': is tagged !!bool where a string is expected"), std::string::npos) << w;
  EXPECT_EQ(m.str("name"), "8");   // a string tag is a string
  EXPECT_EQ(m.str("plain"), "8");  // an untagged scalar is read as the key's type
  for (const char* key : {"a", "b", "e"}) {
    w = what_of([&] { (void)m.f64(key); });
    EXPECT_NE(w.find("expected a finite number"), std::string::npos) << key << ": " << w;
  }
  w = what_of([&] { (void)m.f64("c"); });
  EXPECT_NE(w.find("t.yaml:8:4: key 'c': the number 1e-400 is too close to zero for a double"), std::string::npos) << w;
  w = what_of([&] { (void)m.f64("d"); });
  EXPECT_NE(w.find("t.yaml:9:4: key 'd': the number 1e400 is beyond a double's range"), std::string::npos) << w;
}

// Review of 2026-12-06: a control character in a --set value is an error of the override itself,
// located as the others are (`--set: key 'name'`, the place in the value said); it had read
// "--set name:1:3:", a file and line that do not exist.
TEST(YamlOverride, AControlCharacterInAValueIsLocatedAtTheSet) {
  YAML::Node root = YAML::Load("name: a\n");
  const auto w = what_of([&] { apply_yaml_override(root, "name", "ab\x01" "c", "job.yaml"); });
  EXPECT_EQ(w.rfind("--set: key 'name': control character U+0001 in the text at line 1, column 3 of the value", 0), 0u) << w;
}

// Question: does `--set KEY=null` (or ~) remove the key, as if the file had not written it, while
// an empty value stays "no value given" (an unset shell variable)? Before 2026-12-06 (review)
// null was refused too, with a hint to leave the --set out that cannot remove a key the file
// writes (`--set serving.disaggregation=null`).
TEST(YamlOverride, NullRemovesTheKeyAndAnEmptyValueIsRefused) {
  YAML::Node root = YAML::Load("serving: {policy: static, disaggregation: {prefill_instances: 1}}\nsweep: {rates_per_s: [1]}\nlayers: [1, 2]\n");
  apply_yaml_override(root, "serving.disaggregation", "null");
  apply_yaml_override(root, "sweep", " ~ ");
  EXPECT_FALSE(root["serving"]["disaggregation"].IsDefined());
  EXPECT_EQ(root["serving"]["policy"].as<std::string>(), "static");  // siblings untouched
  EXPECT_FALSE(root["sweep"].IsDefined());
  // A key the file does not write, or under a mapping it does not write, is refused (a misspelt key
  // had been a silent no-op; review of 2026-12-06), and no mapping is created on the way.
  auto w0 = what_of([&] { apply_yaml_override(root, "serving.speculative", "Null", "s.yaml"); });
  EXPECT_NE(w0.find("s.yaml (--set): key 'serving.speculative': KEY=null removes a key the file writes, and it writes no 'speculative' under 'serving'"),
            std::string::npos) << w0;
  EXPECT_NE(w0.find("policy"), std::string::npos) << w0;
  w0 = what_of([&] { apply_yaml_override(root, "workload.prefix", "NULL", "s.yaml"); });
  EXPECT_NE(w0.find("writes no 'workload'"), std::string::npos) << w0;
  EXPECT_FALSE(root["serving"]["speculative"].IsDefined());
  EXPECT_FALSE(root["workload"].IsDefined());
  // A mapping written empty (`prefix:`) has nothing under it to remove: no error.
  YAML::Node empty = YAML::Load("workload: {prefix: }\n");
  apply_yaml_override(empty, "workload.prefix.tokens", "null");
  EXPECT_TRUE(empty["workload"]["prefix"].IsNull());
  // An empty value is no value; a list entry is not removed (the later ones would move).
  auto w = what_of([&] { apply_yaml_override(root, "serving.policy", "", "s.yaml"); });
  EXPECT_NE(w.find("no value given for 'serving.policy'"), std::string::npos) << w;
  EXPECT_NE(w.find("KEY=null to remove a key the file writes"), std::string::npos) << w;
  w = what_of([&] { apply_yaml_override(root, "layers[1]", "null", "s.yaml"); });
  EXPECT_NE(w.find("s.yaml (--set): key 'layers[1]': a list entry cannot be removed with null"), std::string::npos) << w;
  EXPECT_NE(w.find("--set layers=[...]"), std::string::npos) << w;
  EXPECT_EQ(root["layers"].size(), 2u);
  // The text "null" quoted in the value is a string, set as any other.
  apply_yaml_override(root, "serving.policy", "'null'");
  EXPECT_EQ(root["serving"]["policy"].as<std::string>(), "null");
}

namespace sextant {
namespace {
// Question (review of 2026-12-06): does a key set or removed inside a mapping the file shares
// through an alias change only that place? It changed both (`--set workload.output.max=null` with
// `output: *d` removed the prompt's max as well; `output.mean=300` moved the prompt's mean): it is
// refused, naming the other place, while setting the whole aliased value replaces only its own.
TEST(YamlOverride, AKeyInsideAnAliasedMappingIsRefusedNotWrittenIntoBoth) {
  const char* text = "workload:\n  prompt: &d {dist: lognormal, mean: 1500, max: 2000}\n  output: *d\n";
  for (const char* value : {"null", "300"}) {
    YAML::Node root = YAML::Load(text);
    std::string w;
    try {
      apply_yaml_override(root, "workload.output.max", value, "a.yaml");
    } catch (const Error& e) {
      w = e.what();
    }
    EXPECT_NE(w.find("a.yaml (--set): key 'workload.output.max': 'workload.output' is the same node as 'workload.prompt'"), std::string::npos) << w;
    EXPECT_EQ(root["workload"]["prompt"]["max"].as<int>(), 2000);
  }
  // The whole value is replaced in its own place only.
  YAML::Node root = YAML::Load(text);
  apply_yaml_override(root, "workload.output", "{dist: fixed, mean: 100}", "a.yaml");
  EXPECT_EQ(root["workload"]["prompt"]["mean"].as<int>(), 1500);
  EXPECT_EQ(root["workload"]["output"]["mean"].as<int>(), 100);
  // Not shared: set as before.
  YAML::Node plain = YAML::Load("workload:\n  prompt: {mean: 1500}\n  output: {mean: 1500}\n");
  apply_yaml_override(plain, "workload.output.mean", "300", "a.yaml");
  EXPECT_EQ(plain["workload"]["prompt"]["mean"].as<int>(), 1500);
  EXPECT_EQ(plain["workload"]["output"]["mean"].as<int>(), 300);
  // A list entry shared with another list's entry.
  YAML::Node lists = YAML::Load("a: [&e {x: 1}]\nb: [*e]\n");
  std::string w;
  try {
    apply_yaml_override(lists, "b.0.x", "2", "a.yaml");
  } catch (const Error& e) {
    w = e.what();
  }
  EXPECT_NE(w.find("'b[0]' is the same node as 'a[0]'"), std::string::npos) << w;
}
}  // namespace
}  // namespace sextant

// Question (review of 2026-12-07): does an integer beyond 64 bits in a 32-bit field (num_gpus,
// parallel.tp) name that field's limit? It said "at most 9223372036854775807" where the field holds
// at most 2147483647, which a value between the two limits was told.
TEST(YamlOverride, AnIntegerBeyondItsFieldNamesTheFieldsLimit) {
  const YamlMap m = YamlMap::load_string("big: 99999999999999999999\nneg: -99999999999999999999\nmid: 3000000000\nok: 7\n", "t.yaml");
  auto error_of = [&m](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_NE(error_of([&] { (void)m.i32("big"); }).find("at most 2147483647"), std::string::npos) << error_of([&] { (void)m.i32("big"); });
  EXPECT_NE(error_of([&] { (void)m.i32("big", 1); }).find("at most 2147483647"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)m.i32("neg"); }).find("at least -2147483648"), std::string::npos) << error_of([&] { (void)m.i32("neg"); });
  EXPECT_NE(error_of([&] { (void)m.i32("mid"); }).find("at most 2147483647"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)m.i64("big"); }).find("at most 9223372036854775807"), std::string::npos);
  EXPECT_EQ(m.i32("ok"), 7);
  EXPECT_EQ(m.i32("absent", 5), 5);
}
