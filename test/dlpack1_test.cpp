// DLPack 1.x's versioned exchange, compiled against a header shaped as DLPack 1.1 specifies
// (test/dlpack1/dlpack/dlpack.h): a strix tensor handed out as a DLManagedTensorVersioned, one
// taken in and released once, the read-only flag honoured, and the type codes of bfloat16, bool
// and the float8 types as the header names them (strix/dlpack.hpp checks them against the
// header's enum where it has them, which this header does).
#include <catch2/catch.hpp>

#include "strix/dlpack.hpp"

static_assert(DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION == 1, "this test is built against the DLPack 1.1-shaped header in test/dlpack1");

namespace {

using strix::dtype;
using strix::shape;

int deleted = 0;

} // namespace

TEST_CASE("dlpack 1.x: a strix tensor handed out as a versioned tensor, and taken back", "[dlpack1]") {
    strix::host_tensor t(dtype::uint16, shape{3, 2});
    for (int i = 0; i < 6; ++i) reinterpret_cast<std::uint16_t*>(t.data())[i] = static_cast<std::uint16_t>(100 + i);
    const void* elements = t.data();
    DLManagedTensorVersioned* m = strix::dlpack::to_dlpack_versioned(std::move(t));
    REQUIRE(m);
    CHECK(m->version.major == 1);
    CHECK(m->version.minor == 1);
    CHECK(m->flags == 0);
    CHECK(m->dl_tensor.data == elements);
    CHECK(m->dl_tensor.device.device_type == kDLCPU);
    CHECK(m->dl_tensor.dtype.code == kDLUInt);
    CHECK(m->dl_tensor.dtype.bits == 16);
    CHECK(m->dl_tensor.shape[0] == 3);
    CHECK(m->dl_tensor.strides[0] == 2);
    strix::dlpack::managed_versioned owner(m);
    CHECK_FALSE(owner.read_only());
    const strix::any_view v = owner.view();
    CHECK(v.sizes() == shape{3, 2});
    CHECK(reinterpret_cast<const std::uint16_t*>(v.data())[5] == 105);
}

TEST_CASE("dlpack 1.x: a read-only tensor is viewed only as const, and its deleter runs once", "[dlpack1]") {
    float values[4] = {1, 2, 3, 4};
    std::int64_t sizes[1] = {4};
    auto* m = new DLManagedTensorVersioned{};
    m->version = DLPackVersion{1, 0};
    m->flags = DLPACK_FLAG_BITMASK_READ_ONLY;
    m->dl_tensor.data = values;
    m->dl_tensor.device = DLDevice{kDLCPU, 0};
    m->dl_tensor.ndim = 1;
    m->dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
    m->dl_tensor.shape = sizes;
    m->deleter = [](DLManagedTensorVersioned* self) {
        ++deleted;
        delete self;
    };
    deleted = 0;
    {
        strix::dlpack::managed_versioned owner(m);
        CHECK(owner.read_only());
        CHECK_THROWS_WITH(owner.view(), Catch::Contains("read-only"));
        const strix::any_cview c = owner.cview();
        CHECK(c.count() == 4);
        CHECK(c.data() == values);
        strix::dlpack::managed_versioned moved(std::move(owner));
        CHECK(deleted == 0);
    }
    CHECK(deleted == 1);
}

TEST_CASE("dlpack 1.x: bfloat16, bool and the float8 types go out and come back with the header's codes", "[dlpack1]") {
    const struct {
        dtype type;
        std::uint8_t code, bits;
    } types[] = {{dtype::bfloat16, kDLBfloat, 16}, {dtype::boolean, kDLBool, 8}, {dtype::float8_e4m3fn, kDLFloat8_e4m3fn, 8},
                 {dtype::float8_e5m2, kDLFloat8_e5m2, 8}};
    for (const auto& [type, code, bits] : types) {
        INFO(strix::name(type));
        strix::host_tensor t(type, shape{2, 2});
        for (std::size_t i = 0; i < t.bytes(); ++i) t.data()[i] = std::byte(type == dtype::boolean ? i % 2 : 0x35 + i);
        const void* elements = t.data();
        strix::dlpack::managed_versioned owner(strix::dlpack::to_dlpack_versioned(std::move(t)));
        const DLTensor& d = owner.get()->dl_tensor;
        CHECK(d.dtype.code == code);
        CHECK(d.dtype.bits == bits);
        CHECK(d.dtype.lanes == 1);
        CHECK(d.data == elements);
        const strix::any_cview v = owner.cview();
        CHECK(v.type() == type);
        CHECK(v.data() == elements);
        CHECK(strix::dlpack::type_of(DLDataType{code, bits, 1}) == type);
    }
    // the formats of the same codes' family that strix has not: refused by name of their code
    for (const std::uint8_t code : {kDLFloat8_e3m4, kDLFloat8_e4m3, kDLFloat8_e4m3b11fnuz, kDLFloat8_e4m3fnuz, kDLFloat8_e5m2fnuz, kDLFloat8_e8m0fnu})
        CHECK_THROWS_WITH(strix::dlpack::type_of(DLDataType{code, 8, 1}), Catch::Contains("no strix element type") && Catch::Contains("code " + std::to_string(code)));
    CHECK_THROWS_WITH(strix::dlpack::type_of(DLDataType{kDLFloat4_e2m1fn, 4, 1}), Catch::Contains("no strix element type"));
    CHECK_THROWS_WITH(strix::dlpack::type_of(DLDataType{kDLBool, 1, 1}), Catch::Contains("no strix element type")); // a bit per element
}
