// Inference request-trace CSV (arrival_s,prompt_tokens,output_tokens[,prefix_group,prefix_tokens])
// read by the "trace" arrival process of `sextant infer serve`.
#include "fuzz/fuzz_common.hpp"
#include "infer/arrivals/arrival.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sextant::fuzz::MemFile f(data, size);
  sextant::fuzz::expect_ok_or_error([&] {
    sextant::infer::WorkloadSpec spec;
    spec.arrival = "trace";
    spec.trace_file = f.path();
    spec.requests = 100000;
    auto reqs = sextant::infer::make_trace_arrivals()->generate(spec);
    for (const auto& q : reqs)
      if (q.prompt_tokens < 1 || q.output_tokens < 1 || !(q.arrival_s >= 0)) std::abort();
  });
  return 0;
}
