// The entry of the fuzz targets: hands the command line to libFuzzer's driver with the target's
// LLVMFuzzerTestOneInput. (SwiftPM links an executable's entry as <Target>_main, so libFuzzer's own
// main is not used.)
#ifndef PODQ_FUZZ_MAIN_H
#define PODQ_FUZZ_MAIN_H
int podq_fuzz_main(int argc, char **argv);
#endif
