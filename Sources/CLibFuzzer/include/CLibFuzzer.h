// libFuzzer's driver entry point, from compiler-rt's FuzzerInterface.h (LLVM, Apache-2.0 with LLVM exception):
// the declaration only. enfuzz calls it when built with -sanitize=fuzzer, which links libFuzzer; otherwise no
// code refers to it.
#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

#endif
