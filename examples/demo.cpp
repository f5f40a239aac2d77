// `strix demo`: every operator on the examples of the specification (and of ONNX for the family
// beyond DirectML), inputs and outputs printed.

#include <cstdint>
#include <cstring>
#include <memory>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "strix/strix.hpp"
#ifdef STRIX_HAVE_VULKAN
#include "strix/vulkan.hpp"
#endif

namespace {

/// A tensor's elements as nested lists, like NumPy prints them.
std::string format(const strix::any_cview& v) {
    std::ostringstream os;
    std::array<std::int64_t, strix::max_rank> c{};
    auto element = [&]() {
        const auto* p = v.address(c);
        strix::visit(v.type(), [&](auto tag) {
            using T = typename decltype(tag)::type;
            T x;
            std::memcpy(&x, p, sizeof(T));
            if constexpr (strix::detail::is_narrow_float_v<T>) os << static_cast<float>(x);
            else if constexpr (sizeof(T) == 1) os << static_cast<int>(x);
            else os << x;
        });
    };
    auto rec = [&](auto& self, int d) -> void {
        if (d == v.rank()) {
            element();
            return;
        }
        os << "[";
        for (std::int64_t i = 0; i < v.size(d); ++i) {
            c[static_cast<std::size_t>(d)] = i;
            if (i) os << (d + 1 == v.rank() ? ", " : ",\n" + std::string(static_cast<std::size_t>(d + 1), ' '));
            self(self, d + 1);
        }
        os << "]";
    };
    rec(rec, 0);
    return os.str();
}

template <class T>
strix::host_tensor make(strix::shape s, std::vector<T> values) {
    strix::host_tensor t(strix::dtype_of<T>, s);
    std::copy(values.begin(), values.end(), t.as<T>());
    return t;
}

void show(const std::string& label, const strix::any_cview& v) {
    std::cout << "  " << label << " " << strix::to_string(v.sizes()) << " " << strix::name(v.type()) << ":\n    ";
    std::string text = format(v), indented;
    for (char ch : text) indented += ch == '\n' ? std::string("\n    ") : std::string(1, ch);
    std::cout << indented << "\n";
}

/// Runs each example again on the best Vulkan device (lavapipe included) and says whether the
/// output is the CPU's, bit for bit.
class vulkan_check {
public:
    /// `backend`: "" for the CPU and Vulkan where it can be had, "cpu" for the CPU alone,
    /// "vulkan" for both with Vulkan required (a strix::error when it cannot be had).
    /// `profile`: the Vulkan profile ("full", "baseline", or "" for the environment's).
    vulkan_check(const std::string& backend, const std::string& profile) {
#ifdef STRIX_HAVE_VULKAN
        if (backend != "cpu") {
            try {
                strix::vulkan::context_options opt;
                if (!profile.empty()) opt.profile = profile == "baseline" ? strix::vulkan::path_profile::baseline : strix::vulkan::path_profile::full;
                ctx_ = std::make_unique<strix::vulkan::context>(opt);
                std::cout << "strix demo: the examples of the specification, on the CPU and with Vulkan on " << ctx_->device().name << " ("
                          << strix::vulkan::type_name(ctx_->device().type) << ", " << (ctx_->full_path() ? "full" : "baseline") << " path)\n\n";
                return;
            } catch (const std::exception& e) {
                if (backend == "vulkan") throw strix::error(strix::error_code::unsupported, std::string("strix demo: Vulkan unavailable: ") + e.what());
                std::cout << "strix demo: Vulkan unavailable (" << e.what() << ")\n";
            }
        }
#else
        (void)profile;
        if (backend == "vulkan") throw strix::error(strix::error_code::unsupported, "strix demo: this strix was built without the Vulkan backend");
#endif
        std::cout << "strix demo: the examples of the specification, on the CPU\n\n";
    }
    /// `run(ctx, out)` computes the example on the device into `out`; compared with `cpu`.
    template <class F>
    void compare(const strix::host_tensor& cpu, F&& run) {
#ifdef STRIX_HAVE_VULKAN
        if (!ctx_) return;
        strix::host_tensor gpu(cpu.type(), cpu.sizes());
        run(*ctx_, gpu.view());
        const bool same = cpu.bytes() == gpu.bytes() && (cpu.bytes() == 0 || std::memcmp(cpu.data(), gpu.data(), cpu.bytes()) == 0);
        std::cout << "  Vulkan: " << (same ? "the same output, bit for bit" : "A DIFFERENT OUTPUT") << "\n";
        failures_ += same ? 0 : 1;
#else
        (void)cpu;
        (void)run;
#endif
    }
    /// 0 when every comparison agreed and the validation layer (if loaded) said nothing.
    [[nodiscard]] int status() const {
#ifdef STRIX_HAVE_VULKAN
        if (ctx_ && ctx_->validation_messages() > 0) return 1;
#endif
        return failures_ ? 1 : 0;
    }

private:
#ifdef STRIX_HAVE_VULKAN
    std::unique_ptr<strix::vulkan::context> ctx_;
#endif
    int failures_ = 0;
};

} // namespace

int demo(const std::string& backend, const std::string& profile) {
    using namespace strix;
    vulkan_check vk(backend, profile);

    const auto x4 = make<float>({4}, {11, 12, 13, 14});
    const auto x32 = make<float>({3, 2}, {1, 2, 3, 4, 5, 6});
    const auto x133 = make<float>({1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    const auto x132 = make<float>({1, 3, 2}, {1, 2, 3, 4, 5, 6});
    struct gcase {
        const char* title;
        const host_tensor* input;
        host_tensor indices;
        gather_desc desc;
    };
    const gcase gathers[] = {
        {"gather 1: 1-D remapping, axis 0", &x4, make<std::uint32_t>({5}, {3, 1, 3, 0, 2}), {0, 1}},
        {"gather 2: rows, axis 0, IndexDimensions 1", &x32, make<std::uint32_t>({1, 4}, {0, 1, 1, 2}), {0, 1}},
        {"gather 3: swap columns, axis 1, IndexDimensions 1", &x32, make<std::uint32_t>({1, 2}, {1, 0}), {1, 1}},
        {"gather 4: nested indices, axis 2, IndexDimensions 2", &x133, make<std::uint32_t>({1, 1, 2}, {0, 2}), {2, 2}},
        {"gather 5: nested indices, axis 1, IndexDimensions 2", &x132, make<std::uint32_t>({1, 2, 2}, {0, 1, 1, 2}), {1, 2}},
        {"gather (natural form, numpy.take): axis 1, indices [2,2] with a negative index", &x32, make<std::int64_t>({2, 2}, {0, -1, 1, 0}), {1}},
    };
    for (const auto& g : gathers) {
        std::cout << g.title << "\n";
        show("input", g.input->view());
        show("indices", g.indices.view());
        const auto out = gather(g.input->view(), g.indices.view(), g.desc);
        show("output", out.view());
        vk.compare(out, [&](auto& ctx, const any_view& o) { vulkan::gather(ctx, g.input->view(), g.indices.view(), o, g.desc); });
        std::cout << "\n";
    }

    const auto a = make<float>({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
    const auto b = make<float>({1, 1, 2, 4}, {7, 8, 9, 10, 11, 12, 13, 14});
    std::cout << "join 1: axis 3\n";
    show("input 0", a.view());
    show("input 1", b.view());
    const any_cview ab[] = {a.view(), b.view()};
    const auto joined = join(ab, {3});
    show("output", joined.view());
    vk.compare(joined, [&](auto& ctx, const any_view& o) { vulkan::join(ctx, ab, o, {3}); });
    const auto j0 = make<float>({1, 1, 2, 2}, {1, 2, 3, 4});
    const auto j1 = make<float>({1, 1, 2, 2}, {5, 6, 7, 8});
    const auto j2 = make<float>({1, 1, 2, 2}, {9, 10, 11, 12});
    const any_cview three[] = {j0.view(), j1.view(), j2.view()};
    std::cout << "\njoin 2: three [1,1,2,2] inputs\n";
    show("input 0", j0.view());
    show("input 1", j1.view());
    show("input 2", j2.view());
    for (int axis = 1; axis <= 3; ++axis) {
        const auto out = join(three, {axis});
        show("output, axis " + std::to_string(axis), out.view());
        vk.compare(out, [&](auto& ctx, const any_view& o) { vulkan::join(ctx, three, o, {axis}); });
    }

    const auto p = make<float>({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8});
    std::cout << "\npad: start {0,0,1,2}, end {0,0,3,4}\n";
    show("input", p.view());
    const std::pair<const char*, pad_mode> modes[] = {{"constant 9", pad_mode::constant}, {"edge", pad_mode::edge},
                                                      {"reflect", pad_mode::reflect}, {"symmetric", pad_mode::symmetric}};
    for (const auto& [label, mode] : modes) {
        const pad_desc d{mode, {0, 0, 1, 2}, {0, 0, 3, 4}, scalar(9.0)};
        const auto out = pad(p.view(), d);
        show(std::string("output, ") + label, out.view());
        vk.compare(out, [&](auto& ctx, const any_view& o) { vulkan::pad(ctx, p.view(), o, d); });
    }

    std::cout << "\nscatter 1: axis 0\n";
    const auto s1 = make<float>({5}, {0, 1, 2, 3, 4});
    const auto s1i = make<std::uint32_t>({4}, {3, 1, 3, 0});
    const auto s1u = make<float>({4}, {5, 6, 7, 8});
    show("input", s1.view());
    show("indices", s1i.view());
    show("updates", s1u.view());
    const auto o1 = scatter(s1.view(), s1i.view(), s1u.view(), {0});
    show("output", o1.view());
    vk.compare(o1, [&](auto& ctx, const any_view& o) { vulkan::scatter(ctx, s1.view(), s1i.view(), s1u.view(), o, {0}); });
    std::cout << "\nscatter 2: axis 0 (input [3,3])\n";
    const auto s2 = make<float>({3, 3}, std::vector<float>(9, 0.0f));
    const auto s2i = make<std::uint32_t>({2, 3}, {1, 0, 2, 0, 2, 1});
    const auto s2u = make<float>({2, 3}, {10, 11, 12, 20, 21, 22});
    show("input", s2.view());
    show("indices", s2i.view());
    show("updates", s2u.view());
    const auto o2 = scatter(s2.view(), s2i.view(), s2u.view(), {0});
    show("output", o2.view());
    vk.compare(o2, [&](auto& ctx, const any_view& o) { vulkan::scatter(ctx, s2.view(), s2i.view(), s2u.view(), o, {0}); });

    std::cout << "\nBeyond DirectML: the examples of ONNX's operator pages\n";
    std::cout << "\ngather-elements: axis 1 (numpy.take_along_axis)\n";
    const auto ge = make<float>({2, 2}, {1, 2, 3, 4});
    const auto gei = make<std::int64_t>({2, 2}, {0, 0, 1, 0});
    show("input", ge.view());
    show("indices", gei.view());
    const auto geo = gather_elements(ge.view(), gei.view(), {1});
    show("output", geo.view());
    vk.compare(geo, [&](auto& ctx, const any_view& o) { vulkan::gather_elements(ctx, ge.view(), gei.view(), o, {1}); });

    std::cout << "\ngather-nd: batch dimensions 1\n";
    const auto gn = make<std::int32_t>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    const auto gni = make<std::int64_t>({2, 1}, {1, 0});
    show("input", gn.view());
    show("indices", gni.view());
    const auto gno = gather_nd(gn.view(), gni.view(), {1});
    show("output", gno.view());
    vk.compare(gno, [&](auto& ctx, const any_view& o) { vulkan::gather_nd(ctx, gn.view(), gni.view(), o, {1}); });

    std::cout << "\nsplit: axis 0 into sizes 2, 0, 4\n";
    const auto sp = make<float>({6}, {1, 2, 3, 4, 5, 6});
    show("input", sp.view());
    const std::int64_t sizes[] = {2, 0, 4};
    const auto parts = split(sp.view(), sizes, {0});
    for (std::size_t k = 0; k < parts.size(); ++k) {
        show("output " + std::to_string(k), parts[k].view());
        vk.compare(parts[k], [&](auto& ctx, const any_view& o) {
            std::vector<host_tensor> all;
            std::vector<any_view> views;
            for (const auto& q : parts) all.emplace_back(q.type(), q.sizes());
            for (auto& t : all) views.push_back(t.view());
            vulkan::split(ctx, sp.view(), views, {0});
            if (all[k].bytes() > 0) std::memcpy(o.data(), all[k].data(), all[k].bytes());
        });
    }

    std::cout << "\nscatter-nd: reduction add (duplicate tuples add up)\n";
    const auto sn = make<float>({4, 4}, std::vector<float>(16, 1.0f));
    const auto sni = make<std::int64_t>({3, 1}, {0, 2, 0});
    const auto snu = make<float>({3, 4}, {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7});
    show("input", sn.view());
    show("indices", sni.view());
    show("updates", snu.view());
    const scatter_nd_desc add{.reduction = scatter_reduction::add};
    const auto sno = scatter_nd(sn.view(), sni.view(), snu.view(), add);
    show("output", sno.view());
    vk.compare(sno, [&](auto& ctx, const any_view& o) { vulkan::scatter_nd(ctx, sn.view(), sni.view(), snu.view(), o, add); });

    std::cout << "\npad: wrap, start {2}, end {4}; then start {-1}, end {3} (a negative pad crops)\n";
    const auto w = make<float>({3}, {1, 2, 3});
    show("input", w.view());
    for (const auto& d : {pad_desc{pad_mode::wrap, {2}, {4}}, pad_desc{pad_mode::wrap, {-1}, {3}}}) {
        const auto out = pad(w.view(), d);
        show("output, start " + to_string(d.start) + " end " + to_string(d.end), out.view());
        vk.compare(out, [&](auto& ctx, const any_view& o) { vulkan::pad(ctx, w.view(), o, d); });
    }
    return vk.status();
}
