//===- PrintConversionPlans.cpp - how each conversion lowers ----*- C++ -*-===//

#include "tilec/Dialect/TileGPU/Transforms/Passes.h"

namespace mlir::tilegpu {
#define GEN_PASS_DEF_TILEGPUPRINTCONVERSIONPLANS
#include "tilec/Dialect/TileGPU/Transforms/Passes.h.inc"
} // namespace mlir::tilegpu

using namespace mlir;
using namespace mlir::tilegpu;

namespace {

struct PrintConversionPlansPass
    : tilegpu::impl::TileGPUPrintConversionPlansBase<PrintConversionPlansPass> {
  void runOnOperation() override {
    getOperation().walk([&](ConvertLayoutOp op) {
      auto type = cast<RankedTensorType>(op.getType());
      unsigned bytes = getElementBytes(type.getElementType());
      llvm::Expected<tilec::ConversionPlan> plan = tilec::planConversion(
          getDistributedLayout(op.getSource().getType())
              .getLinearLayout(type.getShape()),
          getDistributedLayout(type).getLinearLayout(type.getShape()), bytes);
      if (!plan) {
        op.emitOpError() << "cannot be planned: "
                         << llvm::toString(plan.takeError());
        signalPassFailure();
        return;
      }
      InFlightDiagnostic remark = op.emitRemark();
      switch (plan->kind) {
      case tilec::ConversionPlan::Kind::Free:
        remark << "free";
        break;
      case tilec::ConversionPlan::Kind::RegisterPermutation:
        remark << "register permutation of " << plan->srcRegisterOf.size()
               << " registers";
        break;
      case tilec::ConversionPlan::Kind::WarpShuffle:
        remark << "warp shuffles: " << plan->shuffles.size() << " rounds";
        break;
      case tilec::ConversionPlan::Kind::SharedMemory: {
        int64_t elements = plan->shared->layout.getTotalOutBits() < 63
                               ? int64_t(1)
                                     << plan->shared->layout.getTotalOutBits()
                               : 0;
        const tilec::SharedStaging &staging = *plan->shared;
        remark << "shared memory: " << elements * bytes << " bytes, "
               << staging.storeVectorElements << "-element stores, ";
        if (staging.ldmatrix)
          remark << "ldmatrix.x" << staging.ldmatrix->numMatrices
                 << (staging.ldmatrix->transposed ? ".trans" : "");
        else
          remark << staging.loadVectorElements << "-element loads";
        break;
      }
      }
    });
  }
};

} // namespace
