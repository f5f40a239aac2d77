// DLPack exchange: views of tensors other frameworks describe (strided, offset, every type), a
// strix tensor handed out and its deleter, and the errors for what strix cannot view.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "strix/dlpack.hpp"
#include "strix/strix.hpp"

namespace {

using strix::dtype;
using strix::error_code;
using strix::shape;

error_code code_of(const auto& f, std::string* what = nullptr) {
    try {
        f();
    } catch (const strix::error& e) {
        if (what) *what = e.what();
        return e.code();
    }
    return error_code{};
}

DLTensor describe(void* data, DLDataType type, std::vector<std::int64_t>& sizes, std::vector<std::int64_t>* strides, std::uint64_t offset = 0) {
    DLTensor t{};
    t.data = data;
    t.device = DLDevice{kDLCPU, 0};
    t.ndim = static_cast<std::int32_t>(sizes.size());
    t.dtype = type;
    t.shape = sizes.data();
    t.strides = strides ? strides->data() : nullptr;
    t.byte_offset = offset;
    return t;
}

} // namespace

TEST_CASE("dlpack: every strix type maps to a DLPack type and back", "[dlpack]") {
    for (const dtype t : strix::all_dtypes) {
        const DLDataType d = strix::dlpack::type_of(t);
        CHECK(d.lanes == 1);
        CHECK(d.bits == strix::size_of(t) * 8);
        CHECK(strix::dlpack::type_of(d) == t);
    }
    CHECK(strix::dlpack::type_of(DLDataType{kDLFloat, 16, 1}) == dtype::float16);
    CHECK(strix::dlpack::type_of(DLDataType{kDLInt, 64, 1}) == dtype::int64);
    CHECK(strix::dlpack::type_of(DLDataType{kDLUInt, 8, 1}) == dtype::uint8);
}

TEST_CASE("dlpack: bfloat16, bool and the float8 types have DLPack's codes, in and out", "[dlpack]") {
    // the codes as numbers: Debian's DLPack 0.6 header names kDLBfloat (4) only; kDLBool (6) is
    // 0.8's, kDLFloat8_e4m3fn (10) and kDLFloat8_e5m2 (12) are 1.1's
    const struct {
        dtype type;
        std::uint8_t code, bits;
    } types[] = {{dtype::bfloat16, 4, 16}, {dtype::boolean, 6, 8}, {dtype::float8_e4m3fn, 10, 8}, {dtype::float8_e5m2, 12, 8}};
    static_assert(kDLBfloat == 4);
    for (const auto& [type, code, bits] : types) {
        INFO(strix::name(type));
        const DLDataType d = strix::dlpack::type_of(type);
        CHECK(d.code == code);
        CHECK(d.bits == bits);
        CHECK(d.lanes == 1);
        CHECK(strix::dlpack::type_of(DLDataType{code, bits, 1}) == type);
        // another framework's tensor of the type, strided (every other column, right to left),
        // viewed in place: a gather from it takes the elements' bytes as they are
        std::vector<std::uint8_t> buffer(2 * 6 * (bits / 8));
        for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<std::uint8_t>(type == dtype::boolean ? (i * 7) % 3 == 0 : 0x31 + i * 5);
        std::vector<std::int64_t> sizes{2, 3}, strides{6, -2};
        const DLTensor t = describe(buffer.data(), DLDataType{code, bits, 1}, sizes, &strides, 5 * (bits / 8));
        const strix::any_view v = strix::dlpack::view(t);
        CHECK(v.type() == type);
        CHECK(v.sizes() == shape{2, 3});
        const std::int64_t idx[3] = {2, 0, 1};
        strix::host_tensor g = strix::gather(strix::any_cview(v), strix::any_cview(idx, dtype::int64, shape{3}), strix::gather_desc{1});
        REQUIRE(g.type() == type);
        const std::size_t es = bits / 8;
        for (int r = 0; r < 2; ++r)
            for (int k = 0; k < 3; ++k)
                CHECK(std::memcmp(g.data() + (r * 3 + k) * es, buffer.data() + (5 + r * 6 - 2 * idx[k]) * es, es) == 0);
        // and out: the gather's result handed to a consumer, its code, bits and one lane
        const void* elements = g.data();
        strix::dlpack::managed owner(strix::dlpack::to_dlpack(std::move(g)));
        const DLTensor& out = owner.get()->dl_tensor;
        CHECK(out.data == elements);
        CHECK(out.dtype.code == code);
        CHECK(out.dtype.bits == bits);
        CHECK(out.dtype.lanes == 1);
        CHECK(out.ndim == 2);
        CHECK(owner.view().type() == type);
    }
}

TEST_CASE("dlpack: a strided tensor with a byte offset is viewed in place and gathered from", "[dlpack]") {
    // a 4x6 float32 buffer; the tensor: rows 1..3, every other column, right to left
    std::vector<float> buffer(24);
    std::iota(buffer.begin(), buffer.end(), 0.0f);
    std::vector<std::int64_t> sizes{3, 3}, strides{6, -2};
    const DLTensor t = describe(buffer.data(), DLDataType{kDLFloat, 32, 1}, sizes, &strides, (6 + 5) * sizeof(float));
    const strix::any_view v = strix::dlpack::view(t);
    CHECK(v.type() == dtype::float32);
    CHECK(v.sizes() == shape{3, 3});
    CHECK(v.data() == buffer.data() + 11);
    // a gather on the view against a naive loop over the same elements
    const std::int64_t idx[2] = {2, 0};
    const strix::host_tensor out = strix::gather(strix::any_cview(v), strix::any_cview(idx, dtype::int64, shape{2}), strix::gather_desc{1});
    const auto* o = reinterpret_cast<const float*>(out.data());
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 2; ++k) CHECK(o[r * 2 + k] == buffer[static_cast<std::size_t>(11 + r * 6 - 2 * idx[k])]);
    // without strides: C order
    std::vector<std::int64_t> sizes2{4, 6};
    const strix::any_view c = strix::dlpack::view(describe(buffer.data(), DLDataType{kDLFloat, 32, 1}, sizes2, nullptr));
    CHECK(c.stride(0) == 6);
    CHECK(c.stride(1) == 1);
    // rank 0: one element
    std::vector<std::int64_t> none;
    CHECK(strix::dlpack::view(describe(buffer.data() + 3, DLDataType{kDLFloat, 32, 1}, none, nullptr)).count() == 1);
}

TEST_CASE("dlpack: a strix tensor handed out owns its elements until the consumer's deleter", "[dlpack]") {
    strix::host_tensor t(dtype::int16, shape{2, 3});
    for (int i = 0; i < 6; ++i) reinterpret_cast<std::int16_t*>(t.data())[i] = static_cast<std::int16_t>(i * 7 - 3);
    const void* elements = t.data();
    DLManagedTensor* m = strix::dlpack::to_dlpack(std::move(t));
    REQUIRE(m);
    CHECK(m->dl_tensor.data == elements); // moved, not copied
    CHECK(m->dl_tensor.device.device_type == kDLCPU);
    CHECK(m->dl_tensor.ndim == 2);
    CHECK(m->dl_tensor.shape[0] == 2);
    CHECK(m->dl_tensor.shape[1] == 3);
    CHECK(m->dl_tensor.strides[0] == 3);
    CHECK(m->dl_tensor.strides[1] == 1);
    CHECK(m->dl_tensor.dtype.code == kDLInt);
    CHECK(m->dl_tensor.dtype.bits == 16);
    {
        strix::dlpack::managed owner(m); // the consumer: views it, then lets it go
        const strix::any_view v = owner.view();
        CHECK(reinterpret_cast<const std::int16_t*>(v.data())[5] == 32);
        strix::dlpack::managed moved(std::move(owner));
        CHECK(moved.get() == m);
        CHECK(owner.get() == nullptr);
    } // deleter ran once here (ASan reports a leak or a double free otherwise)
    strix::dlpack::managed empty;
    CHECK(code_of([&] { (void)empty.view(); }) == error_code::invalid_argument);
}

TEST_CASE("dlpack: what strix cannot view is a clear error", "[dlpack]") {
    std::vector<double> buffer(16);
    std::vector<std::int64_t> sizes{4, 4};
    std::string what;
    DLTensor t = describe(buffer.data(), DLDataType{kDLFloat, 64, 1}, sizes, nullptr);
    t.device = DLDevice{kDLCUDA, 0};
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("device type 2") != std::string::npos);
    t.device = DLDevice{kDLVulkan, 0}; // a Vulkan buffer: viewed on a context, not here
    CHECK(code_of([&] { (void)strix::from_dlpack(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("strix::vulkan::from_dlpack") != std::string::npos);
    t.device = DLDevice{kDLCPU, 0};
    CHECK(strix::from_dlpack(t).data() == buffer.data()); // the library-wide name of dlpack::view
    t.dtype = DLDataType{kDLFloat, 32, 2};
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("2 lanes") != std::string::npos);
    t.dtype = DLDataType{kDLComplex, 64, 1}; // a type strix has not
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("no strix element type for the DLPack type (code 5, 64 bits, 1 lanes)") != std::string::npos);
    t.dtype = DLDataType{11, 8, 1}; // kDLFloat8_e4m3fnuz (DLPack 1.1), a float8 format strix has not
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("no strix element type for the DLPack type (code 11, 8 bits, 1 lanes)") != std::string::npos);
    t.dtype = DLDataType{kDLBfloat, 32, 1}; // a code strix has, with other bits
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("code 4, 32 bits") != std::string::npos);
    t.dtype = DLDataType{kDLFloat, 64, 1};
    t.byte_offset = 4; // half an element
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("aligned") != std::string::npos);
    t.byte_offset = 0;
    std::vector<std::int64_t> nine(9, 1);
    DLTensor deep = describe(buffer.data(), DLDataType{kDLFloat, 64, 1}, nine, nullptr);
    CHECK(code_of([&] { (void)strix::dlpack::view(deep); }, &what) == error_code::invalid_argument);
    CHECK(what.find("9 dimensions") != std::string::npos);
    std::vector<std::int64_t> negative{4, -1};
    DLTensor neg = describe(buffer.data(), DLDataType{kDLFloat, 64, 1}, negative, nullptr);
    CHECK(code_of([&] { (void)strix::dlpack::view(neg); }, &what) == error_code::invalid_argument);
    CHECK(what.find("negative size -1") != std::string::npos);
    // a reach past 64-bit byte offsets
    std::vector<std::int64_t> huge{2, 2}, far{std::int64_t{1} << 62, 1};
    DLTensor wide = describe(buffer.data(), DLDataType{kDLFloat, 64, 1}, huge, &far);
    CHECK(code_of([&] { (void)strix::dlpack::view(wide); }) != error_code{});
}

TEST_CASE("dlpack: data and byte_offset are checked before a pointer is formed from them", "[dlpack]") {
    alignas(64) static double buffer[16] = {};
    std::vector<std::int64_t> sizes{4, 4};
    std::string what;
    // no data for a tensor with elements, whatever byte_offset says (the view was at 0x40)
    DLTensor t = describe(nullptr, DLDataType{kDLFloat, 64, 1}, sizes, nullptr, 64);
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("float64 tensor [4,4] has no data") != std::string::npos);
    t.byte_offset = 0;
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("has no data") != std::string::npos);
    // an empty tensor may have none (DLPack's producers pass null there): a view without data
    std::vector<std::int64_t> empty{0, 4};
    DLTensor none = describe(nullptr, DLDataType{kDLFloat, 64, 1}, empty, nullptr, 64);
    const strix::any_view e = strix::dlpack::view(none);
    CHECK(e.count() == 0);
    CHECK(e.sizes() == shape{0, 4});
    CHECK(e.data() == nullptr);
    // a byte_offset that wraps the pointer around the address space: it pointed 64 bytes
    // before the data
    t.data = buffer + 8;
    t.byte_offset = ~std::uint64_t{0} - 63; // 2^64 - 64
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("byte_offset 18446744073709551552 carries the data pointer 0x") != std::string::npos);
    CHECK(what.find("past the end of the address space") != std::string::npos);
    // the largest offset that does not wrap is taken as far as the offset goes; the view's
    // elements are then beyond the end
    const auto base = reinterpret_cast<std::uintptr_t>(buffer);
    t.data = buffer;
    t.byte_offset = std::numeric_limits<std::uintptr_t>::max() - base - 7; // the address space's last 8 bytes
    CHECK(code_of([&] { (void)strix::dlpack::view(t); }, &what) == error_code::invalid_argument);
    CHECK(what.find("reaches 127 bytes above its element at coordinates 0") != std::string::npos);
    CHECK(what.find("past the end of the address space") != std::string::npos);
    // negative strides that reach below address 0 (within 64-bit offsets, so check_view took them)
    std::vector<std::int64_t> two{2}, back{-(std::int64_t{1} << 58)};
    DLTensor down = describe(buffer, DLDataType{kDLFloat, 64, 1}, two, &back);
    CHECK(code_of([&] { (void)strix::dlpack::view(down); }, &what) == error_code::invalid_argument);
    CHECK(what.find("reaches 2305843009213693952 bytes below its element at coordinates 0") != std::string::npos);
    CHECK(what.find("before the start of the address space") != std::string::npos);
    // what stays accepted: an offset into the buffer, and the negative strides the existing
    // views use
    t.byte_offset = 8 * 8;
    t.data = buffer;
    std::vector<std::int64_t> two_by_four{2, 4};
    t.shape = two_by_four.data();
    CHECK(strix::dlpack::view(t).data() == buffer + 8);
    back[0] = -1;
    down.byte_offset = 8;
    CHECK(strix::dlpack::view(down).data() == buffer + 1);
}
