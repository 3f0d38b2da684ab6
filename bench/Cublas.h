//===- Cublas.h - cuBLAS loaded at run time ---------------------*- C++ -*-===//
//
// The few cuBLAS functions gemm_bench compares against, from a libcublas
// found at run time, so that the build needs no cuBLAS to link: the library
// named by TILEC_CUBLAS_LIBRARY, else libcublas.so.13 or libcublas.so on the
// loader's path, else the copy a PyTorch wheel installs (nvidia/cu13/lib or
// nvidia/cublas/lib of the `nvidia` package python3 finds). Types and
// prototypes come from the toolkit's cublas_api.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_BENCH_CUBLAS_H
#define TILEC_BENCH_CUBLAS_H

#include <cublas_api.h>

#include <dlfcn.h>
#include <glob.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tilec::bench {

struct Cublas {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetStream_v2) setStream = nullptr;
  // cublas_api.h overloads cublasGemmEx in C++; this is the C function.
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                    cublasOperation_t, int, int, int,
                                    const void *, const void *, cudaDataType,
                                    int, const void *, cudaDataType, int,
                                    const void *, void *, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);
  GemmEx gemmEx = nullptr;
  decltype(&::cublasGetVersion_v2) getVersion = nullptr;
  /// The file it was loaded from.
  std::string path;

  /// Loads the library and its functions; on failure returns false with
  /// `error` saying what was tried.
  bool load(std::string &error) {
    std::vector<std::string> candidates;
    if (const char *env = std::getenv("TILEC_CUBLAS_LIBRARY"); env && *env)
      candidates.push_back(env);
    candidates.push_back("libcublas.so.13");
    candidates.push_back("libcublas.so");
    for (const std::string &dir : pythonNvidiaDirs())
      for (const char *pattern : {"/cu13/lib/libcublas.so*",
                                  "/cublas/lib/libcublas.so*"})
        for (const std::string &file : globFiles(dir + pattern))
          candidates.push_back(file);
    error = "no cuBLAS library (set TILEC_CUBLAS_LIBRARY); tried:";
    for (const std::string &candidate : candidates) {
      // cuBLAS needs cuBLASLt; in a wheel's folder the loader may not look
      // beside it, so a libcublasLt there is loaded first.
      if (size_t slash = candidate.rfind('/'); slash != std::string::npos)
        for (const std::string &lt :
             globFiles(candidate.substr(0, slash) + "/libcublasLt.so*"))
          if (dlopen(lt.c_str(), RTLD_NOW | RTLD_GLOBAL))
            break;
      void *handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        const char *why = dlerror();
        error += "\n  " + candidate + ": " + (why ? why : "?");
        continue;
      }
      if (resolve(handle, "cublasCreate_v2", create) &&
          resolve(handle, "cublasDestroy_v2", destroy) &&
          resolve(handle, "cublasSetStream_v2", setStream) &&
          resolve(handle, "cublasGemmEx", gemmEx) &&
          resolve(handle, "cublasGetVersion_v2", getVersion)) {
        path = candidate;
        return true;
      }
      error += "\n  " + candidate + ": lacks a cuBLAS v2 function";
      dlclose(handle);
    }
    return false;
  }

private:
  template <typename F>
  static bool resolve(void *handle, const char *name, F &function) {
    function = reinterpret_cast<F>(dlsym(handle, name));
    return function != nullptr;
  }

  /// The directories of python3's `nvidia` namespace package (where the
  /// CUDA wheels PyTorch depends on put their libraries), if any.
  static std::vector<std::string> pythonNvidiaDirs() {
    std::vector<std::string> dirs;
    FILE *pipe = popen("python3 -c 'import nvidia; print(*nvidia.__path__, "
                       "sep=\"\\n\")' 2>/dev/null",
                       "r");
    if (!pipe)
      return dirs;
    char line[4096];
    while (std::fgets(line, sizeof line, pipe)) {
      std::string dir(line);
      while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r'))
        dir.pop_back();
      if (!dir.empty())
        dirs.push_back(dir);
    }
    pclose(pipe);
    return dirs;
  }

  static std::vector<std::string> globFiles(const std::string &pattern) {
    std::vector<std::string> files;
    glob_t found;
    if (glob(pattern.c_str(), 0, nullptr, &found) == 0)
      for (size_t i = 0; i < found.gl_pathc; ++i)
        files.push_back(found.gl_pathv[i]);
    globfree(&found);
    return files;
  }
};

} // namespace tilec::bench

#endif // TILEC_BENCH_CUBLAS_H
