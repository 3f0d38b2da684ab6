//===- CaseFile.cpp - GPU-vs-interpreter test cases -------------*- C++ -*-===//

#include "tilec/Golden/CaseFile.h"

#include <cmath>
#include <cstring>
#include <fstream>

using namespace tilec::golden;

namespace {
constexpr char kMagic[] = "TILECASE1\n";

class Writer {
public:
  void u64(uint64_t v) { raw(&v, sizeof v); }
  void i64(int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void bytes(const std::vector<uint8_t> &b) {
    u64(b.size());
    raw(b.data(), b.size());
  }
  void str(const std::string &s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void raw(const void *p, size_t n) {
    const auto *c = static_cast<const uint8_t *>(p);
    out.insert(out.end(), c, c + n);
  }
  std::vector<uint8_t> out;
};

class Reader {
public:
  explicit Reader(std::vector<uint8_t> data) : data(std::move(data)) {}
  bool raw(void *p, size_t n) {
    if (n > data.size() - pos)
      return false;
    std::memcpy(p, data.data() + pos, n);
    pos += n;
    return true;
  }
  bool u64(uint64_t &v) { return raw(&v, sizeof v); }
  bool i64(int64_t &v) { return raw(&v, sizeof v); }
  bool f64(double &v) { return raw(&v, sizeof v); }
  bool bytes(std::vector<uint8_t> &b) {
    uint64_t n;
    if (!u64(n) || n > data.size() - pos)
      return false;
    b.assign(data.begin() + pos, data.begin() + pos + n);
    pos += n;
    return true;
  }
  bool str(std::string &s) {
    std::vector<uint8_t> b;
    if (!bytes(b))
      return false;
    s.assign(b.begin(), b.end());
    return true;
  }
  bool atEnd() const { return pos == data.size(); }

private:
  std::vector<uint8_t> data;
  size_t pos = 0;
};

float halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float value;
  if (exp == 0)
    value = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31)
    value = mant ? NAN : INFINITY;
  else
    value = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -value : value;
}
} // namespace

double tilec::golden::loadFloat(interp::DType type, const uint8_t *bytes,
                                size_t i) {
  switch (type) {
  case interp::DType::F32: {
    float f;
    std::memcpy(&f, bytes + 4 * i, 4);
    return f;
  }
  case interp::DType::F16: {
    uint16_t h;
    std::memcpy(&h, bytes + 2 * i, 2);
    return halfToFloat(h);
  }
  case interp::DType::BF16: {
    uint16_t h;
    std::memcpy(&h, bytes + 2 * i, 2);
    uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  default:
    return 0;
  }
}

bool tilec::golden::writeCase(const std::string &path, const Case &c,
                              std::string &error) {
  Writer w;
  w.raw(kMagic, sizeof kMagic - 1);
  w.str(c.name);
  w.str(c.kernel);
  w.u64(c.blockThreads);
  w.u64(c.sharedBytes);
  for (int64_t g : c.grid)
    w.i64(g);
  w.f64(c.tolerance);
  w.bytes(c.fatbin);
  w.u64(c.args.size());
  for (const CaseArg &arg : c.args) {
    w.u64(arg.isView);
    if (!arg.isView) {
      w.bytes(arg.scalar);
      continue;
    }
    w.u64(static_cast<uint64_t>(arg.elemType));
    w.u64(arg.shape.size());
    for (size_t d = 0; d < arg.shape.size(); ++d) {
      w.i64(arg.shape[d]);
      w.i64(arg.strides[d]);
    }
    w.bytes(arg.initial);
    w.bytes(arg.expected);
  }
  std::ofstream file(path, std::ios::binary);
  file.write(reinterpret_cast<const char *>(w.out.data()),
             static_cast<std::streamsize>(w.out.size()));
  if (!file) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

bool tilec::golden::readCase(const std::string &path, Case &c,
                             std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open " + path;
    return false;
  }
  std::vector<uint8_t> data((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
  Reader r(std::move(data));
  char magic[sizeof kMagic - 1];
  uint64_t blockThreads = 0, numArgs = 0;
  bool ok = r.raw(magic, sizeof magic) &&
            std::memcmp(magic, kMagic, sizeof magic) == 0 && r.str(c.name) &&
            r.str(c.kernel) && r.u64(blockThreads) && r.u64(c.sharedBytes) &&
            r.i64(c.grid[0]) && r.i64(c.grid[1]) && r.i64(c.grid[2]) &&
            r.f64(c.tolerance) && r.bytes(c.fatbin) && r.u64(numArgs) &&
            numArgs < 1024;
  c.blockThreads = static_cast<uint32_t>(blockThreads);
  c.args.clear();
  for (uint64_t i = 0; ok && i < numArgs; ++i) {
    CaseArg arg;
    uint64_t isView = 0, elemType = 0, rank = 0;
    ok = r.u64(isView);
    arg.isView = isView != 0;
    if (ok && !arg.isView) {
      ok = r.bytes(arg.scalar);
    } else if (ok) {
      ok = r.u64(elemType) &&
           elemType <= static_cast<uint64_t>(interp::kLastDType) &&
           r.u64(rank) && rank <= 8;
      arg.elemType = static_cast<interp::DType>(elemType);
      for (uint64_t d = 0; ok && d < rank; ++d) {
        int64_t size = 0, stride = 0;
        ok = r.i64(size) && r.i64(stride);
        arg.shape.push_back(size);
        arg.strides.push_back(stride);
      }
      ok = ok && r.bytes(arg.initial) && r.bytes(arg.expected) &&
           arg.initial.size() == arg.expected.size();
    }
    c.args.push_back(std::move(arg));
  }
  if (!ok || !r.atEnd()) {
    error = path + " is not a tilec case file (or is truncated)";
    return false;
  }
  return true;
}
