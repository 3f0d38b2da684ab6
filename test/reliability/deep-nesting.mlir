// c07, c07b: 5,000 nested scf.if and 10,000 nested '[' in an attribute
// overflowed the parser's stack (SIGSEGV). tilec and tile-opt now reject
// nesting deeper than 1024 brackets before parsing, at the first bracket
// too deep; Inputs/ holds the two reproducers as found.

// RUN: not tilec %S/Inputs/deep-scf-if.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCF
// RUN: not tile-opt %S/Inputs/deep-scf-if.mlir 2>&1 | FileCheck %s --check-prefix=SCF
// SCF-LABEL: deep-scf-if.mlir:1026:11: error: the input nests deeper than 1024 levels of brackets; tile kernels need a few
// SCF-NOT: error

// RUN: not tilec %S/Inputs/deep-attribute.mlir --emit=ptx --target=sm_90 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ATTR
// RUN: not tile-opt %S/Inputs/deep-attribute.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR-LABEL: deep-attribute.mlir:1:1057: error: the input nests deeper than 1024 levels of brackets
// ATTR-NOT: error

// The limit itself: the attribute dictionary and 1023 '[' are 1024 levels
// and parse; one '[' more is rejected at that bracket (column 34 + 1023).
// RUN: %python -c "print('tile.kernel @k() attributes {x = ' + '[' * 1023 + ']' * 1023 + '} {\n  tile.return\n}')" > %t.1024.mlir
// RUN: tile-opt %t.1024.mlir | FileCheck %s --check-prefix=AT-LIMIT
// AT-LIMIT-LABEL: tile.kernel @k()
// AT-LIMIT-SAME: x = {{\[{255}\[}}
// RUN: %python -c "print('tile.kernel @k() attributes {x = ' + '[' * 1024 + ']' * 1024 + '} {\n  tile.return\n}')" > %t.1025.mlir
// RUN: not tile-opt %t.1025.mlir 2>&1 | FileCheck %s --check-prefix=PAST-LIMIT
// PAST-LIMIT-LABEL: 1025.mlir:1:1057: error: the input nests deeper than 1024 levels of brackets
