#include "stormguard/wire/header_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace stormguard {
namespace {

// cpp-httplib's Headers: a multimap ordered case-insensitively.
struct CaseInsensitiveLess {
  bool operator()(const std::string& a, const std::string& b) const {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(),
                                        [](char x, char y) { return AsciiLower(x) < AsciiLower(y); });
  }
};
using HttplibHeaders = std::multimap<std::string, std::string, CaseInsensitiveLess>;

// Like grpc::string_ref: data() and size(), no conversion to string_view.
struct StringRef {
  const char* ptr;
  std::size_t len;
  const char* data() const { return ptr; }
  std::size_t size() const { return len; }
};

static_assert(HeaderRange<std::map<std::string, std::string>>);
static_assert(MutableHeaderMap<std::unordered_map<std::string, std::string>>);
static_assert(MutableHeaderMap<HttplibHeaders>);
static_assert(HeaderRange<std::vector<std::pair<std::string_view, std::string_view>>>);
static_assert(!MutableHeaderMap<std::vector<std::pair<std::string, std::string>>>);
static_assert(HeaderRange<std::multimap<StringRef, StringRef, bool (*)(StringRef, StringRef)>>);
static_assert(!HeaderRange<std::vector<int>>);

std::optional<std::string_view> Read(HeaderGetter get, std::string_view name) { return get(name); }
void Write(HeaderSetter set, std::string_view name, std::string_view value) { set(name, value); }

TEST(HeaderMapTest, NamesCompareCaseInsensitively) {
  EXPECT_TRUE(HeaderNameEquals("Retry-After", "retry-after"));
  EXPECT_TRUE(HeaderNameEquals("X-NO-RETRY", "x-no-retry"));
  EXPECT_FALSE(HeaderNameEquals("x-no-retry", "x-no-retr"));
  EXPECT_FALSE(HeaderNameEquals("x_no_retry", "x-no-retry"));
}

TEST(HeaderMapTest, GetterFindsAnyCaseInEveryContainer) {
  const std::map<std::string, std::string> m = {{"X-Request-Timeout-Ms", "842"}};
  const std::unordered_map<std::string, std::string> u = {{"x-request-timeout-ms", "842"}};
  const HttplibHeaders h = {{"X-REQUEST-TIMEOUT-MS", "842"}};
  const std::vector<std::pair<std::string_view, std::string_view>> v = {{"x-Request-timeout-ms", "842"}};
  for (const auto& got : {Read(m, "x-request-timeout-ms"), Read(u, "X-Request-Timeout-Ms"),
                          Read(h, "x-request-timeout-ms"), Read(v, "X-REQUEST-TIMEOUT-MS")}) {
    EXPECT_EQ(got, "842");
  }
  EXPECT_EQ(Read(m, "x-request-deadline"), std::nullopt);
}

TEST(HeaderMapTest, GetterReadsStringRefLikeGrpcMetadata) {
  const std::vector<std::pair<StringRef, StringRef>> md = {{{"grpc-timeout", 12}, {"15S", 3}}};
  EXPECT_EQ(Read(md, "grpc-timeout"), "15S");
}

TEST(HeaderMapTest, GetterReturnsTheFirstOfDuplicateHeaders) {
  const HttplibHeaders h = {{"x-retry-attempt", "2"}, {"X-Retry-Attempt", "7"}};
  EXPECT_EQ(Read(h, "x-retry-attempt"), "2");
}

std::vector<std::string> All(HeaderGetter get, std::string_view name) {
  std::vector<std::string> values;
  get.ForEach(name, [&](std::string_view v) {
    values.emplace_back(v);
    return true;
  });
  return values;
}

TEST(HeaderMapTest, ForEachVisitsEveryDuplicateInOrder) {
  const HttplibHeaders h = {{"x-retry-attempt", "2"}, {"Host", "a"}, {"X-Retry-Attempt", "7"}};
  const std::vector<std::pair<std::string_view, std::string_view>> v = {
      {"grpc-timeout", "5S"}, {"other", "x"}, {"GRPC-TIMEOUT", "1S"}};
  EXPECT_EQ(All(h, "x-retry-attempt"), (std::vector<std::string>{"2", "7"}));
  EXPECT_EQ(All(v, "grpc-timeout"), (std::vector<std::string>{"5S", "1S"}));
  EXPECT_TRUE(All(v, "absent").empty());
}

TEST(HeaderMapTest, ForEachStopsWhenTheVisitorSaysSo) {
  const HttplibHeaders h = {{"a", "1"}, {"a", "2"}, {"a", "3"}};
  int visits = 0;
  HeaderGetter(h).ForEach("a", [&](std::string_view) { return ++visits < 2; });
  EXPECT_EQ(visits, 2);
}

TEST(HeaderMapTest, ForEachOfReadsAContainerInOnePassAndSkipsEmptyNames) {
  const HttplibHeaders h = {{"b", "1"}, {"A", "2"}, {"b", "3"}, {"", "4"}};
  const std::string_view names[] = {"a", "", "B"};
  std::vector<std::pair<std::size_t, std::string>> seen;
  HeaderGetter(h).ForEachOf(names, [&](std::size_t i, std::string_view v) {
    seen.emplace_back(i, std::string(v));
    return true;
  });
  // The container's order (case-insensitive: "" < "A" < "b"), not the names'.
  EXPECT_EQ(seen, (std::vector<std::pair<std::size_t, std::string>>{{0, "2"}, {2, "1"}, {2, "3"}}));
}

TEST(HeaderMapTest, ForEachOfAsksACallableOncePerNameInOrder) {
  std::vector<std::string> asked;
  const auto lookup = [&](std::string_view name) -> std::optional<std::string_view> {
    asked.emplace_back(name);
    if (name == "b") return "x";
    return std::nullopt;
  };
  const std::string_view names[] = {"b", "", "c", "b"};
  std::vector<std::size_t> hits;
  HeaderGetter(lookup).ForEachOf(names, [&](std::size_t i, std::string_view) {
    hits.push_back(i);
    return hits.size() < 1;  // stops after the first
  });
  EXPECT_EQ(asked, (std::vector<std::string>{"b"}));
  EXPECT_EQ(hits, (std::vector<std::size_t>{0}));
}

TEST(HeaderMapTest, ForEachOnACallableVisitsItsOneValue) {
  const auto lookup = [](std::string_view name) -> std::optional<std::string_view> {
    if (name == "grpc-timeout") return "5S, 1S";
    return std::nullopt;
  };
  EXPECT_EQ(All(lookup, "grpc-timeout"), (std::vector<std::string>{"5S, 1S"}));
  EXPECT_TRUE(All(lookup, "other").empty());
}

TEST(HeaderMapTest, SetterReplacesEveryEntryOfAnyCase) {
  std::map<std::string, std::string> m = {{"Idempotency-Key", "old"}, {"other", "x"}};
  Write(m, "idempotency-key", "new");
  EXPECT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at("idempotency-key"), "new");

  HttplibHeaders h = {{"X-No-Retry", "0"}, {"x-no-retry", "0"}, {"Host", "a"}};
  Write(h, "x-no-retry", "1");
  EXPECT_EQ(h.count("x-no-retry"), 1u);
  EXPECT_EQ(Read(h, "X-NO-RETRY"), "1");

  std::unordered_map<std::string, std::string> u = {{"RETRY-AFTER", "9"}};
  Write(u, "Retry-After", "3");
  EXPECT_EQ(u.size(), 1u);
  EXPECT_EQ(u.at("Retry-After"), "3");
}

TEST(HeaderMapTest, CallablesBindAsGetterAndSetter) {
  std::vector<std::pair<std::string, std::string>> sent;
  Write([&](std::string_view n, std::string_view v) { sent.emplace_back(n, v); }, "a", "1");
  int calls = 0;
  Write([&, state = 0](std::string_view, std::string_view) mutable { calls = ++state; }, "b", "2");
  EXPECT_EQ(sent, (std::vector<std::pair<std::string, std::string>>{{"a", "1"}}));
  EXPECT_EQ(calls, 1);

  const std::string stored = "842";
  const auto lookup = [&](std::string_view n) -> std::optional<std::string_view> {
    if (n == "x") return std::string_view(stored);
    return std::nullopt;
  };
  EXPECT_EQ(Read(lookup, "x"), "842");
  EXPECT_EQ(Read(lookup, "y"), std::nullopt);
}

}  // namespace
}  // namespace stormguard
