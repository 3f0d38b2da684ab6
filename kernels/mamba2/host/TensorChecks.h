//===- TensorChecks.h - the per-tensor rule of the validation ---*- C++ -*-===//
//
// The check validate() (Mamba2.h) runs on each tensor, for the other entry
// points of the library (the decode step) to word their errors the same way.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_MAMBA2_TENSORCHECKS_H
#define TILEC_LIB_MAMBA2_TENSORCHECKS_H

#include "tilec/Mamba2/Mamba2.h"

namespace tilec::mamba2::detail {

/// `tensor` against the dtype and shape its role needs: non-null data, the
/// dtype, rank and shape, one non-negative stride per dimension, and for an
/// `output` no stride 0 along an extent above 1. `name` and `layout` (e.g.
/// "(batch, heads)") word the error, and `supported` ("f32 and bf16 are")
/// where more than `dtype` would do.
Status checkTensorArgument(const char *name, const Tensor &tensor, DType dtype,
                           const std::vector<int64_t> &shape,
                           const char *layout, bool output,
                           const char *supported = nullptr);

} // namespace tilec::mamba2::detail

#endif // TILEC_LIB_MAMBA2_TENSORCHECKS_H
