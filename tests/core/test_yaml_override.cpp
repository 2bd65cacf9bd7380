// Question: does `--set KEY=VALUE` (one implementation for scenarios, goodput and infer files)
// set nested keys, create missing mappings, keep unparseable values as strings, and reject bad
// paths with an error that names `--set` and the key?
#include <gtest/gtest.h>

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
