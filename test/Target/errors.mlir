// Errors of the target stages: each is reported and exits non-zero.

// RUN: not tilec %s --emit=ptx --target=sm_70 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: tilec: --target: unknown target 'sm_70' (supported: sm_80, {{.*}}sm_90a, sm_100a)

// RUN: not tilec %s --emit=fatbin --target=sm_80,sm_80 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: tilec: --target: target 'sm_80' given twice

// RUN: not tilec %s --emit=ptx --target=sm_80,sm_90 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not tilec %s --emit=cubin --target=sm_80,sm_90 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not tilec %s --emit=llvm-ir --target=sm_80,sm_90a 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: tilec: --emit={{ptx|cubin|llvm-ir}} writes one target's code; got --target=sm_80,sm_90

// RUN: not tilec %s --emit=fatbin -o /nonexistent/dir/out.fatbin 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not tilec %s --emit=ptx -o /nonexistent/dir/out.ptx 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: tilec: cannot open output file '/nonexistent/dir/out.{{fatbin|ptx}}'

// RUN: not tilec %s --emit=cubin --ptxas=/nonexistent/ptxas -o %t.cubin 2>&1 | FileCheck %s --check-prefix=NOPTXAS
// NOPTXAS: error: ptxas not found at '/nonexistent/ptxas' (pass --ptxas=<path>)

// ptxas's own message is shown when it fails, and no output is left behind.
// RUN: rm -f %t.fatbin
// RUN: not tilec %s --emit=fatbin --ptxas=%S/Inputs/failing-ptxas -o %t.fatbin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: not test -e %t.fatbin
// PTXAS: error: ptxas failed with exit status 255: {{.*}}failing-ptxas -arch=sm_80 -O3
// PTXAS-NEXT: ptxas fatal   : Unresolved extern function 'missing'

// RUN: not tilec %s --emit=fatbin --fatbinary=/nonexistent/fatbinary --ptxas=%S/Inputs/passing-ptxas -o %t.fatbin 2>&1 | FileCheck %s --check-prefix=NOFATBINARY
// NOFATBINARY: error: fatbinary not found at '/nonexistent/fatbinary'

// Launchers need the tile signature, which a lowered module has lost.
// RUN: not tilec %s --emit=cpp -o %t 2>&1 | FileCheck %s --check-prefix=CPP
// CPP: error: --emit=cpp needs tile kernels
// RUN: not tilec %s --emit=cpp 2>&1 | FileCheck %s --check-prefix=CPPOUT
// CPPOUT: tilec: --emit=cpp writes two files; give their base name with -o

module {
  llvm.func @k(%x: !llvm.ptr<1>) attributes {nvvm.kernel,
      tile.num_warps = 1 : i32, tile.shared_bytes = 0 : i64} {
    llvm.return
  }
}
