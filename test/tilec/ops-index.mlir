// docs/ops-index.md has a row for every op of the tile and tilegpu ODS and
// none for an op they lack, and every file it names exists: the op-to-files
// table cannot go stale (regenerate it with scripts/ops-index).
// RUN: python3 %tilec_src/scripts/ops-index %tilec_src --check
