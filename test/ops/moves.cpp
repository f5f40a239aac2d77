// The operators that lower to a move plan (gather, gather-elements, gather-nd, join, split, pad):
// their test files as one translation unit. Each file alone would parse the library and compile
// the CPU executor (and, in the Vulkan program, the device recording) once more; built together
// they cost about what one file does. Compiled into both test programs, like the files it holds.

#include "gather_test.cpp"
#include "gather_elements_test.cpp"
#include "gather_nd_test.cpp"
#include "join_test.cpp"
#include "split_test.cpp"
#include "pad_test.cpp"
