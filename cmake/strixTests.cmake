# strix's tests from CMake (STRIX_BUILD_TESTS): the Catch2 programs and scripts of
# test/meson.build, built the same way and registered with CTest under the same names, so that
# `ctest` runs what `meson test` runs, but for Meson's test_scale option (a sanitized build's
# reduced suite; here the suite is always whole). glslangValidator is looked for only by the
# 'spirv-headers' test, which is left out without it. Included by the root CMakeLists.txt, which
# has defined strix::strix, strix::vulkan (when the headers are there) and _strix_link_vulkan().

# Debian's catch2 2.13 has a CMake package; a plain catch2/catch.hpp on the include path does too
find_package(Catch2 2 QUIET)
if(NOT TARGET Catch2::Catch2)
  find_path(STRIX_CATCH2_INCLUDE catch2/catch.hpp)
  if(NOT STRIX_CATCH2_INCLUDE)
    message(FATAL_ERROR "strix's tests need Catch2 2 (Debian: catch2), or STRIX_BUILD_TESTS=OFF")
  endif()
  add_library(Catch2::Catch2 INTERFACE IMPORTED)
  set_target_properties(Catch2::Catch2 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${STRIX_CATCH2_INCLUDE}")
endif()
# Debian's interpreter has NumPy; a python3 earlier on PATH may not
find_program(STRIX_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
find_program(STRIX_PYTHON python3)
find_program(STRIX_BASH bash)

set(_strix_test_dir "${CMAKE_CURRENT_SOURCE_DIR}/test")
set(_strix_test_bin "${CMAKE_CURRENT_BINARY_DIR}/test")
# Vulkan runs under the Khronos validation layer: any message fails the test
set(_strix_vk_env "VK_LOADER_LAYERS_ENABLE=*validation")

# One test file per operator (test/ops/<op>_test.cpp), for each operator of the operator list
# (include/strix/ops/list.hpp, its X(name, form) lines), compiled as two translation units per
# program, the moves and the updates, as test/meson.build does (an operator without its test file
# stops the configuration there and here).
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/include/strix/ops/list.hpp")
# (the lines end in a backslash, which a CMake list would take as escaping its separator: the
# X(...) entries are matched in the file's text instead)
file(READ "${CMAKE_CURRENT_SOURCE_DIR}/include/strix/ops/list.hpp" _strix_op_list)
string(REGEX MATCHALL "\n[ \t]*X\\([^)\n]*\\)" _strix_op_lines "${_strix_op_list}")
if(NOT _strix_op_lines)
  message(FATAL_ERROR "include/strix/ops/list.hpp: no X(name, form) line")
endif()
set(_strix_ops_moves "")
set(_strix_ops_updates "")
foreach(_line IN LISTS _strix_op_lines)
  if(NOT _line MATCHES "^\n[ \t]*X\\([ \t]*([a-z0-9_]+)[ \t]*,[ \t]*([a-z_]+)[ \t]*\\)")
    message(FATAL_ERROR "include/strix/ops/list.hpp: an operator line that does not read: ${_line}")
  endif()
  set(_test_file "${_strix_test_dir}/ops/${CMAKE_MATCH_1}_test.cpp")
  if(NOT EXISTS "${_test_file}")
    message(FATAL_ERROR "the operator ${CMAKE_MATCH_1} of include/strix/ops/list.hpp has no test file test/ops/${CMAKE_MATCH_1}_test.cpp")
  endif()
  if(CMAKE_MATCH_2 STREQUAL "update")
    string(APPEND _strix_ops_updates "#include \"${_test_file}\"\n")
  else()
    string(APPEND _strix_ops_moves "#include \"${_test_file}\"\n")
  endif()
endforeach()
set(OP_TESTS "${_strix_ops_moves}")
configure_file("${_strix_test_dir}/ops/moves.cpp.in" "${_strix_test_bin}/ops_moves.cpp" @ONLY)
set(OP_TESTS "${_strix_ops_updates}")
configure_file("${_strix_test_dir}/ops/updates.cpp.in" "${_strix_test_bin}/ops_updates.cpp" @ONLY)
unset(OP_TESTS)
set(_strix_op_tests "${_strix_test_bin}/ops_moves.cpp" "${_strix_test_bin}/ops_updates.cpp")

include(CheckIncludeFileCXX)
check_include_file_cxx(dlpack/dlpack.h STRIX_HAVE_DLPACK)

# Catch2's runner, compiled once for every test program
add_library(strix_catch2_main STATIC "${_strix_test_dir}/main.cpp")
target_link_libraries(strix_catch2_main PRIVATE Catch2::Catch2)

function(_strix_test_program name)
  add_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${_strix_test_bin}")
  target_link_libraries(${name} PRIVATE Catch2::Catch2 strix_catch2_main)
endfunction()

# the CPU test program's CPU kernels, compiled once in three parts (test/support/kernels.cpp);
# the program's files are built with STRIX_SEPARATE_KERNELS, as in test/meson.build
set(_strix_unit_kernels "")
foreach(_part 1 2 3)
  add_library(strix_test_kernels_${_part} OBJECT "${_strix_test_dir}/support/kernels.cpp")
  target_link_libraries(strix_test_kernels_${_part} PRIVATE strix::strix)
  target_compile_definitions(strix_test_kernels_${_part} PRIVATE STRIX_SEPARATE_KERNELS STRIX_KERNELS_PART=${_part})
  list(APPEND _strix_unit_kernels $<TARGET_OBJECTS:strix_test_kernels_${_part}>)
endforeach()

# the reference-vs-CPU cases, one CTest test per area
set(_strix_unit_sources float16_test.cpp types_test.cpp views_test.cpp npy_test.cpp ops_seed_test.cpp cpu_test.cpp
    plan_test.cpp rules_static_test.cpp hostile_test.cpp)
set(_strix_unit_tags float16 types views npy seed random plan rules hostile)
if(STRIX_HAVE_DLPACK) # DLPack exchange (Debian: libdlpack-dev)
  list(APPEND _strix_unit_sources dlpack_test.cpp)
  list(APPEND _strix_unit_tags dlpack)
endif()
list(TRANSFORM _strix_unit_sources PREPEND "${_strix_test_dir}/")
_strix_test_program(strix-tests ${_strix_unit_sources} ${_strix_op_tests} ${_strix_unit_kernels})
target_link_libraries(strix-tests PRIVATE strix::strix)
target_compile_definitions(strix-tests PRIVATE STRIX_SEPARATE_KERNELS STRIX_TEST_VECTORS="${CMAKE_CURRENT_SOURCE_DIR}/test/vectors")
foreach(_tag IN LISTS _strix_unit_tags)
  add_test(NAME unit-${_tag} COMMAND strix-tests "[${_tag}]")
  set_tests_properties(unit-${_tag} PROPERTIES TIMEOUT 600)
endforeach()

# DLPack 1.x's versioned struct, against a header shaped as DLPack 1.1: its own program, so that
# no other test sees that header
_strix_test_program(strix-dlpack1-tests "${_strix_test_dir}/dlpack1_test.cpp")
target_include_directories(strix-dlpack1-tests PRIVATE "${_strix_test_dir}/dlpack1")
target_link_libraries(strix-dlpack1-tests PRIVATE strix::strix)
add_test(NAME unit-dlpack1 COMMAND strix-dlpack1-tests "[dlpack1]")

if(TARGET strix::vulkan)
  # every operator on the device against the CPU, bit for bit
  set(_strix_vulkan_sources vulkan_test.cpp vulkan_shader_table_test.cpp vulkan_ops_alloc_test.cpp
      vulkan_misuse_test.cpp vulkan_options_test.cpp)
  if(STRIX_HAVE_DLPACK)
    list(APPEND _strix_vulkan_sources vulkan_dlpack_test.cpp)
  endif()
  list(TRANSFORM _strix_vulkan_sources PREPEND "${_strix_test_dir}/")
  _strix_test_program(strix-vulkan-tests ${_strix_vulkan_sources} ${_strix_op_tests})
  target_compile_definitions(strix-vulkan-tests PRIVATE STRIX_TEST_VULKAN=1)
  _strix_link_vulkan(strix-vulkan-tests)
  add_test(NAME vulkan COMMAND strix-vulkan-tests "[vulkan]")
  set_tests_properties(vulkan PROPERTIES TIMEOUT 1800 ENVIRONMENT "${_strix_vk_env}")

  # the shaders' baseline path run directly on a device made without optional features: the
  # committed baseline variants, under the validation layer
  _strix_test_program(strix-vulkan-baseline-tests "${_strix_test_dir}/vulkan_baseline_test.cpp")
  _strix_link_vulkan(strix-vulkan-baseline-tests)
  add_test(NAME vulkan-baseline COMMAND strix-vulkan-baseline-tests "[baseline]")
  set_tests_properties(vulkan-baseline PROPERTIES TIMEOUT 300 ENVIRONMENT "${_strix_vk_env}")

  # the committed baseline variants are Vulkan 1.1 modules that declare nothing optional (spirv-tools)
  find_program(STRIX_SPIRV_VAL spirv-val)
  if(STRIX_SPIRV_VAL)
    add_test(NAME baseline-spirv COMMAND "${STRIX_BASH}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_baseline_spirv.sh"
             "${_strix_test_bin}/baseline-spirv")
  endif()
endif()

# the committed SPIR-V headers are what shaders/ and variants.txt compile to (glslang-tools)
find_program(STRIX_GLSLANG glslangValidator)
if(TARGET strix::vulkan AND STRIX_GLSLANG)
  add_test(NAME spirv-headers COMMAND "${STRIX_BASH}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/spirv_headers.sh" check)
  set_tests_properties(spirv-headers PROPERTIES TIMEOUT 300 ENVIRONMENT "GLSLANG=${STRIX_GLSLANG};PYTHON=${STRIX_PYTHON}")
endif()

# the tool and the examples
if(STRIX_BUILD_TOOL)
  set(_strix_tool "$<TARGET_FILE:strix_tool>")
  set(_strix_check_tool "${CMAKE_CURRENT_SOURCE_DIR}/scripts/check_tool.py")
  add_test(NAME tool COMMAND "${STRIX_PYTHON}" "${_strix_test_dir}/tool_test.py" "${_strix_tool}")
  set_tests_properties(tool PROPERTIES TIMEOUT 900 ENVIRONMENT "${_strix_vk_env}")
  # every operator x element type x index type x rank 1..8, compared with NumPy bit for bit
  add_test(NAME tool-numpy COMMAND "${STRIX_PYTHON}" "${_strix_check_tool}" "${_strix_tool}" --backend cpu)
  set_tests_properties(tool-numpy PROPERTIES TIMEOUT 900)
  # ONNX's own node tests (python3-onnx's generators)
  add_test(NAME onnx-cpu COMMAND "${STRIX_PYTHON}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/onnx_node_tests.py" "${_strix_tool}" --backend cpu)
  set_tests_properties(onnx-cpu PROPERTIES TIMEOUT 600)
  # ONNX's reference implementation's answers for bfloat16, bool and the float8 types, stored
  # (scripts/type_vectors.py made them)
  set(_strix_onnx_stored "${_strix_test_dir}/vectors/types/onnx")
  add_test(NAME onnx-stored-cpu COMMAND "${STRIX_PYTHON}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/onnx_node_tests.py" "${_strix_tool}" --backend cpu
           --stored "${_strix_onnx_stored}")
  set_tests_properties(onnx-stored-cpu PROPERTIES TIMEOUT 300)
  if(TARGET strix::vulkan)
    # the same comparisons through the Vulkan backend, on a random subset (lavapipe is slow)
    add_test(NAME tool-numpy-vulkan COMMAND "${STRIX_PYTHON}" "${_strix_check_tool}" "${_strix_tool}" --backend vulkan --limit 150)
    set_tests_properties(tool-numpy-vulkan PROPERTIES TIMEOUT 900 ENVIRONMENT "${_strix_vk_env}")
    add_test(NAME tool-numpy-vulkan-words COMMAND "${STRIX_PYTHON}" "${_strix_check_tool}" "${_strix_tool}" --backend vulkan --limit 80 --seed 2)
    set_tests_properties(tool-numpy-vulkan-words PROPERTIES TIMEOUT 900 ENVIRONMENT "${_strix_vk_env};STRIX_VULKAN_NO_SMALL_STORAGE=1")
    add_test(NAME onnx-vulkan COMMAND "${STRIX_PYTHON}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/onnx_node_tests.py" "${_strix_tool}" --backend vulkan)
    set_tests_properties(onnx-vulkan PROPERTIES TIMEOUT 900 ENVIRONMENT "${_strix_vk_env}")
    add_test(NAME onnx-stored-vulkan COMMAND "${STRIX_PYTHON}" "${CMAKE_CURRENT_SOURCE_DIR}/scripts/onnx_node_tests.py" "${_strix_tool}" --backend vulkan
             --stored "${_strix_onnx_stored}")
    set_tests_properties(onnx-stored-vulkan PROPERTIES TIMEOUT 600 ENVIRONMENT "${_strix_vk_env}")
  endif()
endif()
foreach(_example IN LISTS _strix_examples)
  add_test(NAME example-${_example} COMMAND ${_example})
  set_tests_properties(example-${_example} PROPERTIES ENVIRONMENT "${_strix_vk_env}")
endforeach()

# compile-fail: every case of test/compile_fail/ but ok_* fails to compile with the sentence on
# its '// expect:' line (the runner passes GCC-style -fsyntax-only and -I; it takes every .cpp
# of its directory)
if(NOT MSVC)
  add_test(NAME compile-fail COMMAND "${STRIX_PYTHON}" "${_strix_test_dir}/compile_fail/run.py"
           --cxx "${CMAKE_CXX_COMPILER}" --include "${CMAKE_CURRENT_SOURCE_DIR}/include"
           --flag=-DSTRIX_SEPARATE_KERNELS) # (as test/compile_fail/meson.build says)
  set_tests_properties(compile-fail PROPERTIES TIMEOUT 900)
endif()

# docs/OPERATORS.md: every file, symbol and tool command it names exists
add_test(NAME operators-doc COMMAND "${STRIX_PYTHON}" "${_strix_test_dir}/operators_doc_test.py")
