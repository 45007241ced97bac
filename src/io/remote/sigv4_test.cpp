// SHA-256/HMAC against FIPS 180-4 and RFC 4231 vectors; SigV4 against AWS's published S3
// examples (Signature Version 4 documentation, "Examples: Signature Calculations").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "io/remote/sha256_internal.hpp"
#include "io/remote/sigv4_internal.hpp"

namespace strata::io::remote {
namespace {

std::string hex(const Digest& d) { return to_hex(std::span<const uint8_t>(d.data(), d.size())); }

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // One million 'a': many blocks, and the padding of a full final block.
  EXPECT_EQ(hex(sha256(std::string(1'000'000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  for (size_t n : {55, 56, 63, 64, 65}) EXPECT_EQ(hex(sha256(std::string(n, 'x'))).size(), 64u);
}

TEST(Sha256, HmacRfc4231) {
  const std::string key(20, '\x0b');
  EXPECT_EQ(hex(hmac_sha256(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()),
                            "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  const std::string jefe = "Jefe";
  EXPECT_EQ(hex(hmac_sha256(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(jefe.data()), jefe.size()),
                            "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than the block is hashed first (RFC 4231 test case 6).
  const std::string big(131, '\xaa');
  EXPECT_EQ(hex(hmac_sha256(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(big.data()), big.size()),
                            "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

const AwsCredentials kExampleCreds{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const std::string kEmptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// The AWS documentation's examples: bucket examplebucket in us-east-1, signed at 2013-05-24 00:00:00.
SigV4Signature sign_example(const SigV4Request& r) {
  return sigv4_sign(r, kExampleCreds, "us-east-1", "s3", "20130524T000000Z");
}

// An example GET without a body, with only the headers every request signs.
SigV4Request example_get(const std::string& path, decltype(SigV4Request::query) query) {
  SigV4Request r;
  r.method = "GET";
  r.path = path;
  r.query = std::move(query);
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-content-sha256", kEmptyHash},
               {"x-amz-date", "20130524T000000Z"}};
  r.payload_sha256_hex = kEmptyHash;
  return r;
}

TEST(SigV4, AwsExampleGetObjectWithRange) {
  SigV4Request r;
  r.method = "GET";
  r.path = "/test.txt";
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"Range", "bytes=0-9"},
               {"x-amz-content-sha256", kEmptyHash},
               {"x-amz-date", "20130524T000000Z"}};
  r.payload_sha256_hex = kEmptyHash;
  const SigV4Signature s = sign_example(r);
  EXPECT_EQ(s.string_to_sign,
            "AWS4-HMAC-SHA256\n20130524T000000Z\n20130524/us-east-1/s3/aws4_request\n"
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(s.canonical_request,
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:" + kEmptyHash + "\nx-amz-date:20130524T000000Z\n\n"
            "host;range;x-amz-content-sha256;x-amz-date\n" + kEmptyHash);
  EXPECT_EQ(s.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4, AwsExampleListObjects) {
  const SigV4Request r = example_get("/", {{"max-keys", "2"}, {"prefix", "J"}});
  const SigV4Signature s = sign_example(r);
  EXPECT_EQ(s.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST(SigV4, AwsExampleGetBucketLifecycle) {
  const SigV4Request r = example_get("/", {{"lifecycle", ""}});
  const SigV4Signature s = sign_example(r);
  EXPECT_THAT(s.canonical_request, ::testing::StartsWith("GET\n/\nlifecycle=\nhost:"));
  EXPECT_EQ(s.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST(SigV4, AwsExamplePutObject) {
  const std::string body = "Welcome to Amazon S3.";
  const std::string body_hash = "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072";
  EXPECT_EQ(hex(sha256(body)), body_hash);
  SigV4Request r;
  r.method = "PUT";
  r.path = "/test%24file.text";
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
               {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
               {"x-amz-content-sha256", body_hash},
               {"x-amz-date", "20130524T000000Z"}};
  r.payload_sha256_hex = body_hash;
  const SigV4Signature s = sign_example(r);
  EXPECT_EQ(s.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4, UriEncoding) {
  EXPECT_EQ(uri_encode("a b/c~d_e-f.g$", false), "a%20b%2Fc~d_e-f.g%24");
  EXPECT_EQ(uri_encode("a b/c", true), "a%20b/c");
  EXPECT_EQ(uri_encode("\xc3\xa9%", false), "%C3%A9%25");
}

}  // namespace
}  // namespace strata::io::remote
