// tilec --help lists tilec's options and the MLIR debugging options it
// applies, not the options libLLVM registers for its backends and passes.

// RUN: tilec --help | FileCheck %s --ignore-case --implicit-check-not=aarch64 --implicit-check-not=amdgpu --implicit-check-not=x86 --implicit-check-not=polly --implicit-check-not=wasm --implicit-check-not=--print-after-all
// CHECK: USAGE: tilec [options] <kernel.mlir>
// CHECK-LABEL: Generic Options:
// CHECK: --help
// CHECK: --version
// CHECK-LABEL: MLIR debugging options (passed to MLIR):
// CHECK: --mlir-disable-threading
// CHECK: --mlir-pass-pipeline-crash-reproducer=<string>
// CHECK: --mlir-print-ir-after-all
// CHECK: --mlir-print-ir-before=<pass-arg>
// CHECK: --mlir-timing
// CHECK-LABEL: tilec options:
// CHECK: -D <NAME=VALUE>
// CHECK: --emit=<value>
// CHECK: =cpp
// CHECK: --fatbinary=<path>
// CHECK: --kernel-suffix=<suffix>
// CHECK: --libdevice=<path>
// CHECK: -o <filename>
// CHECK: --ptxas=<path>
// CHECK: --target=<targets>

tile.kernel @empty() {
  tile.return
}
