#pragma once
/// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0) for the eleven
/// element types. Reading checks every header field and never allocates more than the file
/// holds; writing produces C-order files that NumPy reads (and, for C-order views, the very
/// bytes `numpy.save` writes).

#include "strix/io/npy_common.hpp"
#include "strix/io/npy_read.hpp"
#include "strix/io/npy_write.hpp"
