// ListObjectsV2 result pages (S3 and GCS's XML API): the keys and common prefixes below the
// listed prefix, as names of immediate children.
#include <string>
#include <string_view>
#include <vector>

#include "io/remote/object_store_internal.hpp"

namespace strata::io::remote {
namespace {

std::string xml_unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    const size_t semi = s.find(';', i);
    const std::string_view ent = s.substr(i + 1, semi == std::string_view::npos ? 0 : semi - i - 1);
    if (ent == "amp") out += '&';
    else if (ent == "lt") out += '<';
    else if (ent == "gt") out += '>';
    else if (ent == "quot") out += '"';
    else if (ent == "apos") out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      const long c = ent[1] == 'x' ? std::strtol(std::string(ent.substr(2)).c_str(), nullptr, 16)
                                   : std::strtol(std::string(ent.substr(1)).c_str(), nullptr, 10);
      if (c > 0 && c < 128) out += static_cast<char>(c);
      else out += '?';
    } else {
      out += '&';
      continue;
    }
    i = semi;
  }
  return out;
}

// Text of every <tag>…</tag> inside each <parent>…</parent>.
std::string element(std::string_view prefix, std::string_view name) {
  std::string s(prefix);
  s.append(name);
  s.push_back('>');
  return s;
}

std::vector<std::string> values_in(std::string_view xml, std::string_view parent, std::string_view tag) {
  std::vector<std::string> out;
  const std::string open_p = element("<", parent), close_p = element("</", parent);
  const std::string open_t = element("<", tag), close_t = element("</", tag);
  size_t pos = 0;
  while ((pos = xml.find(open_p, pos)) != std::string_view::npos) {
    const size_t end = xml.find(close_p, pos);
    if (end == std::string_view::npos) break;
    const std::string_view body = xml.substr(pos, end - pos);
    const size_t a = body.find(open_t);
    const size_t b = a == std::string_view::npos ? a : body.find(close_t, a);
    if (b != std::string_view::npos) out.push_back(xml_unescape(body.substr(a + open_t.size(), b - a - open_t.size())));
    pos = end + close_p.size();
  }
  return out;
}

std::string top_value(std::string_view xml, std::string_view tag) {
  const std::string open_t = element("<", tag), close_t = element("</", tag);
  const size_t a = xml.find(open_t);
  if (a == std::string_view::npos) return "";
  const size_t b = xml.find(close_t, a);
  if (b == std::string_view::npos) return "";
  return xml_unescape(xml.substr(a + open_t.size(), b - a - open_t.size()));
}

}  // namespace

Status parse_list_v2(std::string_view xml, const std::string& listed_prefix, std::vector<std::string>& names,
                     std::string& next_token) {
  if (xml.find("ListBucketResult") == std::string_view::npos)
    return Status::Corrupt("object listing: the response is not a ListBucketResult document");
  auto add = [&](const std::string& full) {
    if (full.size() <= listed_prefix.size() || full.compare(0, listed_prefix.size(), listed_prefix) != 0) return;
    std::string name = full.substr(listed_prefix.size());
    while (!name.empty() && name.back() == '/') name.pop_back();
    if (!name.empty() && name.find('/') == std::string::npos) names.push_back(std::move(name));
  };
  for (const auto& k : values_in(xml, "Contents", "Key")) add(k);
  for (const auto& p : values_in(xml, "CommonPrefixes", "Prefix")) add(p);
  next_token = top_value(xml, "IsTruncated") == "true" ? top_value(xml, "NextContinuationToken") : "";
  return Status::OK();
}

}  // namespace strata::io::remote
