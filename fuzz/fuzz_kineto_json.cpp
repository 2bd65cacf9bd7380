// Kineto (PyTorch profiler) JSON through the whole loader: byte source, streaming scanner, rank
// and value checks (load_traces). Seeds: tests/data/trace and `sextant trace synth` output.
#include "fuzz/fuzz_common.hpp"
#include "trace/ingest/load.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  sextant::fuzz::MemFile f(data, size);
  sextant::fuzz::expect_ok_or_error([&] {
    sextant::trace::LoadOptions o;
    o.threads = 1;
    o.scan.chunk_bytes = 4096;  // small windows: exercise values split across chunk boundaries
    o.scan.max_inflate_bytes = 8 << 20;
    auto set = sextant::trace::load_traces({f.path()}, o);
    for (const auto& r : set.ranks)
      for (size_t i = 0; i < r.size(); ++i)
        if (r.dur_ns[i] < 0 || r.ts_ns[i] < 0) std::abort();  // rejected at load, never kept
  });
  return 0;
}
