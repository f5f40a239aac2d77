namespace strix::vulkan {

std::vector<device_view> split_views(const device_view& input, std::span<const std::int64_t> sizes, const split_desc& d) {
    const auto parts = strix::split_views(input.as_any(), sizes, d);
    std::vector<device_view> out;
    for (const auto& p : parts) {
        device_view v = input;
        v.address = static_cast<VkDeviceAddress>(reinterpret_cast<std::uintptr_t>(p.data()));
        v.sizes = p.sizes();
        out.push_back(v);
    }
    return out;
}

device_tensor::device_tensor(const context& ctx, dtype type, const shape& sizes, memory where) : type_(type), shape_(sizes), origin_(ctx.serial()) {
    const std::int64_t n = sizes.checked_count();
    if (n < 0) throw error(error_code::invalid_argument, "strix::vulkan::device_tensor: shape " + to_string(sizes) + " has a negative size or too many elements");
    // its bytes must be a number too: 2^61 float64 elements are 2^64 bytes, which wrap to 0
    const auto es = static_cast<std::uint64_t>(size_of(type));
    if (static_cast<std::uint64_t>(n) > (std::numeric_limits<std::uint64_t>::max() - 15) / es)
        throw error(error_code::invalid_argument, "strix::vulkan::device_tensor: a " + to_string(sizes) + " " + std::string(name(type)) + " tensor needs " +
                                                      std::to_string(n) + " x " + std::to_string(es) + " bytes, more than 64-bit sizes hold");
    buf_ = ctx.create_buffer(static_cast<std::uint64_t>(n) * es, where);
}

auto device_tensor::host_view() const -> any_view {
    if (!buf_.mapped())
        throw error(error_code::invalid_argument, "strix::vulkan::device_tensor::host_view: the " + to_string(shape_) + " " + std::string(name(type_)) +
                                                      " tensor is in device memory the host cannot map (make it with memory::upload)");
    return any_view(buf_.mapped(), type_, shape_);
}

device_view wrap(const context& ctx, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size, dtype type, const shape& sizes,
                        std::optional<std::array<std::int64_t, max_rank>> strides) {
    const std::array<std::int64_t, max_rank> st = strides ? *strides : c_strides(sizes);
    const auto es = static_cast<std::uint64_t>(size_of(type));
    const auto describe = [&] {
        return std::string(name(type)) + " view of shape " + to_string(sizes) + " with strides " + strix::detail::strides_text(sizes, st) + " over " +
               std::to_string(size) + " bytes of the buffer from offset " + std::to_string(offset);
    };
    if (buffer == VK_NULL_HANDLE) throw error(error_code::invalid_argument, "strix::vulkan::wrap: no buffer given for a " + describe());
    if (offset % es != 0)
        throw error(error_code::invalid_argument, "strix::vulkan::wrap: the offset is not a multiple of the element size (" + std::to_string(es) + ") for a " + describe());
    VkMemoryRequirements req{};
    ctx.vk().vkGetBufferMemoryRequirements(ctx.handle(), buffer, &req);
    if (offset > req.size || size > req.size - offset)
        throw error(error_code::invalid_argument, "strix::vulkan::wrap: the buffer holds at most " + std::to_string(req.size) + " bytes, too few for a " + describe());
    // the view's reach in 64 bits (check_view's rule), then where its lowest byte lies
    const any_view probe(reinterpret_cast<void*>(static_cast<std::uintptr_t>(es)), type, sizes, st); // never dereferenced
    strix::detail::check_view("wrap", "view", probe, false);
    std::uint64_t need = 0, below = 0;
    if (sizes.count() > 0) {
        std::int64_t lo = 0, hi = 0;
        for (int i = 0; i < sizes.rank; ++i) {
            const std::int64_t span = (sizes[i] - 1) * st[static_cast<std::size_t>(i)];
            (span < 0 ? lo : hi) += span;
        }
        need = static_cast<std::uint64_t>(hi - lo + 1) * es;
        below = static_cast<std::uint64_t>(-lo) * es;
    }
    if (need > size)
        throw error(error_code::invalid_argument, "strix::vulkan::wrap: the " + describe() + " needs " + std::to_string(need) + " bytes, but the range holds " +
                                                      std::to_string(size));
    VkDeviceAddress base = 0;
    if (ctx.full_path()) {
        auto ai = make<VkBufferDeviceAddressInfo>(VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO);
        ai.buffer = buffer;
        base = ctx.vk().vkGetBufferDeviceAddress(ctx.handle(), &ai);
    } else {
        base = ctx.buffers().foreign(buffer, req.size); // no device addresses: one strix gives it
    }
    return {buffer, base + offset + below, type, sizes, st, 0, ctx.serial(), base + offset, base + offset + size};
}

namespace detail {

void check_operand(const context& ctx, const device_view& v, std::string_view op, std::string_view operand) {
    const auto fail = [&](const std::string& what) {
        throw error(error_code::invalid_argument, "strix::vulkan::" + std::string(op) + ": the " + std::string(operand) + " (a " + to_string(v.sizes) + " " +
                                                      std::string(name(v.type)) + " device view) " + what);
    };
    if (v.origin != ctx.serial())
        fail(v.origin == 0 ? "was not made by a context (views come from device_tensor::view, wrap, split_views or from_dlpack)"
                           : "belongs to another context: a view runs only on the context whose device holds its buffer");
    std::uint64_t first = v.reach_first, last = v.reach_last;
    if (v.owner != 0) {
        const auto e = ctx.buffers().find(v.owner);
        if (!e) fail("is of buffer #" + std::to_string(v.owner) + ", which was destroyed");
        if (e->handle != v.buffer) fail("names another VkBuffer than its buffer #" + std::to_string(v.owner) + "'s");
        first = e->address;
        last = e->address + e->size;
    }
    // the bytes it touches, in 64 bits (a forged shape may reach past any address)
    strix::detail::check_view("vulkan::" + std::string(op), operand, v.as_any(), false);
    if (v.sizes.count() == 0) return;
    const auto [lo, hi] = v.range();
    if (lo < first || hi > last || lo > hi)
        fail("reaches device addresses [" + std::to_string(lo) + ", " + std::to_string(hi) + "), outside its buffer's [" + std::to_string(first) + ", " +
             std::to_string(last) + ")");
}

} // namespace detail

} // namespace strix::vulkan
