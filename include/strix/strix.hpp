#pragma once
/// strix: tensor indexing — gather, join, pad and scatter, and their family (gather-elements,
/// gather-nd, split, scatter-nd, scatter reductions) — on strided views, with shape rules
/// that run at compile time and at run time. Include this one header for the whole core.

#include "strix/dtype.hpp"
#include "strix/error.hpp"
#include "strix/ops/chain.hpp"
#include "strix/ops/chain_typed.hpp"
#include "strix/ops/list.hpp"
#include "strix/rules.hpp"
#include "strix/scalar.hpp"
#include "strix/shape.hpp"
#include "strix/tensor.hpp"
#include "strix/tensor_view.hpp"
#if defined(STRIX_SEPARATE_KERNELS) // the CPU kernels are compiled in one file of the program: see strix/cpu/kernels.hpp
#include "strix/cpu/kernels.hpp"
#endif
