# What strix is to a CMake project, written once: the root CMakeLists.txt (add_subdirectory,
# FetchContent) and the installed strixConfig.cmake (find_package) both include this file, so the
# two offer the same targets with the same requirements. Only where the files are differs; the
# including file says so before including:
#
#   _strix_include_dirs         the core's headers: the source tree's include/, or the installed
#                               include directory
#   _strix_vulkan_include_dirs  the backend's headers and its compiled shaders: backends/vulkan/,
#                               or the installed include directory (the backend installs beside
#                               the core)
#   _strix_vulkan_source_dir    where the backend's implementation files are: backends/vulkan/,
#                               or their installed copies' directory
#   _strix_want_vulkan          TRUE to offer strix::vulkan (when its headers are found)
#   _strix_scope                GLOBAL in a source tree (the targets are seen by the whole build,
#                               as a parent project needs them), empty in an installed package
#
# It sets _strix_vulkan_source to the backend's implementation files (volk's loader, the
# backend's definitions and the CPU kernels, in four files a build compiles in parallel: the
# names are written here once), defines strix::strix and, when the Vulkan and volk headers are found, strix::vulkan, and sets
# _strix_vulkan_missing to why strix::vulkan is absent (empty when it is there). Threads::Threads
# must exist (the includer finds Threads its own way).
#
#   strix::strix   the header-only core: its include directory, C++20 (a compile feature, so a
#                  project on C++23 keeps it) and threads; /bigobj or -Wa,-mbig-obj on Windows,
#                  which a translation unit using many operators needs
#   strix::vulkan  strix::strix and the Vulkan and volk headers (found on the system), the
#                  backend's headers with their SPIR-V (committed C++ headers: no shader compiler
#                  is needed), STRIX_SEPARATE_KERNELS, the dynamic loader's library, and the
#                  backend's source file, compiled into every target that links strix::vulkan,
#                  so that no file of the program has to include <strix/vulkan/implementation.hpp>.
#                  Nothing links against the Vulkan library: volk opens it at run time.
#
# A target that compiles the implementation itself (one .cpp including
# <strix/vulkan/implementation.hpp>, or an object library of the source file shared by several
# programs) sets its property STRIX_OWN_IMPLEMENTATION to ON, and strix::vulkan then adds no source
# to it.

if(NOT TARGET strix::strix)
  add_library(strix::strix INTERFACE IMPORTED ${_strix_scope})
  set_target_properties(strix::strix PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_strix_include_dirs}"
    INTERFACE_COMPILE_FEATURES cxx_std_20
    INTERFACE_LINK_LIBRARIES Threads::Threads)
  if(WIN32)
    # a translation unit using many operators outgrows COFF's default section count
    set_property(TARGET strix::strix APPEND PROPERTY INTERFACE_COMPILE_OPTIONS
      "$<IF:$<CXX_COMPILER_ID:MSVC>,/bigobj,-Wa,-mbig-obj>")
  endif()
endif()

set(_strix_vulkan_source "")
foreach(_strix_part backend kernels_1 kernels_2 kernels_3)
  list(APPEND _strix_vulkan_source "${_strix_vulkan_source_dir}/implementation_${_strix_part}.cpp")
endforeach()
unset(_strix_part)

set(_strix_vulkan_missing "")
if(NOT _strix_want_vulkan)
  set(_strix_vulkan_missing "strix::vulkan was not asked for")
elseif(NOT TARGET strix::vulkan)
  # the headers only: volk opens the Vulkan library when the program runs
  find_path(STRIX_VULKAN_HEADERS vulkan/vulkan.h HINTS "$ENV{VULKAN_SDK}/include" "$ENV{VULKAN_SDK}/Include")
  find_path(STRIX_VOLK_HEADER volk.h HINTS "$ENV{VULKAN_SDK}/include" "$ENV{VULKAN_SDK}/Include")
  if(STRIX_VULKAN_HEADERS AND STRIX_VOLK_HEADER)
    set(_strix_vulkan_sources "")
    foreach(_strix_source IN LISTS _strix_vulkan_source)
      list(APPEND _strix_vulkan_sources "$<$<NOT:$<BOOL:$<TARGET_PROPERTY:STRIX_OWN_IMPLEMENTATION>>>:${_strix_source}>")
    endforeach()
    add_library(strix::vulkan INTERFACE IMPORTED ${_strix_scope})
    set_target_properties(strix::vulkan PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${_strix_vulkan_include_dirs};${STRIX_VULKAN_HEADERS};${STRIX_VOLK_HEADER}"
      INTERFACE_SOURCES "${_strix_vulkan_sources}"
      INTERFACE_COMPILE_DEFINITIONS STRIX_SEPARATE_KERNELS
      INTERFACE_LINK_LIBRARIES "strix::strix;${CMAKE_DL_LIBS}")
    unset(_strix_vulkan_sources)
    unset(_strix_source)
  else()
    set(_strix_vulkan_missing "strix::vulkan needs the Vulkan and volk headers (Debian: libvulkan-dev, libvulkan-volk-dev)")
  endif()
endif()
