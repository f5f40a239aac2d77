// Tests of strix/io/npy.hpp: .npy reading and writing.

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <new>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#endif

#include "strix/io/npy.hpp"

#include "support/coords.hpp"

namespace {

namespace fs = std::filesystem;
using strix::any_cview;
using strix::dtype;
using strix::error_code;
using strix::host_tensor;
using strix::shape;
using strix::io::npy_array;
using strix::io::parse_npy;
using strix::io::read_npy;
using strix::io::serialize_npy;
using strix::io::write_npy;
using strix_test::for_each_coord;

// Files written by NumPy 1.24.2 (Debian's /usr/bin/python3), byte for byte; each comment gives
// the array passed to np.save (or to np.lib.format.write_array with the version shown).
// np.save of np.array([0.5, -2.0, 65504.0, np.inf], np.float16)
const unsigned char np_float16[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x32, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x34, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x38, 0x00, 0xc0, 0xff, 0x7b, 0x00, 0x7c,
};
// np.save of np.array([[0, 1], [2**63, 2**64 - 1]], np.uint64)
const unsigned char np_uint64[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x75, 0x38, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x20,
    0x32, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
};
// np.save of np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
const unsigned char np_fortran_f32[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x54, 0x72, 0x75, 0x65,
    0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x20, 0x33,
    0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40, 0x40, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x80, 0x40,
    0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0xa0, 0x40,
};
// np.save of np.array(3.25)
const unsigned char np_scalar_f64[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x38, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x29, 0x2c, 0x20,
    0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a, 0x40,
};
// np.save of np.array([-128, 0, 127], np.int8)
const unsigned char np_int8[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x69, 0x31, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x33, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x80, 0x00, 0x7f,
};
// np.save of np.zeros((0, 3), np.float32)
const unsigned char np_empty_f32[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x30, 0x2c, 0x20,
    0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
};
// np.save of np.lib.format.write_array(f, np.array([-1, 7], np.int32), version=(2, 0))
const unsigned char np_v2_int32[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x02, 0x00, 0x74, 0x00, 0x00, 0x00, 0x7b, 0x27, 0x64, 0x65,
    0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x69, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f,
    0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61,
    0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32,
    0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0xff, 0xff, 0xff, 0xff, 0x07, 0x00, 0x00, 0x00,
};
// np.save of np.lib.format.write_array(f, np.array([1, 2, 65535], np.uint16), version=(3, 0))
const unsigned char np_v3_uint16[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x03, 0x00, 0x74, 0x00, 0x00, 0x00, 0x7b, 0x27, 0x64, 0x65,
    0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x75, 0x32, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f,
    0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61,
    0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x33,
    0x2c, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x01, 0x00, 0x02, 0x00, 0xff, 0xff,
};
// np.save of np.array([1 + 2j], np.complex64)
const unsigned char np_complex64[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x63, 0x38, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x31, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40,
};
// np.save of np.array([1.0, 2.0], '>f4')
const unsigned char np_big_endian_f32[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3e, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x3f, 0x80, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00,
};
// np.save of np.array([True, False])
const unsigned char np_bool[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x62, 0x31, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x01, 0x00,
};
// np.save of np.array([None, 1], dtype=object), allow_pickle=True
const unsigned char np_object[] = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x4f, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72,
    0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73, 0x65,
    0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x29, 0x2c,
    0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x80, 0x03, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x2e, 0x63, 0x6f, 0x72, 0x65, 0x2e, 0x6d, 0x75,
    0x6c, 0x74, 0x69, 0x61, 0x72, 0x72, 0x61, 0x79, 0x0a, 0x5f, 0x72, 0x65, 0x63, 0x6f, 0x6e, 0x73,
    0x74, 0x72, 0x75, 0x63, 0x74, 0x0a, 0x71, 0x00, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x0a, 0x6e,
    0x64, 0x61, 0x72, 0x72, 0x61, 0x79, 0x0a, 0x71, 0x01, 0x4b, 0x00, 0x85, 0x71, 0x02, 0x43, 0x01,
    0x62, 0x71, 0x03, 0x87, 0x71, 0x04, 0x52, 0x71, 0x05, 0x28, 0x4b, 0x01, 0x4b, 0x02, 0x85, 0x71,
    0x06, 0x63, 0x6e, 0x75, 0x6d, 0x70, 0x79, 0x0a, 0x64, 0x74, 0x79, 0x70, 0x65, 0x0a, 0x71, 0x07,
    0x58, 0x02, 0x00, 0x00, 0x00, 0x4f, 0x38, 0x71, 0x08, 0x89, 0x88, 0x87, 0x71, 0x09, 0x52, 0x71,
    0x0a, 0x28, 0x4b, 0x03, 0x58, 0x01, 0x00, 0x00, 0x00, 0x7c, 0x71, 0x0b, 0x4e, 0x4e, 0x4e, 0x4a,
    0xff, 0xff, 0xff, 0xff, 0x4a, 0xff, 0xff, 0xff, 0xff, 0x4b, 0x3f, 0x74, 0x71, 0x0c, 0x62, 0x89,
    0x5d, 0x71, 0x0d, 0x28, 0x4e, 0x4b, 0x01, 0x65, 0x74, 0x71, 0x0e, 0x62, 0x2e,
};

template <std::size_t N>
std::span<const std::byte> bytes_of(const unsigned char (&a)[N]) {
    return {reinterpret_cast<const std::byte*>(a), N};
}

std::span<const std::byte> bytes_of(const std::vector<std::byte>& v) { return {v.data(), v.size()}; }

std::vector<std::byte> to_bytes(std::string_view s) {
    std::vector<std::byte> r(s.size());
    std::memcpy(r.data(), s.data(), s.size());
    return r;
}

template <class T>
std::vector<std::byte> to_bytes(std::initializer_list<T> values) {
    std::vector<std::byte> r(values.size() * sizeof(T));
    std::memcpy(r.data(), std::data(values), r.size());
    return r;
}

/// A .npy image built by hand: magic, version `major`.`minor`, the length field (2 bytes for
/// version 1, else 4) holding `dict.size()`, the dict text as given, then `data`.
std::vector<std::byte> make_image(int major, std::string_view dict, const std::vector<std::byte>& data = {},
                                  int minor = 0) {
    std::string s = "\x93NUMPY";
    s += static_cast<char>(major);
    s += static_cast<char>(minor);
    const int len_bytes = major == 1 ? 2 : 4;
    for (int i = 0; i < len_bytes; ++i) s += static_cast<char>((dict.size() >> (8 * i)) & 0xff);
    s += dict;
    auto r = to_bytes(s);
    r.insert(r.end(), data.begin(), data.end());
    return r;
}

/// Version-1 image of a one-line dict for `descr`, `order` ("False"/"True") and `shape_text`.
std::vector<std::byte> simple_image(std::string_view descr, std::string_view shape_text,
                                    const std::vector<std::byte>& data = {}, std::string_view order = "False") {
    const std::string dict = "{'descr': '" + std::string(descr) + "', 'fortran_order': " + std::string(order) +
                             ", 'shape': " + std::string(shape_text) + ", }\n";
    return make_image(1, dict, data);
}

/// Runs `f`, which must throw strix::error with `code` and a message containing every word.
template <class F>
void require_error(F&& f, error_code code, std::initializer_list<std::string_view> words) {
    try {
        f();
    } catch (const strix::error& e) {
        INFO("message: " << e.what());
        CHECK(static_cast<int>(e.code()) == static_cast<int>(code));
        for (const auto w : words) CHECK_THAT(e.what(), Catch::Contains(std::string(w)));
        return;
    }
    FAIL("no strix::error was thrown");
}

/// Parses `image` as "x.npy" and requires a bad_file error whose message names the file and
/// contains every word.
void require_bad(const std::vector<std::byte>& image, std::initializer_list<std::string_view> words) {
    require_error([&] { (void)parse_npy(bytes_of(image), "x.npy"); }, error_code::bad_file, {"x.npy: "});
    require_error([&] { (void)parse_npy(bytes_of(image), "x.npy"); }, error_code::bad_file, words);
}

/// Requires `a` and `b` to have the same type, shape and elements (compared bytewise).
void require_same_elements(const any_cview& a, const any_cview& b) {
    REQUIRE(a.type() == b.type());
    REQUIRE(a.sizes() == b.sizes());
    std::int64_t mismatches = 0;
    for_each_coord(a.sizes(), [&](const auto& c) {
        if (std::memcmp(a.address(c), b.address(c), a.element_size()) != 0) ++mismatches;
    });
    REQUIRE(mismatches == 0);
}

/// The element of `v` at `coords`, as `T`.
template <class T>
T element_at(const any_cview& v, std::initializer_list<std::int64_t> coords) {
    REQUIRE(v.type() == strix::dtype_of<T>);
    REQUIRE(static_cast<int>(coords.size()) == v.rank());
    std::array<std::int64_t, strix::max_rank> c{};
    std::copy(coords.begin(), coords.end(), c.begin());
    T out;
    std::memcpy(&out, v.address(c), sizeof(T));
    return out;
}

/// Fills the tensor's bytes with a pseudo-random pattern.
void fill_pattern(host_tensor& t, std::uint32_t seed) {
    std::uint32_t x = seed * 2654435761u + 12345u;
    for (std::size_t i = 0; i < t.bytes(); ++i) {
        x = x * 1664525u + 1013904223u;
        t.data()[i] = static_cast<std::byte>(x >> 24);
    }
}

/// A fresh directory under the system's temporary directory, removed with its contents.
struct temp_dir {
    fs::path path;
    temp_dir() {
        std::random_device rd;
        for (;;) {
            path = fs::temp_directory_path() / ("strix-npy-test-" + std::to_string(rd()) + std::to_string(rd()));
            if (fs::create_directory(path)) break;
        }
    }
    ~temp_dir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    temp_dir(const temp_dir&) = delete;
    temp_dir& operator=(const temp_dir&) = delete;
};

std::vector<std::byte> file_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE(in);
    std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::byte> r(chars.size());
    if (!chars.empty()) std::memcpy(r.data(), chars.data(), chars.size());
    return r;
}

void put_file(const fs::path& p, const std::vector<std::byte>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    REQUIRE(out.good());
}

std::vector<std::string> entries(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

/// Offset of the first data byte of a version-1 image.
std::size_t data_offset_v1(const std::vector<std::byte>& image) {
    REQUIRE(image.size() >= 10);
    return 10 + (std::to_integer<std::size_t>(image[8]) | (std::to_integer<std::size_t>(image[9]) << 8));
}

} // namespace

TEST_CASE("npy: every type at ranks 0..8 round-trips through bytes and files", "[npy]") {
    temp_dir dir;
    const std::int64_t dims[strix::max_rank] = {3, 2, 1, 2, 1, 2, 1, 2};
    int file_no = 0;
    for (const dtype t : strix::all_dtypes) {
        for (int rank = 0; rank <= strix::max_rank; ++rank) {
            for (const int zero_at : {-1, rank / 2}) { // no zero-size dimension, then one
                if (zero_at >= rank) continue;
                shape s;
                for (int i = 0; i < rank; ++i) s.push_back(i == zero_at ? 0 : dims[i]);
                INFO("type " << strix::name(t) << ", shape " << strix::to_string(s));
                host_tensor src(t, s);
                fill_pattern(src, static_cast<std::uint32_t>(file_no));

                const auto image = serialize_npy(src.view());
                const std::size_t off = data_offset_v1(image);
                CHECK(image[6] == std::byte{1});
                CHECK(off % 64 == 0);
                CHECK(image[off - 1] == std::byte{'\n'});
                REQUIRE(image.size() == off + src.bytes());
                if (src.bytes()) CHECK(std::memcmp(image.data() + off, src.data(), src.bytes()) == 0);

                const npy_array a = parse_npy(bytes_of(image), "mem.npy");
                CHECK_FALSE(a.fortran_order);
                REQUIRE(a.storage.type() == t);
                REQUIRE(a.storage.sizes() == s);
                require_same_elements(a.view(), src.view());

                const fs::path p = dir.path / ("f" + std::to_string(file_no++) + ".npy");
                write_npy(p, src.view());
                CHECK(file_bytes(p) == image);
                const npy_array b = read_npy(p);
                REQUIRE(b.storage.sizes() == s);
                require_same_elements(b.view(), src.view());
            }
        }
    }
    CHECK(entries(dir.path).size() == static_cast<std::size_t>(file_no)); // no temporary files left
}

TEST_CASE("npy: strided views are written in C order", "[npy]") {
    host_tensor base(dtype::float32, {4, 5, 6});
    float* f = base.as<float>();
    for (int i = 0; i < 120; ++i) f[i] = static_cast<float>(i);
    const auto* p = base.data();
    using st = std::array<std::int64_t, strix::max_rank>;
    struct named_view {
        const char* what;
        any_cview view;
    };
    const named_view views[] = {
        {"transposed", any_cview(p, dtype::float32, {6, 5, 4}, st{1, 6, 30})},
        {"all strides negative", any_cview(p + 119 * 4, dtype::float32, {4, 5, 6}, st{-30, -6, -1})},
        {"middle stride negative", any_cview(p + 24 * 4, dtype::float32, {4, 5, 6}, st{30, -6, 1})},
        {"stepped slice", any_cview(p + 6 * 4, dtype::float32, {2, 2, 3}, st{60, 12, 2})},
        {"zero strides (broadcast)", any_cview(p + 7 * 4, dtype::float32, {3, 4, 2}, st{0, 6, 0})},
        {"Fortran strides", any_cview(p, dtype::float32, {4, 5, 6}, strix::f_strides({4, 5, 6}))},
        {"rank 0 at an element", any_cview(p + 42 * 4, dtype::float32, shape{})},
        {"empty with odd strides", any_cview(p, dtype::float32, {3, 0, 2}, st{-5, 7, 0})},
        {"contiguous sub-block", any_cview(p + 30 * 4, dtype::float32, {2, 5, 6})},
    };
    temp_dir dir;
    for (const auto& nv : views) {
        INFO(nv.what);
        const auto image = serialize_npy(nv.view);
        const npy_array a = parse_npy(bytes_of(image), "mem.npy");
        CHECK_FALSE(a.fortran_order);
        require_same_elements(a.view(), nv.view);
        write_npy(dir.path / "v.npy", nv.view);
        require_same_elements(read_npy(dir.path / "v.npy").view(), nv.view);
    }
    // Spot checks against hand-computed values.
    CHECK(element_at<float>(parse_npy(bytes_of(serialize_npy(views[0].view)), "m").view(), {1, 2, 3}) == 3 * 30 + 2 * 6 + 1);
    CHECK(element_at<float>(parse_npy(bytes_of(serialize_npy(views[1].view)), "m").view(), {0, 0, 0}) == 119);
    CHECK(element_at<float>(parse_npy(bytes_of(serialize_npy(views[6].view)), "m").view(), {}) == 42);

    // Every type through a transposed view with a negative stride.
    for (const dtype t : strix::all_dtypes) {
        INFO(strix::name(t));
        host_tensor src(t, {3, 4});
        fill_pattern(src, 99);
        const auto es = static_cast<std::int64_t>(strix::size_of(t));
        const any_cview v(src.data() + 3 * es, t, {4, 3}, st{-1, 4}); // v(i, j) = src(j, 3 - i)
        const npy_array a = parse_npy(bytes_of(serialize_npy(v)), "mem.npy");
        require_same_elements(a.view(), v);
    }
}

TEST_CASE("npy: files written by NumPy are read, and C-order arrays are written identically", "[npy]") {
    SECTION("float16") {
        const npy_array a = parse_npy(bytes_of(np_float16), "np.npy");
        REQUIRE(a.storage.sizes() == shape{4});
        const auto* h = a.storage.as<strix::float16>();
        CHECK(h[0].bits == 0x3800);
        CHECK(h[1].bits == 0xc000);
        CHECK(h[2].bits == 0x7bff);
        CHECK(h[3].bits == 0x7c00);
        CHECK(static_cast<float>(h[2]) == 65504.0f);
        CHECK(serialize_npy(a.view()).size() == sizeof(np_float16));
        CHECK(std::ranges::equal(serialize_npy(a.view()), bytes_of(np_float16)));
    }
    SECTION("uint64") {
        const npy_array a = parse_npy(bytes_of(np_uint64), "np.npy");
        REQUIRE(a.storage.sizes() == shape{2, 2});
        CHECK(element_at<std::uint64_t>(a.view(), {0, 1}) == 1);
        CHECK(element_at<std::uint64_t>(a.view(), {1, 0}) == std::uint64_t{1} << 63);
        CHECK(element_at<std::uint64_t>(a.view(), {1, 1}) == ~std::uint64_t{0});
        CHECK(std::ranges::equal(serialize_npy(a.view()), bytes_of(np_uint64)));
    }
    SECTION("Fortran order") {
        const npy_array a = parse_npy(bytes_of(np_fortran_f32), "np.npy");
        CHECK(a.fortran_order);
        REQUIRE(a.storage.sizes() == shape{2, 3});
        const float stored[] = {0, 3, 1, 4, 2, 5};
        CHECK(std::memcmp(a.storage.data(), stored, sizeof stored) == 0);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 3; ++j) CHECK(element_at<float>(a.view(), {i, j}) == static_cast<float>(i * 3 + j));
        const npy_array c = parse_npy(bytes_of(serialize_npy(a.view())), "c.npy"); // rewritten in C order
        CHECK_FALSE(c.fortran_order);
        require_same_elements(c.view(), a.view());
        const float c_order[] = {0, 1, 2, 3, 4, 5};
        CHECK(std::memcmp(c.storage.data(), c_order, sizeof c_order) == 0);
    }
    SECTION("0-d float64") {
        const npy_array a = parse_npy(bytes_of(np_scalar_f64), "np.npy");
        CHECK(a.storage.sizes().rank == 0);
        CHECK(element_at<double>(a.view(), {}) == 3.25);
        CHECK(std::ranges::equal(serialize_npy(a.view()), bytes_of(np_scalar_f64)));
    }
    SECTION("int8") {
        const npy_array a = parse_npy(bytes_of(np_int8), "np.npy");
        REQUIRE(a.storage.sizes() == shape{3});
        CHECK(element_at<std::int8_t>(a.view(), {0}) == -128);
        CHECK(element_at<std::int8_t>(a.view(), {2}) == 127);
        CHECK(std::ranges::equal(serialize_npy(a.view()), bytes_of(np_int8)));
    }
    SECTION("empty float32") {
        const npy_array a = parse_npy(bytes_of(np_empty_f32), "np.npy");
        CHECK(a.storage.type() == dtype::float32);
        CHECK(a.storage.sizes() == shape{0, 3});
        CHECK(std::ranges::equal(serialize_npy(a.view()), bytes_of(np_empty_f32)));
    }
    SECTION("versions 2.0 and 3.0") {
        const npy_array a = parse_npy(bytes_of(np_v2_int32), "np.npy");
        REQUIRE(a.storage.sizes() == shape{2});
        CHECK(element_at<std::int32_t>(a.view(), {0}) == -1);
        CHECK(element_at<std::int32_t>(a.view(), {1}) == 7);
        const npy_array b = parse_npy(bytes_of(np_v3_uint16), "np.npy");
        REQUIRE(b.storage.sizes() == shape{3});
        CHECK(element_at<std::uint16_t>(b.view(), {2}) == 65535);
    }
    SECTION("types strix does not support") {
        require_error([] { (void)parse_npy(bytes_of(np_complex64), "c.npy"); }, error_code::bad_file,
                      {"c.npy: unsupported dtype '<c8'"});
        require_error([] { (void)parse_npy(bytes_of(np_big_endian_f32), "b.npy"); }, error_code::bad_file,
                      {"b.npy: big-endian data ('>f4') is not supported"});
        require_error([] { (void)parse_npy(bytes_of(np_complex64), "c.npy"); }, error_code::bad_file, {"c.npy"});
    }
    SECTION("bool, which strix has: NumPy's [True, False] read as such, written back identically") {
        const npy_array a = parse_npy(bytes_of(np_bool), "t.npy");
        REQUIRE(a.storage.type() == dtype::boolean);
        REQUIRE(a.storage.sizes() == shape{2});
        CHECK(element_at<bool>(a.view(), {0}));
        CHECK_FALSE(element_at<bool>(a.view(), {1}));
        const auto again = serialize_npy(a.view());
        CHECK(std::equal(again.begin(), again.end(), reinterpret_cast<const std::byte*>(np_bool)));
        CHECK(again.size() == sizeof np_bool);
        require_error([] { (void)parse_npy(bytes_of(np_object), "o.npy"); }, error_code::bad_file,
                      {"o.npy: object arrays are not supported"});
    }
}

TEST_CASE("npy: hand-made version 2.0 and 3.0 images", "[npy]") {
    const auto data = to_bytes({1.5, -2.0, 4.25});
    SECTION("version 2.0") {
        const auto img = make_image(2, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }\n", data);
        const npy_array a = parse_npy(bytes_of(img), "v2.npy");
        REQUIRE(a.storage.sizes() == shape{3});
        CHECK(element_at<double>(a.view(), {2}) == 4.25);
    }
    SECTION("version 3.0") {
        const auto img = make_image(3, "{'shape': (1, 3), 'descr': '<f8', 'fortran_order': True}", data);
        const npy_array a = parse_npy(bytes_of(img), "v3.npy");
        REQUIRE(a.storage.sizes() == shape{1, 3});
        CHECK(a.fortran_order);
        CHECK(element_at<double>(a.view(), {0, 1}) == -2.0);
    }
    SECTION("version 2.0 with a header longer than version 1.0 allows") {
        std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)}";
        dict.append(70000 - dict.size() - 1, ' ');
        dict += '\n';
        const auto img = make_image(2, dict, data);
        const npy_array a = parse_npy(bytes_of(img), "v2.npy");
        CHECK(element_at<double>(a.view(), {0}) == 1.5);
    }
}

TEST_CASE("npy: Fortran-order files", "[npy]") {
    const auto img = simple_image("<i4", "(2, 3)", to_bytes<std::int32_t>({0, 1, 2, 3, 4, 5}), "True");
    const npy_array a = parse_npy(bytes_of(img), "f.npy");
    REQUIRE(a.fortran_order);
    REQUIRE(a.storage.sizes() == shape{2, 3});
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j) CHECK(element_at<std::int32_t>(a.view(), {i, j}) == i + 2 * j); // column-major

    std::vector<std::byte> data3(24 * 2);
    for (int k = 0; k < 24; ++k) std::memcpy(data3.data() + 2 * k, &k, 2); // low half of k (little-endian)
    const npy_array b = parse_npy(bytes_of(simple_image("<u2", "(2, 3, 4)", data3, "True")), "f3.npy");
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 4; ++k) CHECK(element_at<std::uint16_t>(b.view(), {i, j, k}) == i + 2 * j + 6 * k);
    temp_dir dir;
    write_npy(dir.path / "c.npy", b.view());
    const npy_array c = read_npy(dir.path / "c.npy");
    CHECK_FALSE(c.fortran_order);
    require_same_elements(c.view(), b.view());
}

TEST_CASE("npy: header syntax NumPy accepts is accepted", "[npy]") {
    const auto i2 = to_bytes<std::int16_t>({1, 2, 3, 4, 5, 6});
    const char* dicts[] = {
        "{'shape': (2,3,), 'fortran_order': False, 'descr': '<i2'}",
        "{\"descr\":\"<i2\",\"fortran_order\":False,\"shape\":(2,3)}",
        "  {\n\t'descr' : '<i2' ,\r\n 'fortran_order':False, 'shape':( 2 , 3 ) , }  \n",
        "{'descr': '=i2', 'fortran_order': False, 'shape': (2, 3)}",
        "{'descr': u'<i2', 'fortran_order': False, 'shape': (2, 3)}",
        "{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 3L), }",
        "{'descr': '<i2', 'fortran_order': False, 'shape': (2, +3)}             \n",
    };
    for (const char* d : dicts) {
        INFO(d);
        const npy_array a = parse_npy(bytes_of(make_image(1, d, i2)), "ok.npy");
        CHECK(a.storage.type() == dtype::int16);
        CHECK(a.storage.sizes() == shape{2, 3});
        CHECK(element_at<std::int16_t>(a.view(), {1, 2}) == 6);
    }
    struct descr_case {
        const char* descr;
        dtype type;
    };
    const descr_case descrs[] = {
        {"<i1", dtype::int8},    {"|i1", dtype::int8},    {"=i1", dtype::int8},    {"<u1", dtype::uint8},
        {"|u1", dtype::uint8},   {"=u1", dtype::uint8},   {"=f8", dtype::float64}, {"=f2", dtype::float16},
        {"<u8", dtype::uint64},  {"<u4", dtype::uint32},  {"=u2", dtype::uint16},  {"<i8", dtype::int64},
    };
    for (const auto& c : descrs) {
        INFO(c.descr);
        const auto img = simple_image(c.descr, "(2,)", std::vector<std::byte>(16));
        CHECK(parse_npy(bytes_of(img), "ok.npy").storage.type() == c.type);
    }
    SECTION("trailing bytes after the data are ignored") {
        auto img = simple_image("<i2", "(2,)", to_bytes<std::int16_t>({7, 8, 9, 10}));
        const npy_array a = parse_npy(bytes_of(img), "ok.npy");
        CHECK(a.storage.sizes() == shape{2});
        CHECK(element_at<std::int16_t>(a.view(), {1}) == 8);
    }
    SECTION("underscores in dimensions") {
        CHECK(parse_npy(bytes_of(simple_image("|u1", "(1_0,)", std::vector<std::byte>(10))), "ok.npy").storage.sizes() == shape{10});
    }
    SECTION("rank 0 and rank 8") {
        CHECK(parse_npy(bytes_of(simple_image("<f4", "( )", std::vector<std::byte>(4))), "ok.npy").storage.sizes().rank == 0);
        const auto a = parse_npy(bytes_of(simple_image("|u1", "(1,2,1,2,1,2,1,2)", std::vector<std::byte>(16))), "ok.npy");
        CHECK(a.storage.sizes() == shape{1, 2, 1, 2, 1, 2, 1, 2});
    }
    SECTION("zero-size arrays need no data") {
        const auto a = parse_npy(bytes_of(simple_image("<f8", "(4, 0, 1000000000000)")), "ok.npy");
        CHECK(a.storage.sizes() == shape{4, 0, 1000000000000});
        CHECK(a.storage.count() == 0);
    }
}

TEST_CASE("npy: malformed, truncated and unsupported images are rejected", "[npy]") {
    const auto f4 = to_bytes<float>({1, 2});
    SECTION("magic, version and header length") {
        auto bad_magic = simple_image("<f4", "(2,)", f4);
        bad_magic[5] = std::byte{'X'};
        require_bad(bad_magic, {"not a .npy file (bad magic)"});
        require_bad(to_bytes(std::string_view("PK\x03\x04 this is a zip file")), {"bad magic"});
        require_bad(to_bytes("\x93NUMPZ"), {"bad magic"});
        require_bad({}, {"truncated header", "only 0 bytes"});
        require_bad(to_bytes("\x93NUM"), {"truncated header"});
        require_bad(to_bytes("\x93NUMPY\x01"), {"truncated header", "only 7 bytes"});
        require_bad(to_bytes(std::string_view("\x93NUMPY\x01\x00\x10", 9)), {"truncated header"});
        require_bad(to_bytes(std::string_view("\x93NUMPY\x02\x00\x10\x00\x00", 11)), {"truncated header"});
        require_bad(make_image(4, "{}"), {"unsupported .npy format version 4.0"});
        require_bad(make_image(1, "{}", {}, 1), {"unsupported .npy format version 1.1"});
        require_bad(make_image(0, "{}"), {"unsupported .npy format version 0.0"});
        auto long_header = simple_image("<f4", "(2,)", f4);
        long_header[9] = std::byte{0x10}; // adds 4096 to the length
        const std::size_t claimed = 4096 + std::to_integer<std::size_t>(long_header[8]);
        require_bad(long_header, {"header length " + std::to_string(claimed) + " goes beyond the end of the file",
                                  "holds only " + std::to_string(long_header.size()) + " bytes"});
        auto huge_v2 = make_image(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", f4);
        for (int i = 8; i < 12; ++i) huge_v2[static_cast<std::size_t>(i)] = std::byte{0xff};
        require_bad(huge_v2, {"header length 4294967295 goes beyond the end of the file"});
    }
    SECTION("truncated data and lying shapes") {
        require_bad(simple_image("<f4", "(4,)", to_bytes<float>({1, 2, 3})),
                    {"truncated: the header declares shape (4,) of float32 (16 bytes) but only 12 bytes of data follow"});
        const auto lying = simple_image("<f4", "(1000, 1000)", to_bytes<float>({1, 2, 3}));
        try {
            (void)parse_npy(bytes_of(lying), "x.npy");
            FAIL("no error");
        } catch (const strix::error& e) {
            CHECK(e.code() == error_code::bad_file);
            CHECK(std::string(e.what()) == "x.npy: truncated: the header declares shape (1000,1000) of float32 "
                                           "(4000000 bytes) but only 12 bytes of data follow");
        }
        require_bad(simple_image("<f8", "(1000000000000,)", f4), {"truncated", "8000000000000 bytes", "only 8 bytes"});
        require_bad(simple_image("<f8", "(3, 1000000000000, 2)"), {"truncated", "(3,1000000000000,2)"});
    }
    SECTION("element count overflow") {
        require_bad(simple_image("<f4", "(4294967296, 4294967296)", f4), {"element count overflow"});
        require_bad(simple_image("<f8", "(1152921504606846976,)", f4), {"element count overflow"});
        require_bad(simple_image("|u1", "(0, 4294967296, 4294967296)", f4), {"element count overflow"});
        require_bad(simple_image("|u1", "(9223372036854775808,)", f4), {"element count overflow", "64 bits"});
        require_bad(simple_image("|u1", "(99999999999999999999999,)", f4), {"element count overflow"});
    }
    SECTION("dtypes") {
        require_bad(simple_image("<c8", "(2,)", f4), {"unsupported dtype '<c8'"});
        require_bad(simple_image("<U3", "(2,)", f4), {"unsupported dtype '<U3'"});
        require_bad(simple_image("|V3", "(2,)", f4), {"unsupported dtype '|V3'"}); // (V2 and V1: bfloat16 and float8_e4m3fn)
        require_bad(simple_image("<f16", "(2,)", f4), {"unsupported dtype '<f16'"});
        require_bad(simple_image("|f4", "(2,)", f4), {"unsupported dtype '|f4'"});
        require_bad(simple_image("", "(2,)", f4), {"unsupported dtype ''"});
        require_bad(simple_image(">f4", "(2,)", f4), {"big-endian data ('>f4') is not supported"});
        require_bad(simple_image(">i8", "(2,)", f4), {"big-endian data ('>i8') is not supported"});
        require_bad(simple_image("|O", "(2,)", f4), {"object arrays are not supported"});
        require_bad(make_image(1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}", f4),
                    {"structured dtypes are not supported"});
    }
    SECTION("rank") {
        require_bad(simple_image("|u1", "(1, 1, 1, 1, 1, 1, 1, 1, 1)", f4),
                    {"9 dimensions", "strix supports at most 8 dimensions"});
    }
    SECTION("dimensions") {
        require_bad(simple_image("<f4", "(-1,)", f4), {"negative dimension '-1'"});
        require_bad(simple_image("<f4", "(2, -3)", f4), {"negative dimension '-3'"});
        require_bad(simple_image("<f4", "(2.5,)", f4), {"non-integer dimension '2.5'"});
        require_bad(simple_image("<f4", "(1e3,)", f4), {"non-integer dimension"});
        require_bad(simple_image("<f4", "(True,)", f4), {"non-integer dimension 'True'"});
        require_bad(simple_image("<f4", "('2',)", f4), {"non-integer dimension"});
        require_bad(simple_image("<f4", "(2__0,)", f4), {"non-integer dimension"});
        require_bad(make_image(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (2L,)}", f4),
                    {"non-integer dimension '2L'"});
    }
    SECTION("keys") {
        require_bad(make_image(1, "{'fortran_order': False, 'shape': (2,)}", f4), {"missing key 'descr'"});
        require_bad(make_image(1, "{'descr': '<f4', 'shape': (2,)}", f4), {"missing key 'fortran_order'"});
        require_bad(make_image(1, "{'descr': '<f4', 'fortran_order': False}", f4), {"missing key 'shape'"});
        require_bad(make_image(1, "{}", f4), {"missing key"});
        require_bad(make_image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", f4),
                    {"unexpected key 'extra'"});
        require_bad(make_image(1, "{'descr': '<f4', 'shape': (2,), 'fortran_order': False, 'shape': (2,)}", f4),
                    {"duplicate key 'shape'"});
    }
    SECTION("garbage dicts") {
        const char* garbage[] = {
            "",
            "hello",
            "   \n",
            "{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}",
            "{'descr': <f4, 'fortran_order': False, 'shape': (2,)}",
            "{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}",
            "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': 2}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,),,}",
            "{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}",
            "{'descr': '<f4\\n', 'fortran_order': False, 'shape': (2,)}",
            "{descr: '<f4', 'fortran_order': False, 'shape': (2,)}",
            "{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)\x01}",
        };
        for (const char* g : garbage) {
            INFO(g);
            require_bad(make_image(1, g, f4), {"malformed header dict"});
        }
        constexpr char with_nul[] = "{'descr': '<f4',\0 'fortran_order': False, 'shape': (2,)}";
        require_bad(make_image(1, std::string_view(with_nul, sizeof with_nul - 1), f4), {"malformed header dict", "\\x00"});
        require_bad(make_image(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5)}", f4),
                    {"'shape' must be a tuple", "(5,)"});
    }
}

TEST_CASE("npy: read_npy reports missing and bad files by path", "[npy]") {
    temp_dir dir;
    const fs::path missing = dir.path / "missing.npy";
    require_error([&] { (void)read_npy(missing); }, error_code::io, {"missing.npy"});
    require_error([&] { (void)read_npy(dir.path); }, error_code::io, {dir.path.string()});

    const fs::path truncated = dir.path / "truncated.npy";
    put_file(truncated, simple_image("<f4", "(4,)", to_bytes<float>({1, 2, 3})));
    require_error([&] { (void)read_npy(truncated); }, error_code::bad_file,
                  {truncated.string() + ": truncated: the header declares shape (4,)", "only 12 bytes"});

    const fs::path lying = dir.path / "lying.npy";
    put_file(lying, simple_image("<f8", "(1000000000000,)", to_bytes<float>({1})));
    require_error([&] { (void)read_npy(lying); }, error_code::bad_file, {"lying.npy: truncated", "8000000000000 bytes"});

    const fs::path short_header = dir.path / "short.npy";
    auto img = simple_image("<f4", "(1,)", to_bytes<float>({1}));
    img.resize(40);
    put_file(short_header, img);
    require_error([&] { (void)read_npy(short_header); }, error_code::bad_file, {"short.npy: header length"});

    const fs::path empty = dir.path / "empty.npy";
    put_file(empty, {});
    require_error([&] { (void)read_npy(empty); }, error_code::bad_file, {"empty.npy: truncated header"});

    const fs::path good = dir.path / "good.npy";
    put_file(good, simple_image("<f4", "(2,)", to_bytes<float>({1, 2, 3})));
    CHECK(element_at<float>(read_npy(good).view(), {1}) == 2.0f);
}

TEST_CASE("npy: write_npy replaces files only on success", "[npy]") {
    temp_dir dir;
    host_tensor a(dtype::float64, {5});
    fill_pattern(a, 1);
    host_tensor b(dtype::int16, {2, 2});
    fill_pattern(b, 2);

    SECTION("a path in a nonexistent directory") {
        const fs::path nowhere = dir.path / "no" / "such" / "dir" / "x.npy";
        require_error([&] { write_npy(nowhere, a.view()); }, error_code::io, {"x.npy", "cannot create"});
        CHECK_FALSE(fs::exists(dir.path / "no"));
        CHECK(entries(dir.path).empty());
    }
    SECTION("an existing file is replaced") {
        const fs::path p = dir.path / "x.npy";
        write_npy(p, a.view());
        require_same_elements(read_npy(p).view(), a.view());
        write_npy(p, b.view());
        const npy_array r = read_npy(p);
        CHECK(r.storage.type() == dtype::int16);
        require_same_elements(r.view(), b.view());
        CHECK(entries(dir.path) == std::vector<std::string>{"x.npy"});
    }
    SECTION("a failing write leaves an existing file unchanged") {
        const fs::path p = dir.path / "x.npy";
        write_npy(p, a.view());
        const auto before = file_bytes(p);
        const any_cview no_data(nullptr, dtype::float32, {3});
        require_error([&] { write_npy(p, no_data); }, error_code::bad_view, {"x.npy", "no data"});
        const any_cview negative(b.data(), dtype::int16, {2, -2});
        require_error([&] { write_npy(p, negative); }, error_code::bad_view, {"negative size"});
        CHECK(file_bytes(p) == before);
        CHECK(entries(dir.path) == std::vector<std::string>{"x.npy"});
    }
    SECTION("renaming over a directory fails and leaves no temporary file") {
        const fs::path d = dir.path / "d.npy";
        fs::create_directory(d);
        put_file(d / "keep", to_bytes("keep"));
        require_error([&] { write_npy(d, a.view()); }, error_code::io, {"d.npy", "cannot replace"});
        CHECK(fs::is_directory(d));
        CHECK(entries(d) == std::vector<std::string>{"keep"});
        CHECK(entries(dir.path) == std::vector<std::string>{"d.npy"});
    }
    SECTION("a path that names no file") {
        require_error([&] { write_npy(dir.path / "sub" / "", a.view()); }, error_code::invalid_argument, {"names no file"});
        CHECK(entries(dir.path).empty());
    }
}

TEST_CASE("npy: write_npy_files writes every file or none", "[npy]") {
    temp_dir dir;
    host_tensor a(dtype::float64, {5});
    fill_pattern(a, 1);
    host_tensor b(dtype::int16, {2, 2});
    fill_pattern(b, 2);
    const std::vector<any_cview> views = {a.view(), b.view()};
    const fs::path first = dir.path / "first.npy", second = dir.path / "second.npy";

    SECTION("both written") {
        put_file(first, to_bytes("old"));
        strix::io::write_npy_files(std::vector<fs::path>{first, second}, views);
        require_same_elements(read_npy(first).view(), a.view());
        require_same_elements(read_npy(second).view(), b.view());
        CHECK(entries(dir.path) == std::vector<std::string>{"first.npy", "second.npy"});
    }
    SECTION("a directory among the outputs: nothing changes") {
        fs::create_directory(dir.path / "d.npy");
        put_file(first, to_bytes("old"));
        require_error([&] { strix::io::write_npy_files(std::vector<fs::path>{first, second, dir.path / "d.npy"}, std::vector<any_cview>{a.view(), b.view(), a.view()}); },
                      error_code::io, {"d.npy", "directory"});
        CHECK(file_bytes(first) == to_bytes("old"));
        CHECK(entries(dir.path) == std::vector<std::string>{"d.npy", "first.npy"});
    }
    SECTION("a view that cannot be written: nothing is created") {
        const any_cview no_data(nullptr, dtype::float32, {3});
        require_error([&] { strix::io::write_npy_files(std::vector<fs::path>{first, second}, std::vector<any_cview>{a.view(), no_data}); },
                      error_code::bad_view, {"second.npy", "no data"});
        CHECK(entries(dir.path).empty());
    }
    SECTION("as many paths as views") {
        require_error([&] { strix::io::write_npy_files(std::vector<fs::path>{first}, views); }, error_code::invalid_argument,
                      {"1 paths for 2 views"});
        CHECK(entries(dir.path).empty());
    }
#ifndef _WIN32
    SECTION("a device that fails after the files were renamed: they are put back") {
        const fs::path full = dir.path / "full";
        if (::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0) {
            WARN("cannot make a device node here: " << std::strerror(errno));
            return;
        }
        put_file(first, to_bytes("old"));
        require_error([&] { strix::io::write_npy_files(std::vector<fs::path>{first, second, full}, std::vector<any_cview>{a.view(), b.view(), a.view()}); },
                      error_code::io, {"full", "write"});
        CHECK(file_bytes(first) == to_bytes("old"));
        CHECK(fs::is_character_file(full));
        CHECK(entries(dir.path) == std::vector<std::string>{"first.npy", "full"});
    }
#endif
}

TEST_CASE("npy: write_npy's temporary files", "[npy]") {
    temp_dir dir;
    host_tensor a(dtype::uint8, {3});
    fill_pattern(a, 3);
    SECTION("a file of another program beside the output is never touched") {
        for (const char* name : {"x.npy.strix-partial", ".x.npy.strix-0000000000000000.tmp", ".strix-0000000000"})
            put_file(dir.path / name, to_bytes(name));
        write_npy(dir.path / "x.npy", a.view());
        for (const char* name : {"x.npy.strix-partial", ".x.npy.strix-0000000000000000.tmp", ".strix-0000000000"})
            CHECK(file_bytes(dir.path / name) == to_bytes(name));
        CHECK(entries(dir.path).size() == 4);
    }
    SECTION("the longest names a folder takes") {
        for (const std::size_t length : {std::size_t{228}, std::size_t{255}}) {
            const fs::path p = dir.path / (std::string(length - 4, 'n') + ".npy");
            write_npy(p, a.view());
            require_same_elements(read_npy(p).view(), a.view());
            CHECK(entries(dir.path) == std::vector<std::string>{p.filename().string()});
            fs::remove(p);
        }
    }
}

#ifndef _WIN32
TEST_CASE("npy: write_npy follows links and writes FIFOs where they are", "[npy]") {
    temp_dir dir;
    host_tensor a(dtype::int32, {4});
    fill_pattern(a, 4);
    SECTION("a link keeps pointing at its target, which gets the data") {
        fs::create_directory(dir.path / "sub");
        put_file(dir.path / "sub" / "t.npy", to_bytes("old"));
        fs::create_symlink(fs::path("sub") / "t.npy", dir.path / "link.npy");
        fs::create_symlink(fs::path("sub") / "new.npy", dir.path / "dangling.npy");
        write_npy(dir.path / "link.npy", a.view());
        write_npy(dir.path / "dangling.npy", a.view());
        CHECK(fs::is_symlink(dir.path / "link.npy"));
        CHECK(fs::read_symlink(dir.path / "link.npy") == fs::path("sub") / "t.npy");
        CHECK(fs::is_symlink(dir.path / "dangling.npy"));
        require_same_elements(read_npy(dir.path / "sub" / "t.npy").view(), a.view());
        require_same_elements(read_npy(dir.path / "sub" / "new.npy").view(), a.view());
        CHECK(entries(dir.path / "sub") == std::vector<std::string>{"new.npy", "t.npy"});
    }
    SECTION("a loop of links is refused") {
        fs::create_symlink("loop.npy", dir.path / "loop.npy");
        require_error([&] { write_npy(dir.path / "loop.npy", a.view()); }, error_code::io, {"loop.npy", "symbolic links"});
        CHECK(fs::is_symlink(dir.path / "loop.npy"));
    }
    SECTION("a FIFO") {
        const fs::path fifo = dir.path / "pipe";
        REQUIRE(::mkfifo(fifo.c_str(), 0666) == 0);
        const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
        REQUIRE(reader >= 0);
        write_npy(fifo, a.view());
        std::vector<std::byte> got(4096);
        const auto n = ::read(reader, got.data(), got.size());
        ::close(reader);
        REQUIRE(n > 0);
        got.resize(static_cast<std::size_t>(n));
        CHECK(got == serialize_npy(a.view()));
        CHECK(fs::is_fifo(fifo));
        CHECK(entries(dir.path) == std::vector<std::string>{"pipe"});
    }
}
#endif

#if defined(__SANITIZE_ADDRESS__)
#define STRIX_NPY_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define STRIX_NPY_TEST_ASAN 1
#endif
#endif

TEST_CASE("npy: running out of memory names what it needed", "[npy]") {
    const strix::out_of_memory e(std::size_t{1} << 33, dtype::float32, shape{2, 1073741824}, "big.npy");
    CHECK(std::string(e.what()) == "big.npy: cannot allocate 8589934592 bytes (shape [2,1073741824], float32)");
    CHECK(e.bytes() == std::size_t{1} << 33);
    CHECK(e.sizes() == shape{2, 1073741824});
    const std::bad_alloc& as_bad_alloc = e; // handlers of std::bad_alloc still see it
    CHECK_THAT(as_bad_alloc.what(), Catch::Contains("cannot allocate"));
#ifndef STRIX_NPY_TEST_ASAN
    // 2^58 bytes: more than any address space, so the allocation fails at once (AddressSanitizer
    // reports such a request instead of failing it, so sanitized builds leave this part out)
    try {
        host_tensor t(dtype::uint8, {std::int64_t{1} << 29, std::int64_t{1} << 29});
        FAIL("a 2^58-byte tensor was allocated");
    } catch (const strix::out_of_memory& oom) {
        CHECK(oom.bytes() == std::size_t{1} << 58);
        CHECK(std::string(oom.what()) == "strix::host_tensor: cannot allocate 288230376151711744 bytes (shape [536870912,536870912], uint8)");
    }
#endif
}

TEST_CASE("npy: serialize_npy rejects unusable views", "[npy]") {
    require_error([] { (void)serialize_npy(any_cview(nullptr, dtype::uint8, {2, 2})); }, error_code::bad_view,
                  {"serialize_npy", "no data"});
    const std::int32_t x = 0;
    require_error([&] { (void)serialize_npy(any_cview(&x, dtype::int32, {-1})); }, error_code::bad_view, {"negative size"});
    require_error([&] { (void)serialize_npy(any_cview(&x, dtype::int32, {1 << 30, 1 << 30, 1 << 30}, {0, 0, 0})); },
                  error_code::bad_view, {"overflows"});
    CHECK(serialize_npy(any_cview(nullptr, dtype::uint8, {0, 3})).size() == 128); // empty: no data needed
}

// The one list of element types (STRIX_ELEMENT_TYPES in strix/dtype.hpp), each line's columns
// against what the C++ storage type and the formats say on their own: its size, its kind (C++'s
// type traits), its name's and NumPy descr's round trips, the Vulkan reduce shader's arithmetic
// code (0 float64, 1 float32, 2 float16, 3 signed, 4 unsigned integers, 5 bfloat16, 6
// float8_e4m3fn, 7 float8_e5m2, 8 bool) and DLPack's code (from its 1.x header's enum).
TEST_CASE("dtype: every line of the list of element types agrees with its storage type", "[npy]") {
    std::vector<std::string_view> names;
    for (const dtype t : strix::all_dtypes) {
        INFO(strix::name(t));
        strix::visit(t, [&]<class T>(strix::type_tag<T>) {
            CHECK(strix::size_of(t) == sizeof(T));
            CHECK(strix::dtype_of<T> == t);
            constexpr bool narrow = strix::detail::is_narrow_float_v<T>;
            constexpr bool floating = std::is_floating_point_v<T> || narrow;
            constexpr bool boolean = std::is_same_v<T, bool>;
            CHECK(strix::is_float(t) == floating);
            CHECK(strix::is_signed_int(t) == (std::is_integral_v<T> && std::is_signed_v<T>));
            CHECK((strix::kind_of(t) == strix::dtype_kind::boolean) == boolean);
            const std::uint32_t code = strix::info_of(t).shader;
            const std::uint32_t dl = strix::info_of(t).dlpack;
            if constexpr (std::is_same_v<T, strix::bfloat16>) CHECK((code == 5u && dl == 4u));
            else if constexpr (std::is_same_v<T, strix::float8_e4m3fn>) CHECK((code == 6u && dl == 10u));
            else if constexpr (std::is_same_v<T, strix::float8_e5m2>) CHECK((code == 7u && dl == 12u));
            else if constexpr (boolean) CHECK((code == 8u && dl == 6u));
            else if constexpr (floating) CHECK((code == (sizeof(T) == 8 ? 0u : sizeof(T) == 4 ? 1u : 2u) && dl == 2u));
            else CHECK((code == (std::is_signed_v<T> ? 3u : 4u) && dl == (std::is_signed_v<T> ? 0u : 1u)));
        });
        CHECK(std::find(names.begin(), names.end(), strix::name(t)) == names.end());
        names.push_back(strix::name(t));
        const std::string_view descr = strix::io::detail::npy_descr(t);
        REQUIRE(descr.size() == 3);
        CHECK(descr[2] - '0' == static_cast<int>(strix::size_of(t)));
        // NumPy's own types: its kind letter; ml_dtypes' (as np.save writes them): bfloat16 and
        // float8_e4m3fn as void of their size, float8_e5m2 as '<f1'
        const bool ml = t == dtype::bfloat16 || t == dtype::float8_e4m3fn || t == dtype::float8_e5m2;
        if (!ml) {
            CHECK(descr[0] == (strix::size_of(t) == 1 ? '|' : '<'));
            CHECK(descr[1] == (t == dtype::boolean ? 'b' : strix::is_float(t) ? 'f' : strix::is_signed_int(t) ? 'i' : 'u'));
        } else {
            CHECK(descr == (t == dtype::bfloat16 ? "<V2" : t == dtype::float8_e4m3fn ? "<V1" : "<f1"));
        }
        CHECK(strix::io::detail::npy_parse_descr(descr, "test") == t);
    }
    CHECK(names.size() == static_cast<std::size_t>(strix::dtype_count));
}
