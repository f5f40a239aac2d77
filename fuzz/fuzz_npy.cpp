// Fuzz target: the .npy reader.
//
// Every input is parsed twice, from memory (parse_npy) and from a file (read_npy); both must
// agree: either both throw strix::error, or both yield the same array. A successful read must be
// consistent with itself (the tensor holds exactly count * element size bytes, the declared
// order is kept), and writing it back must give an image that reads back to the same array and
// writes out to the very same bytes again.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "strix/io/npy.hpp"

namespace {

[[noreturn]] void fail(const char* what) {
    std::fprintf(stderr, "fuzz_npy: %s\n", what);
    std::abort();
}

// A directory of this process's own, removed at exit.
struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "strix-fuzz-npy-XXXXXX").string();
        if (!mkdtemp(tmpl.data())) fail("cannot create a temporary directory");
        path = tmpl;
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

// Element i (in C order of the shape) of a view of a host array, as raw bytes.
const std::byte* element_at(const strix::any_cview& v, std::int64_t i) {
    std::array<std::int64_t, strix::max_rank> c{};
    for (int d = v.rank() - 1; d >= 0; --d) {
        c[static_cast<std::size_t>(d)] = i % v.size(d);
        i /= v.size(d);
    }
    return v.address(c);
}

// The two arrays have one type, shape and order, and hold the same bytes.
void same_array(const strix::io::npy_array& a, const strix::io::npy_array& b, const char* what) {
    if (a.storage.type() != b.storage.type() || a.storage.sizes() != b.storage.sizes() || a.fortran_order != b.fortran_order)
        fail(what);
    if (a.storage.bytes() != b.storage.bytes()) fail(what);
    if (a.storage.bytes() && std::memcmp(a.storage.data(), b.storage.data(), a.storage.bytes()) != 0) fail(what);
}

// What a successful read must satisfy on its own.
void check_array(const strix::io::npy_array& a, std::size_t image_size) {
    const auto& t = a.storage;
    const std::int64_t count = t.sizes().checked_count();
    if (t.sizes().rank < 0 || t.sizes().rank > strix::max_rank) fail("rank outside 0..8");
    if (count < 0) fail("a shape with a negative size or an overflowing element count was accepted");
    const auto bytes = static_cast<unsigned __int128>(count) * strix::size_of(t.type());
    if (bytes != t.bytes()) fail("the tensor's byte size is not count * element size");
    if (bytes > image_size) fail("the array holds more bytes than the image");
    if (bytes && t.data() == nullptr) fail("a non-empty array without data");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static temp_dir dir;
    const std::span<const std::byte> image(reinterpret_cast<const std::byte*>(data), size);

    bool mem_ok = false;
    strix::io::npy_array from_memory;
    try {
        from_memory = strix::io::parse_npy(image, "fuzz.npy");
        mem_ok = true;
    } catch (const strix::error& e) {
        if (e.code() != strix::error_code::bad_file) fail("parse_npy threw an error that is not bad_file");
    }

    // the same bytes through the file reader
    const auto path = dir.path / "input.npy";
    {
        std::ofstream f(path, std::ios::binary | std::ios::trunc);
        f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        if (!f) fail("cannot write the temporary file");
    }
    bool file_ok = false;
    strix::io::npy_array from_file;
    try {
        from_file = strix::io::read_npy(path);
        file_ok = true;
    } catch (const strix::error& e) {
        if (e.code() != strix::error_code::bad_file) fail("read_npy threw an error that is not bad_file");
    }
    if (mem_ok != file_ok) fail(mem_ok ? "parse_npy accepted what read_npy rejected" : "read_npy accepted what parse_npy rejected");
    if (!mem_ok) return 0;
    same_array(from_memory, from_file, "parse_npy and read_npy read different arrays");
    check_array(from_memory, size);

    // write it back (always C order) and read that again
    const auto out = strix::io::serialize_npy(from_memory.view());
    strix::io::npy_array again;
    try {
        again = strix::io::parse_npy(out, "written.npy");
    } catch (const strix::error&) {
        fail("an image written by serialize_npy does not read back");
    }
    const auto& a = from_memory.storage;
    const auto& b = again.storage;
    if (again.fortran_order) fail("serialize_npy wrote a Fortran-order image");
    if (a.type() != b.type() || a.sizes() != b.sizes()) fail("the written image has another type or shape");
    const std::int64_t count = a.count();
    const auto va = from_memory.view();
    const auto vb = again.view();
    const std::size_t es = strix::size_of(a.type());
    for (std::int64_t i = 0; i < count && i < 4096; ++i)
        if (std::memcmp(element_at(va, i), element_at(vb, i), es) != 0) fail("the written image holds other elements");
    if (strix::io::serialize_npy(vb) != out) fail("writing the read-back array gives other bytes");
    return 0;
}
