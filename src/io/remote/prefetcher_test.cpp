// Read-ahead of remote objects: each hinted key fetched once, held within the byte window,
// answered to the read that takes it; through the read view, a prefetched chunk costs no
// second request and reads return the same bytes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

#include "io/remote/metadata_cache_store_internal.hpp"
#include "io/remote/object_store_internal.hpp"
#include "io/remote/prefetcher_internal.hpp"
#include "testing/testing.hpp"

namespace strata::io::remote {
namespace {

Bytes bytes_of(const std::string& s) { return Bytes(s.begin(), s.end()); }
std::string text(const Bytes& b) { return std::string(b.begin(), b.end()); }

// Objects named "k<i>" of `size` bytes; counts fetches per key.
struct Source {
  int64_t size = 100;
  std::mutex mu;
  std::map<std::string, int> fetches;
  std::atomic<int64_t> in_flight{0}, peak_in_flight{0};
  Prefetcher::Value fetch(const std::string& key, int64_t max_bytes) {
    const int64_t now = ++in_flight;
    int64_t seen = peak_in_flight.load();
    while (now > seen && !peak_in_flight.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    {
      std::lock_guard lock(mu);
      ++fetches[key];
    }
    --in_flight;
    if (key == "missing") return std::optional<Bytes>();
    if (key == "broken") return Status::IOError("GET ", key, ": HTTP 500");
    if (size > max_bytes) return Status::Corrupt(key, " too large");
    return std::optional<Bytes>(Bytes(static_cast<size_t>(size), static_cast<uint8_t>(key.back())));
  }
  int count(const std::string& key) {
    std::lock_guard lock(mu);
    return fetches.count(key) ? fetches[key] : 0;
  }
  int total() {
    std::lock_guard lock(mu);
    int n = 0;
    for (const auto& [k, c] : fetches) n += c;
    return n;
  }
};

std::vector<std::string> keys(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("k" + std::to_string(i));
  return out;
}

void wait_for(const std::function<bool()>& done) {
  for (int i = 0; i < 2000 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

TEST(Prefetcher, FetchesEachHintOnceAndHandsItToTheRead) {
  Source src;
  Prefetcher p([&](const std::string& k, int64_t m) { return src.fetch(k, m); }, 4);
  p.hint({"k1", "k2", "missing", "broken"}, 1000, 1 << 20);
  p.hint({"k1", "k2"}, 1000, 1 << 20);  // already known: not asked twice
  wait_for([&] { return src.total() >= 4; });  // a key still queued would be the caller's to read
  auto v = p.take("k1");
  ASSERT_TRUE(v && v->ok() && **v);
  EXPECT_EQ((**v)->size(), 100u);
  auto m = p.take("missing");
  ASSERT_TRUE(m && m->ok());
  EXPECT_FALSE(**m);  // a missing object is an answer too
  auto b = p.take("broken");
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->ok());  // the caller decides (the read view reads it again itself)
  EXPECT_TRUE(p.started("k2"));
  EXPECT_TRUE(p.take("k2"));
  EXPECT_FALSE(p.take("k1"));  // taken: forgotten
  EXPECT_FALSE(p.take("never hinted"));
  for (const char* k : {"k1", "k2", "missing", "broken"}) EXPECT_EQ(src.count(k), 1) << k;
}

TEST(Prefetcher, HoldsNoMoreThanTheWindow) {
  Source src;
  Prefetcher p([&](const std::string& k, int64_t m) { return src.fetch(k, m); }, 8);
  p.hint(keys(40), 1000, 350);  // 3 objects of 100 bytes fit, a fourth would not
  wait_for([&] { return src.total() >= 3; });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_LE(src.total(), 4);  // the first wave (sizes unknown) may start 4
  // Reads free room, and the rest follow in order.
  for (const auto& k : keys(40)) {
    auto v = p.take(k);
    if (!v) {
      v = src.fetch(k, 1000);  // not started yet: the reader fetches it
    }
    ASSERT_TRUE(v->ok() && **v) << k;
    EXPECT_EQ((**v)->at(0), static_cast<uint8_t>(k.back()));
  }
  for (const auto& k : keys(40)) EXPECT_EQ(src.count(k), 1) << k;
  EXPECT_LE(src.peak_in_flight.load(), 5);
}

TEST(Prefetcher, AQueuedKeyTakenIsReadByTheCallerNotTwice) {
  Source src;
  src.size = 1000;
  Prefetcher p([&](const std::string& k, int64_t m) { return src.fetch(k, m); }, 1);
  p.hint(keys(10), 5000, 1000);  // one object fills the window
  wait_for([&] { return src.total() >= 1; });
  EXPECT_FALSE(p.started("k9"));  // queued behind the window: dropped from the queue
  EXPECT_FALSE(p.take("k9"));
  for (int i = 0; i < 9; ++i) {
    auto v = p.take("k" + std::to_string(i));
    if (!v) v = src.fetch("k" + std::to_string(i), 5000);
    ASSERT_TRUE(v->ok());
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(src.count("k9"), 0);
}

// A transport answering by URL path, counting requests per path.
class KeyedTransport : public HttpTransport {
 public:
  std::map<std::string, std::string> objects;
  std::map<std::string, int> seen;
  Result<HttpResponse> perform(const HttpRequest& req, bool&) override {
    const std::string path = req.url.substr(req.url.find('/', 8));
    std::lock_guard lock(mu_);
    ++seen[path];
    HttpResponse r;
    auto it = objects.find(path);
    r.status = it == objects.end() ? 404 : 200;
    if (it != objects.end()) r.body = bytes_of(it->second);
    r.content_length = static_cast<int64_t>(r.body.size());
    return r;
  }
  int count(const std::string& path) {
    std::lock_guard lock(mu_);
    return seen.count(path) ? seen[path] : 0;
  }

 private:
  std::mutex mu_;
};

TEST(Prefetcher, ReadViewAnswersPrefetchedChunksWithoutASecondRequest) {
  auto t = std::make_shared<KeyedTransport>();
  for (int i = 0; i < 20; ++i) t->objects["/s/a/" + std::to_string(i)] = "chunk" + std::to_string(i);
  auto client = std::make_shared<HttpClient>(t, HttpClientOptions{});
  STRATA_ASSERT_OK_AND_ASSIGN(auto http, open_http_store("http://h/s", client));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_metadata_cache_store(http));
  std::vector<std::string> ks;
  for (int i = 0; i < 20; ++i) ks.push_back("a/" + std::to_string(i));
  ks.push_back("a/absent");
  view->prefetch(ks, 1 << 20, 1 << 20);
  auto got = view->get_many(std::vector<std::string>(ks.begin(), ks.begin() + 10), 1 << 20);
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(got[i].ok() && *got[i]);
    EXPECT_EQ(text(**got[i]), "chunk" + std::to_string(i));
  }
  for (int i = 10; i < 20; ++i) {
    STRATA_ASSERT_OK_AND_ASSIGN(auto v, view->get_at_most(ks[i], 1 << 20));
    ASSERT_TRUE(v);
    EXPECT_EQ(text(*v), "chunk" + std::to_string(i));
  }
  STRATA_ASSERT_OK_AND_ASSIGN(auto absent, view->get_at_most("a/absent", 1 << 20));
  EXPECT_FALSE(absent);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(t->count("/s/a/" + std::to_string(i)), 1) << i;
  EXPECT_EQ(t->count("/s/a/absent"), 1);
  // A prefetched object larger than a read's bound is refused as the store refuses it.
  view->prefetch({"a/0"}, 1 << 20, 1 << 20);  // cached now: nothing to fetch
  STRATA_EXPECT_STATUS(view->get_at_most("a/0", 3), StatusCode::Corrupt, "exceeds the 3-byte limit");
  EXPECT_EQ(t->count("/s/a/0"), 1);
}

TEST(Prefetcher, ReadViewKeepingNoChunksFetchesAgain) {
  auto t = std::make_shared<KeyedTransport>();
  t->objects["/s/a/0"] = "chunk0";
  auto client = std::make_shared<HttpClient>(t, HttpClientOptions{});
  STRATA_ASSERT_OK_AND_ASSIGN(auto http, open_http_store("http://h/s", client));
  STRATA_ASSERT_OK_AND_ASSIGN(auto view, make_metadata_cache_store(http));
  STRATA_ASSERT_OK_AND_ASSIGN(auto v, view->get_at_most("a/0", 1 << 20));
  STRATA_ASSERT_OK_AND_ASSIGN(v, view->get_at_most("a/0", 1 << 20));
  EXPECT_EQ(t->count("/s/a/0"), 1);  // cached
  keep_no_chunks(*view);            // what was cached is dropped, nothing new is kept
  for (int i = 0; i < 2; ++i) {
    STRATA_ASSERT_OK_AND_ASSIGN(v, view->get_at_most("a/0", 1 << 20));
    ASSERT_TRUE(v);
    EXPECT_EQ(text(*v), "chunk0");
  }
  EXPECT_EQ(t->count("/s/a/0"), 3);
  keep_no_chunks(*http);  // not a read view: nothing to do
}

}  // namespace
}  // namespace strata::io::remote
