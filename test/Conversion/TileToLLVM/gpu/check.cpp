// Runs the kernels of checks.mlir (compiled to a cubin by run.sh) on a GPU
// through the driver API and compares them with host references.
#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *s = nullptr;
    cuGetErrorString(r, &s);
    std::fprintf(stderr, "%s: %s\n", what, s ? s : "?");
    std::exit(2);
  }
}

static uint16_t toBf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return uint16_t(u >> 16);
}
static float fromBf16(uint16_t h) {
  uint32_t u = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// cvt.rna.tf32.f32: round to nearest, ties away, keep 10 mantissa bits.
static float toTf32(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u = (u + 0x1000u) & 0xffffe000u;
  std::memcpy(&f, &u, 4);
  return f;
}

struct Args {
  std::vector<std::vector<char>> storage;
  std::vector<void *> pointers;
  template <typename T> void add(T value) {
    std::vector<char> bytes(sizeof(T));
    std::memcpy(bytes.data(), &value, sizeof(T));
    storage.push_back(bytes);
  }
  // A row-major view: pointer, sizes, strides.
  void view(CUdeviceptr p, std::vector<int64_t> sizes) {
    add<uint64_t>(p);
    for (int64_t s : sizes)
      add<int64_t>(s);
    int64_t stride = 1;
    std::vector<int64_t> strides(sizes.size());
    for (int d = int(sizes.size()) - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= sizes[d];
    }
    for (int64_t s : strides)
      add<int64_t>(s);
  }
  void **get() {
    pointers.clear();
    for (auto &s : storage)
      pointers.push_back(s.data());
    return pointers.data();
  }
};

template <typename T> static CUdeviceptr upload(const std::vector<T> &v) {
  CUdeviceptr p;
  check(cuMemAlloc(&p, v.size() * sizeof(T)), "alloc");
  check(cuMemcpyHtoD(p, v.data(), v.size() * sizeof(T)), "upload");
  return p;
}
template <typename T> static std::vector<T> download(CUdeviceptr p, size_t n) {
  std::vector<T> v(n);
  check(cuMemcpyDtoH(v.data(), p, n * sizeof(T)), "download");
  return v;
}

static CUmodule module;
static int failures = 0;

/// Launches with the kernel's 32 * num_warps threads and 48 KiB of dynamic
/// shared memory (more than any of these kernels' tile.shared_bytes).
static void launch(const char *name, unsigned gx, unsigned gy, unsigned threads,
                   Args &args) {
  CUfunction f;
  check(cuModuleGetFunction(&f, module, name), name);
  check(cuLaunchKernel(f, gx, gy, 1, threads, 1, 1, 48 * 1024, nullptr,
                       args.get(), nullptr),
        name);
  check(cuCtxSynchronize(), name);
}

/// The kernel's 32 * num_warps threads: its .maxntid.
static unsigned threadsOf(CUfunction f) {
  int threads = 0;
  check(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f),
        "max threads");
  return unsigned(threads);
}

static void compare(const char *what, const std::vector<float> &got,
                    const std::vector<float> &want, float tol) {
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    bool same = (std::isnan(want[i]) && std::isnan(got[i])) ||
                got[i] == want[i] ||
                std::fabs(got[i] - want[i]) <= tol * (1 + std::fabs(want[i]));
    if (!same && bad++ < 5)
      std::printf("  %s[%zu] = %g, want %g\n", what, i, got[i], want[i]);
  }
  std::printf("%s %s (%zu values)\n", bad ? "FAIL" : "ok  ", what, want.size());
  failures += bad != 0;
}

static float value(int i) { return float((i * 37) % 19) / 8.0f - 1.0f; }

int main(int argc, char **argv) {
  check(cuInit(0), "init");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "device");
  CUcontext ctx;
  check(cuDevicePrimaryCtxRetain(&ctx, dev), "ctx");
  check(cuCtxSetCurrent(ctx), "ctx");
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string image = ss.str();
  check(cuModuleLoadData(&module, image.data()), "module");
  CUfunction f;
  const char *names[] = {"mma_bf16", "mma_tf32", "mma_f32", "load_scan",
                         "movement", "narrow"};
  for (const char *n : names) {
    check(cuModuleGetFunction(&f, module, n), n);
    check(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             48 * 1024),
          "smem");
  }

  { // mma_bf16: 64x32 @ 32x48
    int M = 64, K = 32, N = 48;
    std::vector<uint16_t> a(M * K), b(K * N);
    std::vector<float> c(M * N), want(M * N);
    for (int i = 0; i < M * K; ++i) a[i] = toBf16(value(i));
    for (int i = 0; i < K * N; ++i) b[i] = toBf16(value(3 * i + 1));
    for (int i = 0; i < M * N; ++i) c[i] = value(5 * i);
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double s = c[m * N + n];
        for (int k = 0; k < K; ++k)
          s += double(fromBf16(a[m * K + k])) * fromBf16(b[k * N + n]);
        want[m * N + n] = float(s);
      }
    CUdeviceptr da = upload(a), db = upload(b), dc = upload(c);
    Args args;
    args.view(da, {M, K});
    args.view(db, {K, N});
    args.view(dc, {M, N});
    launch("mma_bf16", 1, 1, 128, args);
    compare("mma_bf16", download<float>(dc, M * N), want, 1e-5f);
  }
  { // mma_tf32: 20x12 @ 12x6, padded
    int M = 20, K = 12, N = 6;
    std::vector<float> a(M * K), b(K * N), c(M * N), want(M * N);
    for (int i = 0; i < M * K; ++i) a[i] = value(i) * 1.0001f;
    for (int i = 0; i < K * N; ++i) b[i] = value(7 * i + 2) * 0.9997f;
    for (int i = 0; i < M * N; ++i) c[i] = value(11 * i);
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        double s = c[m * N + n];
        for (int k = 0; k < K; ++k)
          s += double(toTf32(a[m * K + k])) * toTf32(b[k * N + n]);
        want[m * N + n] = float(s);
      }
    CUdeviceptr da = upload(a), db = upload(b), dc = upload(c);
    Args args;
    args.view(da, {M, K});
    args.view(db, {K, N});
    args.view(dc, {M, N});
    launch("mma_tf32", 1, 1, 64, args);
    compare("mma_tf32", download<float>(dc, M * N), want, 1e-5f);
  }
  { // mma_f32: 8x5 @ 5x8
    int M = 8, K = 5, N = 8;
    std::vector<float> a(M * K), b(K * N), c(M * N), want(M * N);
    for (int i = 0; i < M * K; ++i) a[i] = value(i) * 1.37f;
    for (int i = 0; i < K * N; ++i) b[i] = value(7 * i + 2) * 0.71f;
    for (int i = 0; i < M * N; ++i) c[i] = value(11 * i);
    for (int m = 0; m < M; ++m)
      for (int n = 0; n < N; ++n) {
        float s = c[m * N + n];
        for (int k = 0; k < K; ++k)
          s = std::fma(a[m * K + k], b[k * N + n], s);
        want[m * N + n] = s;
      }
    CUdeviceptr da = upload(a), db = upload(b), dc = upload(c);
    Args args;
    args.view(da, {M, K});
    args.view(db, {K, N});
    args.view(dc, {M, N});
    launch("mma_f32", 1, 1, 32, args);
    compare("mma_f32", download<float>(dc, M * N), want, 0.0f);
  }
  { // load_scan on a ragged 37x21 view with 16x8 tiles.
    int R = 37, C = 21, TI = 3, TJ = 3;
    std::vector<float> x(R * C);
    for (int i = 0; i < R * C; ++i) x[i] = value(i) + 0.25f * (i % 3);
    const float sentinel = -12345.0f;
    std::vector<float> y(C * R, sentinel), z(R * C, sentinel),
        s(R * TJ, sentinel);
    std::vector<float> wy(C * R), wz(R * C), ws(R * TJ);
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c)
        wy[c * R + r] = x[r * C + c];
    for (int r = 0; r < R; ++r)
      for (int j = 0; j < TJ; ++j) {
        float m = -INFINITY;
        for (int c = 8 * j; c < std::min(C, 8 * j + 8); ++c)
          m = std::max(m, x[r * C + c]);
        ws[r * TJ + j] = m;
      }
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < R; ++r) {
        float acc = 0;
        for (int k = 16 * (r / 16); k <= r; ++k)
          acc += x[k * C + c];
        wz[r * C + c] = acc;
      }
    CUdeviceptr dx = upload(x), dy = upload(y), dz = upload(z),
                ds = upload(s);
    Args args;
    args.view(dx, {R, C});
    args.view(dy, {C, R});
    args.view(dz, {R, C});
    args.view(ds, {R, TJ});
    launch("load_scan", TI, TJ, 64, args);
    compare("load_order_transpose", download<float>(dy, C * R), wy, 0.0f);
    compare("reduce_max_neg_inf_padding", download<float>(ds, R * TJ), ws,
            0.0f);
    compare("cumsum", download<float>(dz, R * C), wz, 0.0f);
  }
  { // movement
    std::vector<float> x(64), o(5 * 64, -7.0f), want(5 * 64, -7.0f);
    for (int i = 0; i < 64; ++i) x[i] = value(i) * 3.0f;
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 8; ++c) {
        want[0 * 64 + r * 8 + c] = x[c * 8 + r];
        want[1 * 64 + r * 8 + c] = x[3 * 8 + c];
        want[4 * 64 + r * 8 + c] = std::exp2(x[r * 8 + c]);
      }
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 8; ++c)
        want[2 * 64 + r * 8 + c] = x[(4 + r) * 8 + c];
    CUdeviceptr dx = upload(x), dout = upload(o);
    Args args;
    args.view(dx, {8, 8});
    args.view(dout, {5, 8, 8});
    launch("movement", 1, 1, 32, args);
    compare("permute_broadcast_extract_exp2", download<float>(dout, 5 * 64),
            want, 3e-7f);
  }
  { // narrow types
    std::vector<float> x(256), o(3 * 256, -7.0f), r(16, -7.0f), want(3 * 256),
        wr(16);
    for (int i = 0; i < 256; ++i) x[i] = value(i);
    x[5] = NAN;  // saturating conversion: NaN -> 0
    std::vector<int32_t> n(256, 7), wn(256);
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        float s = 0;  // exact: multiples of 1/64, small
        for (int k = 0; k < 16; ++k)
          s += (i * 16 + k == 5 || k * 16 + j == 5)
                   ? NAN
                   : x[i * 16 + k] * x[k * 16 + j];
        want[i * 16 + j] = s;
        float c = 0;
        for (int k = 0; k <= j; ++k)
          c += x[i * 16 + k];
        want[256 + i * 16 + j] = fromBf16(toBf16(c));
        bool keep = x[2 * 16 + j] > 0;
        want[512 + i * 16 + j] = keep ? x[i * 16 + j] : -x[i * 16 + j];
        float v = x[i * 16 + j] * 1.0e10f;
        wn[i * 16 + j] = std::isnan(v) ? 0
                         : v >= 2147483648.0f ? INT32_MAX
                         : v < -2147483648.0f ? INT32_MIN
                                              : int32_t(v);
      }
    for (int j = 0; j < 16; ++j) {
      float s = 0;
      for (int i = 0; i < 16; ++i)
        s += x[i * 16 + j];
      wr[j] = fromBf16(toBf16(s));
    }
    CUdeviceptr dx = upload(x), dout = upload(o), dr = upload(r),
                dn = upload(n);
    Args args;
    args.view(dx, {16, 16});
    args.view(dout, {3, 16, 16});
    args.view(dr, {16});
    args.view(dn, {16, 16});
    launch("narrow", 1, 1, 64, args);
    compare("mma_f16_cumsum_bf16_where_i1", download<float>(dout, 3 * 256),
            want, 0.0f);
    compare("reduce_sum_bf16", download<float>(dr, 16), wr, 0.0f);
    std::vector<int32_t> gn = download<int32_t>(dn, 256);
    std::vector<float> gotn(gn.begin(), gn.end()), wantn(wn.begin(), wn.end());
    compare("fptosi_sat", gotn, wantn, 0.0f);
  }
  if (argc > 2) { // chunk_cumsum (kernels/mamba2) with CHUNK = 64, BLOCK_H = 8
    CUmodule m;
    std::ifstream in2(argv[2], std::ios::binary);
    std::stringstream ss2;
    ss2 << in2.rdbuf();
    std::string image2 = ss2.str();
    check(cuModuleLoadData(&m, image2.data()), "chunk_cumsum module");
    CUfunction fn;
    check(cuModuleGetFunction(&fn, m, "chunk_cumsum"), "chunk_cumsum");
    int B = 2, L = 150, H = 12, CH = 64, BH = 8, NC = (L + CH - 1) / CH;
    std::vector<float> dt(B * L * H), A(H), G(B * H * NC * CH, -7.0f),
        want(B * H * NC * CH);
    for (int i = 0; i < B * L * H; ++i) dt[i] = 0.01f * float((i * 7) % 23);
    for (int h = 0; h < H; ++h) A[h] = -0.5f - 0.125f * h;
    const float log2e = 1.44269504088896340736f;
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h)
        for (int c = 0; c < NC; ++c) {
          float aLog2 = A[h] * log2e, acc = 0;
          for (int t = 0; t < CH; ++t) {
            int s = c * CH + t;
            float d = s < L ? dt[(b * L + s) * H + h] : 0.0f;
            acc += d * aLog2;
            want[((b * H + h) * NC + c) * CH + t] = acc;
          }
        }
    CUdeviceptr ddt = upload(dt), dA = upload(A), dG = upload(G);
    Args args;
    args.view(ddt, {B, L, H});
    args.view(dA, {H});
    args.view(dG, {B, H, NC, CH});
    check(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             48 * 1024),
          "smem");
    check(cuLaunchKernel(fn, NC, B, (H + BH - 1) / BH, threadsOf(fn), 1, 1,
                         48 * 1024,
                         nullptr, args.get(), nullptr),
          "chunk_cumsum");
    check(cuCtxSynchronize(), "chunk_cumsum");
    compare("mamba2_chunk_cumsum", download<float>(dG, G.size()), want, 0.0f);
  }
  if (argc > 3) { // fwd_pass_state, CHUNK 64, BLOCK_P 32, BLOCK_N 16, BLOCK_K 32
    CUmodule m;
    std::ifstream in3(argv[3], std::ios::binary);
    std::stringstream ss3;
    ss3 << in3.rdbuf();
    std::string image3 = ss3.str();
    check(cuModuleLoadData(&m, image3.data()), "fwd_pass_state module");
    CUfunction fn;
    check(cuModuleGetFunction(&fn, m, "fwd_pass_state"), "fwd_pass_state");
    int Bt = 2, L = 150, H = 4, Gr = 2, P = 40, N = 24, CH = 64, BP = 32,
        BN = 16, NC = (L + CH - 1) / CH;
    int numP = (P + BP - 1) / BP, numN = (N + BN - 1) / BN;
    std::vector<uint16_t> x(Bt * L * H * P), Bm(Bt * L * Gr * N);
    std::vector<float> dt(Bt * L * H), G(Bt * H * NC * CH), init(Bt * H * P * N);
    for (size_t i = 0; i < x.size(); ++i) x[i] = toBf16(value(int(i)) * 0.5f);
    for (size_t i = 0; i < Bm.size(); ++i) Bm[i] = toBf16(value(int(3 * i + 1)));
    for (size_t i = 0; i < dt.size(); ++i) dt[i] = 0.02f * float((i * 7) % 23);
    for (int bh = 0; bh < Bt * H; ++bh)
      for (int c = 0; c < NC; ++c)
        for (int t = 0; t < CH; ++t)  // falling along each chunk
          G[(bh * NC + c) * CH + t] = -0.03f * float(t + 1) * float(1 + bh % 3);
    for (size_t i = 0; i < init.size(); ++i) init[i] = value(int(5 * i)) * 0.25f;
    std::vector<float> states(Bt * NC * H * P * N, -7.0f), fin(init.size(), -7.0f);
    std::vector<float> wantStates(states.size()), wantFinal(fin.size());
    for (int b = 0; b < Bt; ++b)
      for (int h = 0; h < H; ++h) {
        int g = h / (H / Gr);
        for (int p = 0; p < P; ++p)
          for (int n = 0; n < N; ++n) {
            double hs = init[((b * H + h) * P + p) * N + n];
            for (int c = 0; c < NC; ++c) {
              wantStates[(((b * NC + c) * H + h) * P + p) * N + n] = float(hs);
              const float *gc = &G[((b * H + h) * NC + c) * CH];
              double sum = 0;
              for (int t = 0; t < CH; ++t) {
                int l = c * CH + t;
                if (l >= L)
                  continue;
                sum += double(fromBf16(x[((b * L + l) * H + h) * P + p])) *
                       fromBf16(Bm[((b * L + l) * Gr + g) * N + n]) *
                       dt[(b * L + l) * H + h] * std::exp2(gc[CH - 1] - gc[t]);
              }
              hs = std::exp2(double(gc[CH - 1])) * hs + sum;
            }
            wantFinal[((b * H + h) * P + p) * N + n] = float(hs);
          }
      }
    CUdeviceptr dx = upload(x), dB = upload(Bm), ddt = upload(dt),
                dG = upload(G), dinit = upload(init), dst = upload(states),
                dfin = upload(fin);
    Args args;
    args.view(dx, {Bt, L, H, P});
    args.view(dB, {Bt, L, Gr, N});
    args.view(ddt, {Bt, L, H});
    args.view(dG, {Bt, H, NC, CH});
    args.view(dinit, {Bt, H, P, N});
    args.add<int32_t>(1);
    args.view(dst, {Bt, NC, H, P, N});
    args.view(dfin, {Bt, H, P, N});
    check(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             48 * 1024),
          "smem");
    check(cuLaunchKernel(fn, numP * numN, H, Bt, threadsOf(fn), 1, 1, 48 * 1024,
                         nullptr, args.get(), nullptr),
          "fwd_pass_state");
    check(cuCtxSynchronize(), "fwd_pass_state");
    // tf32 operands: a few parts in 10^4 of the largest value.
    float scale = 0;
    for (float v : wantFinal)
      scale = std::max(scale, std::fabs(v));
    auto near = [&](const char *what, const std::vector<float> &got,
                    const std::vector<float> &want) {
      int bad = 0;
      for (size_t i = 0; i < want.size(); ++i)
        if (!(std::fabs(got[i] - want[i]) <= 2e-3f * scale) && bad++ < 5)
          std::printf("  %s[%zu] = %g, want %g\n", what, i, got[i], want[i]);
      std::printf("%s %s (%zu values, scale %g)\n", bad ? "FAIL" : "ok  ", what,
                  want.size(), scale);
      failures += bad != 0;
    };
    near("mamba2_fwd_pass_state_states", download<float>(dst, states.size()),
         wantStates);
    near("mamba2_fwd_pass_state_final", download<float>(dfin, fin.size()),
         wantFinal);
  }
  if (argc > 4) { // compute_out, CHUNK 64, BLOCK_M/K/P 32, BLOCK_N 16
    CUmodule m;
    std::ifstream in4(argv[4], std::ios::binary);
    std::stringstream ss4;
    ss4 << in4.rdbuf();
    std::string image4 = ss4.str();
    check(cuModuleLoadData(&m, image4.data()), "compute_out module");
    CUfunction fn;
    check(cuModuleGetFunction(&fn, m, "compute_out"), "compute_out");
    int Bt = 2, L = 150, H = 4, Gr = 2, P = 40, N = 24, CH = 64, BM = 32,
        BP = 32, NC = (L + CH - 1) / CH;
    int numP = (P + BP - 1) / BP;
    std::vector<uint16_t> x(Bt * L * H * P), Bm(Bt * L * Gr * N),
        Cm(Bt * L * Gr * N);
    std::vector<float> dt(Bt * L * H), G(Bt * H * NC * CH), D(H),
        st(Bt * NC * H * P * N), y(Bt * L * H * P, -7.0f), want(y.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = toBf16(value(int(i)) * 0.5f);
    for (size_t i = 0; i < Bm.size(); ++i) Bm[i] = toBf16(value(int(3 * i + 1)));
    for (size_t i = 0; i < Cm.size(); ++i) Cm[i] = toBf16(value(int(5 * i + 2)));
    for (size_t i = 0; i < dt.size(); ++i) dt[i] = 0.02f * float((i * 7) % 23);
    for (int bh = 0; bh < Bt * H; ++bh)
      for (int c = 0; c < NC; ++c)
        for (int t = 0; t < CH; ++t)
          G[(bh * NC + c) * CH + t] = -0.03f * float(t + 1) * float(1 + bh % 3);
    for (int h = 0; h < H; ++h) D[h] = 0.5f + 0.25f * h;
    for (size_t i = 0; i < st.size(); ++i) st[i] = value(int(7 * i)) * 0.25f;
    float scale = 0;
    for (int b = 0; b < Bt; ++b)
      for (int h = 0; h < H; ++h) {
        int g = h / (H / Gr);
        for (int l = 0; l < L; ++l) {
          int c = l / CH, i = l % CH;
          const float *gc = &G[((b * H + h) * NC + c) * CH];
          for (int p = 0; p < P; ++p) {
            double fromState = 0;
            for (int n = 0; n < N; ++n)
              fromState += double(fromBf16(Cm[((b * L + l) * Gr + g) * N + n])) *
                           st[(((b * NC + c) * H + h) * P + p) * N + n];
            double local = 0;
            for (int j = 0; j <= i; ++j) {
              int lj = c * CH + j;
              if (lj >= L)
                break;
              double cb = 0;
              for (int n = 0; n < N; ++n)
                cb += double(fromBf16(Cm[((b * L + l) * Gr + g) * N + n])) *
                      fromBf16(Bm[((b * L + lj) * Gr + g) * N + n]);
              local += cb * std::exp2(double(gc[i]) - gc[j]) *
                       dt[(b * L + lj) * H + h] *
                       fromBf16(x[((b * L + lj) * H + h) * P + p]);
            }
            double v = std::exp2(double(gc[i])) * fromState + local +
                       double(D[h]) * fromBf16(x[((b * L + l) * H + h) * P + p]);
            want[((b * L + l) * H + h) * P + p] = float(v);
            scale = std::max(scale, float(std::fabs(v)));
          }
        }
      }
    CUdeviceptr dx = upload(x), dB = upload(Bm), dC = upload(Cm),
                ddt = upload(dt), dG = upload(G), dD = upload(D),
                dst = upload(st), dy = upload(y);
    Args args;
    args.view(dx, {Bt, L, H, P});
    args.view(dB, {Bt, L, Gr, N});
    args.view(dC, {Bt, L, Gr, N});
    args.view(ddt, {Bt, L, H});
    args.view(dG, {Bt, H, NC, CH});
    args.view(dD, {H});
    args.view(dst, {Bt, NC, H, P, N});
    args.view(dy, {Bt, L, H, P});
    check(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             48 * 1024),
          "smem");
    check(cuLaunchKernel(fn, (NC * CH / BM) * numP, H, Bt, threadsOf(fn), 1, 1,
                         48 * 1024, nullptr, args.get(), nullptr),
          "compute_out");
    check(cuCtxSynchronize(), "compute_out");
    std::vector<float> got = download<float>(dy, y.size());
    int bad = 0;
    for (size_t i = 0; i < want.size(); ++i)
      if (!(std::fabs(got[i] - want[i]) <= 2e-3f * scale) && bad++ < 5)
        std::printf("  compute_out[%zu] = %g, want %g\n", i, got[i], want[i]);
    std::printf("%s mamba2_compute_out (%zu values, scale %g, %u threads)\n",
                bad ? "FAIL" : "ok  ", want.size(), scale, threadsOf(fn));
    failures += bad != 0;
  }
  std::printf("%d failures\n", failures);
  return failures != 0;
}
