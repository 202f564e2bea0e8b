// stormguard/wire/header_map.h: reading and writing headers of any map type.
//
// The propagation helpers take a HeaderGetter / HeaderSetter: small
// non-owning views (like std::string_view or a function_ref) that bind to
//   - a header container: std::map, std::unordered_map, std::multimap (as in
//     cpp-httplib's httplib::Headers), or any range of pairs whose key and
//     value are string-like (have data() and size(), e.g. grpc::string_ref);
//   - a callable: `(std::string_view name) -> std::optional<std::string_view>`
//     for reading, `(std::string_view name, std::string_view value)` for writing.
//
//   std::map<std::string, std::string> h;
//   InjectHttp(ctx, now, unix_ms, h);                       // binds the map
//   Extract([&](std::string_view n) { return Lookup(req, n); }, now, unix_ms);
//
// Names compare case-insensitively (HTTP field names do), by a linear scan:
// header maps are small and a scan needs no allocation. A header may repeat
// (a multimap, a range of pairs): operator() gives the first value, ForEach
// every value, so a reader can decide which repeat wins (budgets take the
// smallest). A callable gives one value per name; bind a source that keeps
// repeats as a container, or have the callable join them with ", " (RFC 9110
// section 5.3), which the budget headers read as a list. Writing a container
// first erases every entry whose name matches case-insensitively, so a header
// is never sent twice.
//
// Lifetime: a getter/setter must not outlive what it binds; use it as a
// parameter type only. A callable getter must return a view that stays valid
// until its next call (return into the request's storage, not a temporary).
// Thread safety: as safe as the bound container or callable.
#pragma once

#include <concepts>
#include <cstddef>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string_view>
#include <type_traits>

#include "stormguard/core/function_ref.h"

namespace stormguard {

constexpr char AsciiLower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Case-insensitive (ASCII) equality, as HTTP compares field names.
constexpr bool HeaderNameEquals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// Anything that is, or exposes data() and size() like, a string.
template <class S>
concept StringLike = std::is_convertible_v<const S&, std::string_view> || requires(const S& s) {
  { s.data() } -> std::convertible_to<const char*>;
  { s.size() } -> std::convertible_to<std::size_t>;
};

template <StringLike S>
constexpr std::string_view AsStringView(const S& s) noexcept {
  if constexpr (std::is_convertible_v<const S&, std::string_view>) {
    return std::string_view(s);
  } else {
    return std::string_view(s.data(), s.size());
  }
}

// A readable header container: a range of (name, value) pairs.
template <class M>
concept HeaderRange = std::ranges::input_range<const M> && requires(std::ranges::range_reference_t<const M> kv) {
  requires StringLike<std::remove_cvref_t<decltype(kv.first)>>;
  requires StringLike<std::remove_cvref_t<decltype(kv.second)>>;
};

// A writable header container: a map or multimap of strings.
template <class M>
concept MutableHeaderMap = HeaderRange<M> && requires(M& m, std::string_view s) {
  m.emplace(typename M::key_type(s), typename M::mapped_type(s));
  m.erase(m.begin());
};

// The value of the first header named `name` (any case), or nullopt.
template <HeaderRange M>
std::optional<std::string_view> FindHeader(const M& headers, std::string_view name) noexcept {
  for (const auto& kv : headers) {
    if (HeaderNameEquals(AsStringView(kv.first), name)) return AsStringView(kv.second);
  }
  return std::nullopt;
}

// Replaces every header named `name` (any case) with one `name: value`.
template <MutableHeaderMap M>
void SetHeader(M& headers, std::string_view name, std::string_view value) {
  for (auto it = headers.begin(); it != headers.end();) {
    if (HeaderNameEquals(AsStringView(it->first), name)) {
      it = headers.erase(it);
    } else {
      ++it;
    }
  }
  headers.emplace(typename M::key_type(name), typename M::mapped_type(value));
}

namespace wire_detail {
// Type erasure for the views below; constness is restored by the typed thunk.
template <class T>
void* Erase(T* p) noexcept {
  return const_cast<void*>(static_cast<const void*>(p));
}
}  // namespace wire_detail

class HeaderGetter {
 public:
  template <class F>
    requires(!std::same_as<std::remove_cvref_t<F>, HeaderGetter> && std::is_object_v<std::remove_reference_t<F>> &&
             std::is_invocable_r_v<std::optional<std::string_view>, std::remove_reference_t<F>&, std::string_view>)
  HeaderGetter(F&& f)
  noexcept  // NOLINT: binds like a function_ref
      : obj_(wire_detail::Erase(std::addressof(f))), fn_(&Call<std::remove_reference_t<F>>) {}

  template <HeaderRange M>
    requires(!std::is_invocable_v<const M&, std::string_view>)
  HeaderGetter(const M& headers)
  noexcept  // NOLINT: binds like a view
      : obj_(wire_detail::Erase(&headers)), fn_(&Find<M>) {}

  // The first value of the header `name`, or nullopt.
  std::optional<std::string_view> operator()(std::string_view name) const {
    std::optional<std::string_view> first;
    ForEach(name, [&](std::string_view v) {
      first = v;
      return false;
    });
    return first;
  }

  // Calls `visit` with each value of the header `name`, in order; `visit`
  // returns false to stop early.
  void ForEach(std::string_view name, FunctionRef<bool(std::string_view)> visit) const {
    ForEachOf({&name, 1}, [&](std::size_t, std::string_view v) { return visit(v); });
  }

  // Calls `visit(i, value)` for each value of each header names[i] (empty
  // names are skipped). A container is read in one pass, in its own order,
  // so a reader of several headers pays one scan, not one per name.
  void ForEachOf(std::span<const std::string_view> names,
                 FunctionRef<bool(std::size_t, std::string_view)> visit) const {
    fn_(obj_, names, visit);
  }

 private:
  using Names = std::span<const std::string_view>;
  using Visit = FunctionRef<bool(std::size_t, std::string_view)>;

  template <class F>
  static void Call(void* f, Names names, Visit visit) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i].empty()) continue;
      const std::optional<std::string_view> v = (*static_cast<F*>(f))(names[i]);
      if (v && !visit(i, *v)) return;
    }
  }
  template <class M>
  static void Find(void* m, Names names, Visit visit) {
    for (const auto& kv : *static_cast<const M*>(m)) {
      const std::string_view key = AsStringView(kv.first);
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (!names[i].empty() && HeaderNameEquals(key, names[i]) && !visit(i, AsStringView(kv.second))) return;
      }
    }
  }

  void* obj_;
  void (*fn_)(void*, Names, Visit);
};

class HeaderSetter {
 public:
  template <class F>
    requires(!std::same_as<std::remove_cvref_t<F>, HeaderSetter> && std::is_object_v<std::remove_reference_t<F>> &&
             std::is_invocable_v<std::remove_reference_t<F>&, std::string_view, std::string_view>)
  HeaderSetter(F&& f)
  noexcept  // NOLINT: binds like a function_ref
      : obj_(wire_detail::Erase(std::addressof(f))), fn_(&Call<std::remove_reference_t<F>>) {}

  template <MutableHeaderMap M>
    requires(!std::is_invocable_v<M&, std::string_view, std::string_view>)
  HeaderSetter(M& headers)
  noexcept  // NOLINT: binds like a view
      : obj_(&headers), fn_(&Set<M>) {}

  void operator()(std::string_view name, std::string_view value) const { fn_(obj_, name, value); }

 private:
  template <class F>
  static void Call(void* f, std::string_view name, std::string_view value) {
    (*static_cast<F*>(f))(name, value);
  }
  template <class M>
  static void Set(void* m, std::string_view name, std::string_view value) {
    SetHeader(*static_cast<M*>(m), name, value);
  }

  void* obj_;
  void (*fn_)(void*, std::string_view, std::string_view);
};

}  // namespace stormguard
