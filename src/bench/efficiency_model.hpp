#pragma once
// The GEMM efficiency model that `sextant calibrate` fits and writes into a catalog entry
// (efficiency.gemm_peak_fraction and efficiency.gemm_half_dim):
//
//   achieved FLOP/s (m, n, k) = peak x gemm_peak_fraction x d / (d + gemm_half_dim),
//   d = 3 / (1/m + 1/n + 1/k)
//
// d is the harmonic mean of the three dimensions. It is proportional to the GEMM's arithmetic
// intensity (2mnk FLOPs over (mk + kn + mn) elements moved = 2 / (1/n + 1/m + 1/k)), so one small
// dimension (a skewed GEMM) lowers it as it lowers the data reuse; for a square GEMM d = m and
// the efficiency is half of gemm_peak_fraction at m = gemm_half_dim. It is the time model
// t = 2mnk / (f x peak) + c x (mk + kn + mn): compute at the achievable rate plus a cost per
// element of the operands (packing, memory traffic), divided through by 2mnk.
#include <cstdint>

namespace sextant::bench {

inline double gemm_characteristic_dim(double m, double n, double k) { return 3.0 / (1.0 / m + 1.0 / n + 1.0 / k); }

inline double gemm_efficiency(double peak_fraction, double half_dim, double m, double n, double k) {
  const double d = gemm_characteristic_dim(m, n, k);
  return peak_fraction * d / (d + half_dim);
}

// The same model with one half-dimension per role, which calibration fits (BLAS libraries are
// not symmetric in m and n: packing and micro-kernel tiles differ):
//   1 / e = (1 / f) x (1 + (h_m / m + h_n / n + h_k / k) / 3)
// With h_m = h_n = h_k = h it is gemm_efficiency above; for a square GEMM of side d it equals
// gemm_efficiency with h = (h_m + h_n + h_k) / 3, the value a catalog entry stores.
inline double gemm_efficiency_roles(double peak_fraction, double h_m, double h_n, double h_k, double m, double n, double k) {
  return peak_fraction / (1.0 + (h_m / m + h_n / n + h_k / k) / 3.0);
}

}  // namespace sextant::bench
