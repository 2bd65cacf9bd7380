// Number formats: real bytes per element and compute paths.
#include <gtest/gtest.h>

#include "common.hpp"
#include "infer/formats.hpp"

using namespace sextant;
using namespace sextant::infer;

// Question: do llama.cpp block formats cost their real bits per weight (scales included)?
TEST(Formats, BlockFormatsCountTheirScales) {
  EXPECT_DOUBLE_EQ(parse_format("q4_0").bits_per_element, 4.5);   // 18 bytes per 32 weights
  EXPECT_DOUBLE_EQ(parse_format("q8_0").bits_per_element, 8.5);   // 34 bytes per 32 weights
  EXPECT_DOUBLE_EQ(parse_format("q4_k").bits_per_element, 4.5);   // 144 bytes per 256
  EXPECT_DOUBLE_EQ(parse_format("q6_k").bits_per_element, 6.5625);
  EXPECT_DOUBLE_EQ(parse_format("int4").bits_per_element, 4.25);
  EXPECT_DOUBLE_EQ(parse_format("fp8").bits_per_element, 8);
  EXPECT_DOUBLE_EQ(parse_format("fp4").bits_per_element, 4.5);
  EXPECT_DOUBLE_EQ(parse_format("F16").bits_per_element, 16);  // GGUF spelling
  EXPECT_TRUE(parse_format("q4_0").block_quantized);
  // Llama-2-7B Q4_0 GGUF: 3.82 GB for 6.74 B weights (README), i.e. 4.53 bits; 4.5 bits is the block cost.
  EXPECT_NEAR(6.74e9 * parse_format("q4_0").bytes() / 3.82e9, 1.0, 0.01);
}

// Question: does a mixed 2/4-bit format average its parts?
TEST(Formats, MixedFormat) {
  const auto m = parse_format("mixed:q2_k:q4_k:0.5");
  EXPECT_DOUBLE_EQ(m.bits_per_element, (2.625 + 4.5) / 2);
  EXPECT_THROW(parse_format("mixed:q2_k:q4_k:1.5"), Error);
  EXPECT_THROW(parse_format("mixed:q2_k"), Error);
}

// Question: does an unknown format name the valid ones?
TEST(Formats, UnknownFormatSuggests) {
  try {
    parse_format("q4_O");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("q4_0"), std::string::npos);
  }
}

// Question: which arithmetic does each weight/activation pair run on?
TEST(Formats, ComputePath) {
  const auto& h100 = fixtures::catalog().accelerator("h100-sxm-80gb");
  EXPECT_EQ(compute_dtype(parse_format("fp8"), parse_format("fp8"), h100), DType::FP8);
  EXPECT_EQ(compute_dtype(parse_format("int4"), parse_format("bf16"), h100), DType::BF16);
  EXPECT_EQ(compute_dtype(parse_format("int8"), parse_format("int8"), h100), DType::INT8);
  // H100 has no FP4 peak: FP4 weights with FP4 activations fall back to the next wider rate.
  EXPECT_EQ(compute_dtype(parse_format("fp4"), parse_format("fp4"), h100), DType::FP8);
  const auto& m2 = fixtures::catalog().accelerator("apple-m2-max-30c");
  EXPECT_EQ(compute_dtype(parse_format("q4_0"), parse_format("f32"), m2), DType::FP32);  // llama.cpp F32 activations
}
