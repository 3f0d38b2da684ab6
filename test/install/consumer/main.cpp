// The consumer program: uses its own kernel (axpy.mlir, through the launcher
// tilec_add_kernel_library generated), the tilec runtime and
// libtilec_mamba2.so, all from an installed tilec.
//
//   tilec_consumer              needs a GPU: checks axpy on random inputs and
//                               that libtilec_mamba2 loads its kernels;
//                               exits 77 (skipped) without a driver or device
//   tilec_consumer --no-driver  run with TILEC_CUDA_DRIVER naming a missing
//                               library: checks that the launcher and the
//                               library report NO_DRIVER and that what needs
//                               no driver works
//
// Both first check the Mamba-2 library's driver-free calls. Exits 0 when
// every check holds, 1 (with the failed check) otherwise.

#include "axpy.h"
#include "tilec/Mamba2/tilec_mamba2.h"
#include "tilec/Runtime/DriverApi.h"
#include "tilec/Runtime/Runtime.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kSkipped = 77;
constexpr int64_t kBlock = 128; // the BLOCK CMakeLists.txt compiles axpy with

int failures = 0;

void check(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAILED", what.c_str());
  if (!ok)
    ++failures;
}

/// libtilec_mamba2's workspace query on a valid and an invalid problem.
void checkMamba2WithoutDriver() {
  const tilec_mamba2_problem problem = {/*batch=*/2, /*seqlen=*/1000,
                                        /*heads=*/8, /*groups=*/2,
                                        /*headdim=*/64, /*dstate=*/128,
                                        /*chunk=*/128};
  size_t bytes = 0;
  int status = tilec_mamba2_workspace_size(&problem, &bytes);
  check(status == TILEC_MAMBA2_SUCCESS,
        std::string("tilec_mamba2_workspace_size: ") +
            tilec_mamba2_status_name(status));
  // The workspace holds at least the f32 chunk states (batch, chunks, heads,
  // headdim, dstate) and the final state (batch, heads, headdim, dstate).
  const uint64_t chunks = (problem.seqlen + problem.chunk - 1) / problem.chunk;
  const uint64_t states = 4ull * problem.batch * problem.heads *
                          problem.headdim * problem.dstate * (chunks + 1);
  check(bytes >= states,
        "workspace of " + std::to_string(bytes) + " bytes holds the " +
            std::to_string(states) + " bytes of states");

  tilec_mamba2_problem bad = problem;
  bad.chunk = 96;
  status = tilec_mamba2_workspace_size(&bad, &bytes);
  check(status == TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK &&
            std::strcmp(tilec_mamba2_status_name(status),
                        "TILEC_MAMBA2_ERROR_UNSUPPORTED_CHUNK") == 0 &&
            std::strstr(tilec_mamba2_last_error(), "chunk is 96"),
        std::string("chunk 96: ") + tilec_mamba2_status_name(status) + ": " +
            tilec_mamba2_last_error());
}

int runWithoutDriver() {
  tilec_status init = tilec_init();
  check(init == TILEC_ERROR_NO_DRIVER,
        std::string("tilec_init: ") + tilec_status_name(init));
  // Well-formed views of host memory: the launcher gets as far as the driver.
  std::vector<float> x(kBlock), y(kBlock), z(kBlock);
  const int64_t n = kBlock;
  tilec_view_f32_1d vx = {x.data(), {n}, {1}};
  tilec_view_f32_1d vy = {y.data(), {n}, {1}};
  tilec_view_f32_1d vz = {z.data(), {n}, {1}};
  tilec_status launch = tile_axpy(vx, vy, vz, 2.0f, {1, 1, 1}, nullptr);
  check(launch == TILEC_ERROR_NO_DRIVER,
        std::string("tile_axpy: ") + tilec_status_name(launch) + ": " +
            tilec_last_error());
  int prepare = tilec_mamba2_prepare();
  check(prepare == TILEC_MAMBA2_ERROR_NO_DRIVER,
        std::string("tilec_mamba2_prepare: ") +
            tilec_mamba2_status_name(prepare) + ": " +
            tilec_mamba2_last_error());
  return failures ? 1 : 0;
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

int runOnGpu() {
  tilec::runtime::DriverApi cu;
  tilec_status status = cu.load();
  if (status == TILEC_ERROR_NO_DRIVER || status == TILEC_ERROR_NO_DEVICE) {
    std::printf("no GPU: %s\n", cu.error().c_str());
    return failures ? 1 : kSkipped;
  }
  check(status == TILEC_SUCCESS, "driver: " + cu.error());
  if (failures)
    return 1;

  // Not a multiple of the block, so the last tile is partial; z has room
  // past its shape that the kernel must leave alone.
  const int64_t n = 1000 * kBlock + 77, slack = 2 * kBlock;
  std::random_device seedSource;
  const unsigned seed = seedSource();
  std::printf("axpy on %lld elements, seed %u\n", static_cast<long long>(n),
              seed);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
  std::vector<float> x(n), y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = uniform(generator);
    y[i] = uniform(generator);
  }
  const float a = uniform(generator);
  constexpr uint32_t kPoison = 0x7fbadbadu; // a NaN no arithmetic makes
  std::vector<uint32_t> poison(n + slack, kPoison);

  CUdeviceptr dx = 0, dy = 0, dz = 0;
  const size_t bytes = n * sizeof(float), zBytes = (n + slack) * sizeof(float);
  check(cu.memAlloc(&dx, bytes) == CUDA_SUCCESS &&
            cu.memAlloc(&dy, bytes) == CUDA_SUCCESS &&
            cu.memAlloc(&dz, zBytes) == CUDA_SUCCESS &&
            cu.memcpyHtoD(dx, x.data(), bytes) == CUDA_SUCCESS &&
            cu.memcpyHtoD(dy, y.data(), bytes) == CUDA_SUCCESS &&
            cu.memcpyHtoD(dz, poison.data(), zBytes) == CUDA_SUCCESS,
        "device buffers");
  if (failures)
    return 1;
  tilec_view_f32_1d vx = {reinterpret_cast<float *>(dx), {n}, {1}};
  tilec_view_f32_1d vy = {reinterpret_cast<float *>(dy), {n}, {1}};
  tilec_view_f32_1d vz = {reinterpret_cast<float *>(dz), {n}, {1}};
  const tilec_grid grid = {(n + kBlock - 1) / kBlock, 1, 1};
  status = tile_axpy(vx, vy, vz, a, grid, nullptr);
  check(status == TILEC_SUCCESS,
        std::string("tile_axpy: ") + tilec_status_name(status) + " " +
            tilec_last_error());
  std::vector<float> z(n + slack);
  check(cu.streamSynchronize(nullptr) == CUDA_SUCCESS &&
            cu.memcpyDtoH(z.data(), dz, zBytes) == CUDA_SUCCESS,
        "kernel finished and z copied back");

  // The kernel rounds the product and the sum separately (mul.rn, add.rn),
  // so it matches the host bit for bit; volatile keeps the host from fusing.
  int64_t wrong = 0, overwritten = 0;
  for (int64_t i = 0; i < n; ++i) {
    volatile float product = a * x[i];
    if (bitsOf(z[i]) != bitsOf(product + y[i]) && wrong++ == 0)
      std::printf("z[%lld] = %.9g, expected %.9g\n",
                  static_cast<long long>(i), z[i], product + y[i]);
  }
  for (int64_t i = n; i < n + slack; ++i)
    overwritten += bitsOf(z[i]) != kPoison;
  check(wrong == 0, std::to_string(wrong) + " of " + std::to_string(n) +
                        " elements differ from a * x + y");
  check(overwritten == 0, std::to_string(overwritten) +
                              " elements past the view were written");

  // The shared library loads its nine kernels into this context.
  int prepare = tilec_mamba2_prepare();
  check(prepare == TILEC_MAMBA2_SUCCESS,
        std::string("tilec_mamba2_prepare: ") +
            tilec_mamba2_status_name(prepare) + " " +
            tilec_mamba2_last_error());
  cu.memFree(dx);
  cu.memFree(dy);
  cu.memFree(dz);
  return failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
  const bool noDriver = argc == 2 && std::strcmp(argv[1], "--no-driver") == 0;
  if (argc > 2 || (argc == 2 && !noDriver)) {
    std::fprintf(stderr, "usage: tilec_consumer [--no-driver]\n");
    return 2;
  }
  checkMamba2WithoutDriver();
  return noDriver ? runWithoutDriver() : runOnGpu();
}
