//===- KernelViews.h - tensor descriptors as launcher views -----*- C++ -*-===//
//
// The generated launchers take tilec_view_<dtype>_<rank>d structs; the GPU
// paths build them from validated Tensors here.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2GPU_KERNELVIEWS_H
#define TILEC_LIB_MAMBA2GPU_KERNELVIEWS_H

#include "tilec/Mamba2/Mamba2.h"

#include <cstdint>
#include <iterator>
#include <vector>

namespace tilec::mamba2::gpu {

/// The view of `data` with `shape` and `strides` (in elements), which have
/// at least View's rank. Pointers, not vectors: a forward call builds a dozen
/// views and none of them should cost a heap allocation.
template <typename View>
View makeView(void *data, const int64_t *shape, const int64_t *strides) {
  View view;
  view.data = static_cast<decltype(view.data)>(data);
  for (size_t d = 0; d < std::size(view.shape); ++d) {
    view.shape[d] = shape[d];
    view.strides[d] = strides[d];
  }
  return view;
}

/// The view of a Tensor of View's rank and element type.
template <typename View> View makeView(const Tensor &t) {
  return makeView<View>(t.data, t.shape.data(), t.strides.data());
}

} // namespace tilec::mamba2::gpu

#endif // TILEC_LIB_MAMBA2GPU_KERNELVIEWS_H
