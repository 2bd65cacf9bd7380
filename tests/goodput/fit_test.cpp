// Fitting failure processes from incident CSVs: rates by count, Weibull shape by maximum likelihood.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/random.hpp"
#include "goodput/config.hpp"
#include "goodput/failures/distribution.hpp"
#include "goodput/fit.hpp"

using namespace sextant::goodput;

// Incidents drawn from a Weibull renewal process of known shape: the fit recovers the shape and the rate.
TEST(Fit, RecoversWeibullShapeAndRate) {
  const double days = 365, nodes = 1000, mean_s = 3 * 3600.0, shape = 0.7;
  auto d = make_weibull_shape(mean_s, shape);
  sextant::RandomStream rng(5, 0);
  std::ostringstream csv;
  csv.precision(17);
  csv << "time_h,category,component,node_lost\n";
  int n_gpu = 0;
  for (double t = d->sample(rng); t < days * 86400; t += d->sample(rng)) {
    csv << t / 3600.0 << ",gpu,gpu,true\n";
    ++n_gpu;
  }
  csv << "10.5,\"bad, config\",user,false\n";
  const auto f = fit_incidents(csv.str(), "inc.csv", nodes, days);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].count, n_gpu);
  EXPECT_NEAR(f[0].process.rate_per_node_s * nodes * days * 86400.0, double(n_gpu), 1e-6);
  ASSERT_TRUE(f[0].shape_fitted);
  EXPECT_NEAR(f[0].weibull_shape, shape, 0.03);
  EXPECT_TRUE(f[0].process.node_lost);
  EXPECT_EQ(f[1].process.name, "bad, config");
  EXPECT_FALSE(f[1].process.node_lost);
  EXPECT_FALSE(f[1].shape_fitted);
  // The written preset reads back with the same rates.
  const std::string yaml = fitted_preset_yaml(f, "fitted", nodes, days, "inc.csv");
  const std::string path = ::testing::TempDir() + "/fitted_preset.yaml";
  {
    FILE* fp = std::fopen(path.c_str(), "w");
    ASSERT_NE(fp, nullptr);
    std::fputs(yaml.c_str(), fp);
    std::fclose(fp);
  }
  const auto procs = load_failure_preset(path);
  ASSERT_EQ(procs.size(), 2u);
  EXPECT_NEAR(procs[0].rate_per_node_s / f[0].process.rate_per_node_s, 1.0, 1e-12);
  EXPECT_EQ(procs[0].distribution, "weibull");
}

TEST(Fit, ExponentialSamplesGiveShapeOne) {
  std::vector<double> x;
  sextant::RandomStream rng(9, 1);
  for (int i = 0; i < 20000; ++i) x.push_back(rng.exponential(1.0 / 50.0));
  EXPECT_NEAR(weibull_shape_mle(x), 1.0, 0.02);
}

TEST(Fit, BadCsvIsAnErrorWithTheLine) {
  try {
    fit_incidents("time_h,category\n1,gpu\nxx,gpu\n", "inc.csv", 10, 10);
    FAIL();
  } catch (const sextant::Error& e) {
    EXPECT_EQ(e.where().line, 3);
  }
  EXPECT_THROW(fit_incidents("when,what\n1,gpu\n", "inc.csv", 10, 10), sextant::Error);
  EXPECT_THROW(fit_incidents("time_h,category\n1000,gpu\n", "inc.csv", 10, 10), sextant::Error);  // beyond 10 days
}
