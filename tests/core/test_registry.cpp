// Question: do the two registry shapes (core/registry.hpp) keep their contract: unique names,
// lookup of an unknown name is an Error at the caller's key that lists the valid names (closest
// first), instances listed in registration order and factories sorted?
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/error.hpp"
#include "core/registry.hpp"

using namespace sextant;

namespace {
struct Thing {
  explicit Thing(std::string n, int v = 0) : n_(std::move(n)), v_(v) {}
  std::string name() const { return n_; }
  int value() const { return v_; }
  std::string n_;
  int v_;
};
}  // namespace

TEST(Registry, InstancesKeepRegistrationOrderAndRejectDuplicates) {
  InstanceRegistry<Thing> r("parallel.schedule", "pipeline schedule");
  r.add(std::make_unique<Thing>("gpipe"));
  r.add(std::make_unique<Thing>("1f1b"));
  r.add(std::make_unique<Thing>("interleaved-1f1b"));
  EXPECT_EQ(r.names(), (std::vector<std::string>{"gpipe", "1f1b", "interleaved-1f1b"}));
  EXPECT_EQ(r.get("1f1b").name(), "1f1b");
  EXPECT_EQ(r.find("zb-v"), nullptr);
  EXPECT_THROW(r.add(std::make_unique<Thing>("1f1b")), std::logic_error);
  try {
    r.get("interleaved");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("parallel.schedule"), std::string::npos) << what;
    EXPECT_NE(what.find("unknown pipeline schedule 'interleaved'"), std::string::npos) << what;
    EXPECT_NE(what.find("interleaved-1f1b"), std::string::npos) << what;
  }
}

TEST(Registry, FactoriesBuildWithTheirArgumentsAndListSorted) {
  FactoryRegistry<Thing, int> r("inter-arrival distribution");
  r.add("weibull", [](int v) { return std::make_unique<Thing>("weibull", v); });
  r.add("exponential", [](int v) { return std::make_unique<Thing>("exponential", v); });
  EXPECT_EQ(r.names(), (std::vector<std::string>{"exponential", "weibull"}));
  EXPECT_TRUE(r.has("weibull"));
  EXPECT_EQ(r.create("weibull", {}, 7)->value(), 7);
  EXPECT_THROW(r.add("weibull", [](int v) { return std::make_unique<Thing>("w", v); }), std::logic_error);
  try {
    r.create("weibul", SourceLocation{"failures.yaml", 4, 3, "distribution"}, 1);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("failures.yaml:4"), std::string::npos) << what;
    EXPECT_NE(what.find("unknown inter-arrival distribution 'weibul'"), std::string::npos) << what;
    EXPECT_NE(what.find("weibull"), std::string::npos) << what;
  }
}
