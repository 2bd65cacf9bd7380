// Questions: is the GEMM shape-efficiency model (gemm_shape_factor) the closed form the catalog
// documents, with one half-dimension per role (m, n, k), and does an entry's
// gemm_half_dim_<role> override gemm_half_dim for that role only (absent roles take gemm_half_dim,
// so entries without per-role values mean what they meant before)?
#include <gtest/gtest.h>

#include "catalog/catalog.hpp"
#include "catalog_test_util.hpp"

using namespace sextant;
using namespace catalog_test;

namespace {
// The closed form written out independently: prod over roles of min(1, [x/(x+h)] / [R/(R+h)]),
// R = 8192.
double closed_form(double m, double n, double k, double hm, double hn, double hk) {
  auto f = [](double x, double h) {
    const double v = (x / (x + h)) * ((8192.0 + h) / 8192.0);
    return v > 1 ? 1.0 : v;
  };
  return f(m, hm) * f(n, hn) * f(k, hk);
}

std::string accelerator_yaml(const std::string& efficiency) {
  return "sources:\n  ds: \"a datasheet\"\n  fit: \"a fit\"\nentries:\n  - id: test-gpu\n    name: Test GPU\n    vendor: test\n"
         "    kind: gpu\n    peak_tflops:\n      bf16: {value: 100, source: ds}\n    memory_gib: {value: 80, source: ds}\n"
         "    memory_bandwidth_gb_per_s: {value: 2000, source: ds}\n" +
         efficiency;
}

std::string load_error(const TempDir& d) {
  try {
    Catalog::load(d.path.string());
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}
}  // namespace

TEST(GemmShapeFactor, PerRoleFactorIsTheClosedForm) {
  // Shapes: square, each role small in turn, above the reference (capped), hand-checked value.
  const double shapes[][3] = {{1024, 1024, 1024}, {48, 1536, 1536}, {1536, 48, 1536}, {1536, 1536, 48}, {16384, 64, 9000}};
  const GemmHalfDims h{300, 40, 7};
  for (const auto& s : shapes) {
    EXPECT_NEAR(gemm_shape_factor(s[0], s[1], s[2], h), closed_form(s[0], s[1], s[2], 300, 40, 7), 1e-14)
        << s[0] << "x" << s[1] << "x" << s[2];
  }
  // 48x1536x1536 by hand: (48/348)(8492/8192) x (1536/1576)(8232/8192) x (1536/1543)(8199/8192).
  const double by_hand = (48.0 / 348 * 8492 / 8192) * (1536.0 / 1576 * 8232 / 8192) * (1536.0 / 1543 * 8199 / 8192);
  EXPECT_NEAR(gemm_shape_factor(48, 1536, 1536, h), by_hand, 1e-15);
  // The roles are not interchangeable: a small m costs what h_m says, a small n what h_n says.
  EXPECT_LT(gemm_shape_factor(48, 1536, 1536, h), gemm_shape_factor(1536, 48, 1536, h));
  // The 8192^3 reference has factor 1 for any half-dimensions; larger dimensions are capped at 1.
  EXPECT_DOUBLE_EQ(gemm_shape_factor(8192, 8192, 8192, h), 1.0);
  EXPECT_DOUBLE_EQ(gemm_shape_factor(20000, 30000, 8192, h), 1.0);
  // Half-dimension 0 for a role: that role never lowers the efficiency.
  EXPECT_DOUBLE_EQ(gemm_shape_factor(1, 8192, 8192, GemmHalfDims{0, 500, 500}), 1.0);
}

TEST(GemmShapeFactor, SymmetricOverloadIsThePerRoleModelWithEqualHalfDims) {
  for (double hdim : {0.0, 12.5, 128.0, 700.0})
    for (double m : {16.0, 300.0, 4096.0})
      for (double n : {32.0, 8192.0})
        for (double k : {64.0, 1000.0}) {
          EXPECT_EQ(gemm_shape_factor(m, n, k, hdim), gemm_shape_factor(m, n, k, GemmHalfDims{hdim, hdim, hdim}));
          EXPECT_NEAR(gemm_shape_factor(m, n, k, hdim), closed_form(m, n, k, hdim, hdim, hdim), 1e-14);
        }
}

TEST(GemmShapeFactor, EntryRoleValuesOverrideTheSymmetricHalfDimPerRole) {
  TempDir d("gemm-roles");
  d.write("accelerators/a.yaml", accelerator_yaml("    efficiency:\n      gemm_half_dim: {value: 200, source: fit}\n"
                                                  "      gemm_half_dim_n: {value: 35, source: fit}\n"));
  d.write("accelerators/b.yaml", "sources: {}\nentries:\n  - id: plain\n    name: Plain\n    vendor: test\n    kind: gpu\n"
                                 "    efficiency:\n      gemm_half_dim: {value: 200, estimated: \"a guess\"}\n");
  d.write("accelerators/c.yaml", "sources: {}\nentries:\n  - id: bare\n    name: Bare\n    vendor: test\n    kind: gpu\n");
  const auto c = Catalog::load(d.path.string());
  const Accelerator& a = c->accelerator("test-gpu");
  EXPECT_TRUE(a.gemm_half_dim_n.known);
  EXPECT_EQ(a.gemm_half_dim_n.source, "fit: a fit");  // provenance as for every catalog number
  EXPECT_FALSE(a.gemm_half_dim_m.known);
  const GemmHalfDims h = a.gemm_half_dims(128);
  EXPECT_EQ(h.m, 200);
  EXPECT_EQ(h.n, 35);
  EXPECT_EQ(h.k, 200);
  // Only gemm_half_dim: every role is it, so the factor is the symmetric model's, bit for bit.
  const GemmHalfDims p = c->accelerator("plain").gemm_half_dims(128);
  EXPECT_EQ(p.m, 200);
  EXPECT_EQ(p.n, 200);
  EXPECT_EQ(p.k, 200);
  EXPECT_EQ(gemm_shape_factor(100, 2000, 300, p), gemm_shape_factor(100, 2000, 300, 200.0));
  // Neither: the caller's default for every role.
  const GemmHalfDims b = c->accelerator("bare").gemm_half_dims(128);
  EXPECT_EQ(b.m, 128);
  EXPECT_EQ(b.n, 128);
  EXPECT_EQ(b.k, 128);
}

TEST(GemmShapeFactor, NegativeOrUnsourcedRoleHalfDimRejectedNamingTheKey) {
  {
    TempDir d("gemm-roles-neg");
    d.write("accelerators/a.yaml", accelerator_yaml("    efficiency:\n      gemm_half_dim_k: {value: -3, source: fit}\n"));
    const std::string what = load_error(d);
    EXPECT_NE(what.find("gemm_half_dim_k"), std::string::npos) << what;
    EXPECT_NE(what.find(">= 0"), std::string::npos) << what;
  }
  {
    TempDir d("gemm-roles-unsourced");
    d.write("accelerators/a.yaml", accelerator_yaml("    efficiency:\n      gemm_half_dim_m: 40\n"));
    const std::string what = load_error(d);
    EXPECT_NE(what.find("gemm_half_dim_m"), std::string::npos) << what;
  }
  {
    TempDir d("gemm-roles-typo");
    d.write("accelerators/a.yaml", accelerator_yaml("    efficiency:\n      gemm_half_dim_x: {value: 40, source: fit}\n"));
    const std::string what = load_error(d);
    EXPECT_NE(what.find("gemm_half_dim_x"), std::string::npos) << what;
  }
}
