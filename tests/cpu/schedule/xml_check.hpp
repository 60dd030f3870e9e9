// A small XML well-formedness checker for the SVG tests (no XML library is available here): one
// root element, properly nested and matching tags, quoted and unique attributes, only the five
// predefined entities or character references, nothing but comments/space after the root. Not a
// validating parser; it also hands back every element's name, attributes and direct text.
#pragma once

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tilegemm::test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attrs;  // values with entities left as written
  std::string text;                          // direct character data
};

class XmlChecker {
 public:
  // "" when `doc` is well-formed; otherwise what is wrong and at which byte.
  std::string check(std::string_view doc) {
    s_ = doc;
    i_ = 0;
    elements.clear();
    if (s_.substr(0, 5) == "<?xml") {
      const size_t end = s_.find("?>");
      if (end == std::string_view::npos) return fail("unterminated XML declaration");
      i_ = end + 2;
    }
    std::vector<size_t> open;  // indices into `elements`
    bool root_done = false;
    while (i_ < s_.size()) {
      if (s_.compare(i_, 4, "<!--") == 0) {
        const size_t end = s_.find("-->", i_ + 4);
        if (end == std::string_view::npos) return fail("unterminated comment");
        i_ = end + 3;
      } else if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        const std::string name = read_name();
        if (name.empty()) return fail("closing tag without a name");
        skip_space();
        if (i_ >= s_.size() || s_[i_] != '>') return fail("closing tag not ended by '>'");
        ++i_;
        if (open.empty() || elements[open.back()].name != name) return fail("mismatched </" + name + ">");
        open.pop_back();
        if (open.empty()) root_done = true;
      } else if (s_[i_] == '<') {
        if (root_done) return fail("second root element");
        ++i_;
        XmlElement e;
        e.name = read_name();
        if (e.name.empty()) return fail("tag without a name");
        bool self_closing = false;
        for (;;) {
          const bool spaced = skip_space();
          if (i_ >= s_.size()) return fail("unterminated tag <" + e.name);
          if (s_[i_] == '>') { ++i_; break; }
          if (s_.compare(i_, 2, "/>") == 0) { i_ += 2; self_closing = true; break; }
          if (!spaced) return fail("attributes must be separated by space");
          const std::string attr = read_name();
          if (attr.empty()) return fail("bad attribute name");
          skip_space();
          if (i_ >= s_.size() || s_[i_] != '=') return fail("attribute " + attr + " without '='");
          ++i_;
          skip_space();
          if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) return fail("unquoted attribute " + attr);
          const char quote = s_[i_++];
          const size_t end = s_.find(quote, i_);
          if (end == std::string_view::npos) return fail("unterminated attribute " + attr);
          const std::string value(s_.substr(i_, end - i_));
          if (value.find('<') != std::string::npos) return fail("'<' in attribute " + attr);
          if (!entities_ok(value)) return fail("bad entity in attribute " + attr);
          if (!e.attrs.emplace(attr, value).second) return fail("duplicate attribute " + attr);
          i_ = end + 1;
        }
        elements.push_back(std::move(e));
        if (!self_closing) open.push_back(elements.size() - 1);
        else if (open.empty()) root_done = true;
      } else {
        const size_t end = std::min(s_.find('<', i_), s_.size());
        const std::string text(s_.substr(i_, end - i_));
        if (!entities_ok(text)) return fail("bad entity in text");
        if (open.empty()) {
          for (char c : text)
            if (!std::isspace(static_cast<unsigned char>(c))) return fail("text outside the root element");
        } else {
          elements[open.back()].text += text;
        }
        i_ = end;
      }
    }
    if (!open.empty()) return fail("unclosed <" + elements[open.back()].name + ">");
    if (!root_done) return fail("no root element");
    return "";
  }

  std::vector<XmlElement> elements;

 private:
  std::string fail(const std::string& what) const { return what + " at byte " + std::to_string(i_); }

  bool skip_space() {
    const size_t start = i_;
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
    return i_ > start;
  }

  std::string read_name() {
    const size_t start = i_;
    auto first = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; };
    auto rest = [&](char c) { return first(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.'; };
    if (i_ < s_.size() && first(s_[i_])) {
      ++i_;
      while (i_ < s_.size() && rest(s_[i_])) ++i_;
    }
    return std::string(s_.substr(start, i_ - start));
  }

  static bool entities_ok(std::string_view t) {
    for (size_t p = t.find('&'); p != std::string_view::npos; p = t.find('&', p + 1)) {
      const size_t semi = t.find(';', p);
      if (semi == std::string_view::npos) return false;
      const std::string_view ent = t.substr(p + 1, semi - p - 1);
      if (ent == "amp" || ent == "lt" || ent == "gt" || ent == "quot" || ent == "apos") continue;
      if (ent.size() >= 2 && ent[0] == '#') {
        const bool hex = ent[1] == 'x';
        const std::string_view digits = ent.substr(hex ? 2 : 1);
        if (digits.empty()) return false;
        for (char c : digits)
          if (!(hex ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c))))
            return false;
        continue;
      }
      return false;
    }
    return true;
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace tilegemm::test
