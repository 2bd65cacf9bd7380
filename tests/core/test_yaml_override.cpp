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
