// Inferred static extents in constant expressions; this case must compile.
#include <type_traits>

#include <strix/strix.hpp>

using strix::extents;

template <class A, class B>
constexpr bool same = std::is_same_v<std::remove_cvref_t<A>, B>;

static_assert(same<decltype(strix::gather_extents<strix::gather_desc{.axis = 1}>(extents<2, 3>{}, extents<4>{})), extents<2, 4>>);
static_assert(same<decltype(strix::gather_extents<strix::gather_desc{.axis = 2, .index_dimensions = 2}>(extents<1, 3, 3>{}, extents<1, 1, 2>{})),
                   extents<3, 1, 2>>);
static_assert(same<decltype(strix::join_extents<strix::join_desc{.axis = 0}>(extents<2, 3>{}, extents<4, 3>{})), extents<6, 3>>);
static_assert(same<decltype(strix::pad_extents<strix::pad_desc{.start = {1, 1}, .end = {0, 2}}>(extents<2, 3>{})), extents<3, 6>>);
static_assert(same<decltype(strix::scatter_extents<strix::scatter_desc{.axis = 1}>(extents<2, 3>{}, extents<2, 5>{}, extents<2, 5>{})),
                   extents<2, 3>>);
static_assert(same<decltype(strix::gather_extents<strix::gather_desc{.axis = 0}>(extents<2, 1, 1, 1>{}, extents<1, 1, 1, 1, 3>{})),
                   extents<1, 1, 1, 1, 3, 1, 1, 1>>); // rank 8 is the limit, still allowed
static_assert(extents<2, strix::dynamic_extent>::rank_dynamic == 1);
static_assert(extents<0, 0>::is_static);
