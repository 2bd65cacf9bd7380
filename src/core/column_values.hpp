#pragma once
// Compact storage of the integer and string columns of a result Table (core/result.hpp).
//
// Result tables can hold 10^5-10^6 rows (critical-path segments, per-launch lists), most of them
// small integers (rank, step, counts) and a few distinct strings repeated on every row (an
// attribution, a stream, a kernel name). Stored as std::vector<int64_t> and
// std::vector<std::string> they cost 8 and 32 bytes per cell (plus a heap block for strings
// longer than 15 characters); here:
//  - IntVector: signed integers packed at the narrowest width of 1, 2, 4 or 8 bytes that holds
//    every value stored so far (widened in place, once per width, when a value needs more);
//  - DoubleVector: an IntVector while every value is an exact integer (integer microseconds,
//    counts), plain doubles from the first value that is not;
//  - StringVector: per-row ids (an IntVector) into a dictionary of the distinct strings, in the
//    order they were first stored, with an open-addressing hash index over the dictionary.
// They read like a std::vector of int64_t / double / std::string (operator[], size, iteration, front,
// back, push_back, emplace_back, reserve); cells are not assignable in place (result tables are
// written row by row and then only read). References returned by StringVector stay valid until
// the next push_back of a string not seen before (like std::vector's after a reallocation).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace sextant {

// A random-access iterator over a container read by index (operator[] returning T by value):
// the iterator of IntVector and DoubleVector, whose elements are decoded, not stored.
template <class Container, class T>
class IndexIterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  IndexIterator() = default;
  IndexIterator(const Container* v, size_t i) : v_(v), i_(i) {}
  T operator*() const { return (*v_)[i_]; }
  T operator[](difference_type n) const { return (*v_)[static_cast<size_t>(static_cast<difference_type>(i_) + n)]; }
  IndexIterator& operator++() { ++i_; return *this; }
  IndexIterator operator++(int) { auto t = *this; ++i_; return t; }
  IndexIterator& operator--() { --i_; return *this; }
  IndexIterator operator--(int) { auto t = *this; --i_; return t; }
  IndexIterator& operator+=(difference_type n) { i_ = static_cast<size_t>(static_cast<difference_type>(i_) + n); return *this; }
  IndexIterator& operator-=(difference_type n) { return *this += -n; }
  friend IndexIterator operator+(IndexIterator a, difference_type n) { return a += n; }
  friend IndexIterator operator+(difference_type n, IndexIterator a) { return a += n; }
  friend IndexIterator operator-(IndexIterator a, difference_type n) { return a -= n; }
  friend difference_type operator-(const IndexIterator& a, const IndexIterator& b) {
    return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
  }
  friend bool operator==(const IndexIterator& a, const IndexIterator& b) { return a.i_ == b.i_; }
  friend auto operator<=>(const IndexIterator& a, const IndexIterator& b) { return a.i_ <=> b.i_; }

 private:
  const Container* v_ = nullptr;
  size_t i_ = 0;
};

class IntVector {
 public:
  using value_type = int64_t;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = int64_t;
  using const_reference = int64_t;

  using const_iterator = IndexIterator<IntVector, int64_t>;
  using iterator = const_iterator;

  IntVector() = default;
  IntVector(std::initializer_list<int64_t> values) {
    reserve(values.size());
    for (int64_t v : values) push_back(v);
  }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Rows that fit without reallocating at the present width.
  size_t capacity() const { return bytes_.capacity() / width_; }
  // Bytes per stored value: 1, 2, 4 or 8.
  size_t width_bytes() const { return width_; }

  int64_t operator[](size_t i) const {
    const unsigned char* p = bytes_.data() + i * width_;
    switch (width_) {
      case 1: return static_cast<int8_t>(*p);
      case 2: { int16_t v; std::memcpy(&v, p, 2); return v; }
      case 4: { int32_t v; std::memcpy(&v, p, 4); return v; }
      default: { int64_t v; std::memcpy(&v, p, 8); return v; }
    }
  }
  int64_t at(size_t i) const {
    if (i >= size_) throw std::out_of_range("IntVector::at: row " + std::to_string(i) + " of " + std::to_string(size_));
    return (*this)[i];
  }
  int64_t front() const { return (*this)[0]; }
  int64_t back() const { return (*this)[size_ - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

  void push_back(int64_t v) {
    const uint8_t w = width_for(v);
    if (w > width_) widen(w);
    switch (width_) {
      case 1: append(static_cast<int8_t>(v)); break;
      case 2: append(static_cast<int16_t>(v)); break;
      case 4: append(static_cast<int32_t>(v)); break;
      default: append(v); break;
    }
    ++size_;
  }
  void emplace_back(int64_t v) { push_back(v); }
  void reserve(size_t rows) { bytes_.reserve(rows * width_); }
  void clear() {
    bytes_.clear();
    size_ = 0;
  }

  friend bool operator==(const IntVector& a, const IntVector& b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  static uint8_t width_for(int64_t v) {
    if (v >= INT8_MIN && v <= INT8_MAX) return 1;
    if (v >= INT16_MIN && v <= INT16_MAX) return 2;
    if (v >= INT32_MIN && v <= INT32_MAX) return 4;
    return 8;
  }
  template <class T>
  void append(T v) {
    unsigned char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    bytes_.insert(bytes_.end(), b, b + sizeof(T));
  }
  // Re-encodes the stored values at width w, keeping the capacity in rows.
  void widen(uint8_t w) {
    std::vector<unsigned char> wide;
    wide.reserve(std::max(capacity(), size_ + 1) * w);
    IntVector out;
    out.width_ = w;
    out.bytes_ = std::move(wide);
    for (size_t i = 0; i < size_; ++i) out.push_back((*this)[i]);
    bytes_ = std::move(out.bytes_);
    width_ = w;
  }

  std::vector<unsigned char> bytes_;
  size_t size_ = 0;
  uint8_t width_ = 1;
};

// Doubles stored as an IntVector while every value is an integer of magnitude at most 2^53 other
// than -0 (exact both ways: durations and timestamps in integer microseconds, counts), then, from
// the first value that is not, as plain doubles.
class DoubleVector {
 public:
  using value_type = double;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = double;
  using const_reference = double;

  using const_iterator = IndexIterator<DoubleVector, double>;
  using iterator = const_iterator;

  DoubleVector() = default;
  DoubleVector(std::initializer_list<double> values) {
    reserve(values.size());
    for (double v : values) push_back(v);
  }

  size_t size() const { return as_double_ ? doubles_.size() : ints_.size(); }
  bool empty() const { return size() == 0; }
  size_t capacity() const { return as_double_ ? doubles_.capacity() : ints_.capacity(); }
  // True once a value that is not an exact small integer was stored (8 bytes per value since).
  bool stores_doubles() const { return as_double_; }
  // Bytes per stored value.
  size_t width_bytes() const { return as_double_ ? sizeof(double) : ints_.width_bytes(); }

  double operator[](size_t i) const { return as_double_ ? doubles_[i] : static_cast<double>(ints_[i]); }
  double at(size_t i) const {
    if (i >= size()) throw std::out_of_range("DoubleVector::at: row " + std::to_string(i) + " of " + std::to_string(size()));
    return (*this)[i];
  }
  double front() const { return (*this)[0]; }
  double back() const { return (*this)[size() - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  void push_back(double v) {
    if (!as_double_) {
      // NaN and infinities fail the range test; -0 keeps its sign only as a double.
      if (v >= -kExact && v <= kExact && v == static_cast<double>(static_cast<int64_t>(v)) &&
          !(v == 0 && std::signbit(v))) {
        ints_.push_back(static_cast<int64_t>(v));
        return;
      }
      std::vector<double> d;
      d.reserve(std::max(ints_.capacity(), ints_.size() + 1));
      for (int64_t x : ints_) d.push_back(static_cast<double>(x));
      doubles_ = std::move(d);
      ints_ = IntVector();
      as_double_ = true;
    }
    doubles_.push_back(v);
  }
  void emplace_back(double v) { push_back(v); }
  void reserve(size_t rows) {
    if (as_double_) doubles_.reserve(rows);
    else ints_.reserve(rows);
  }
  void clear() {
    ints_ = IntVector();
    doubles_.clear();
    as_double_ = false;
  }
  std::vector<double> to_vector() const { return std::vector<double>(begin(), end()); }

  friend bool operator==(const DoubleVector& a, const DoubleVector& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i])) return false;
    return true;
  }

 private:
  static constexpr double kExact = 9007199254740992.0;  // 2^53
  IntVector ints_;
  std::vector<double> doubles_;
  bool as_double_ = false;
};

class StringVector {
 public:
  using value_type = std::string;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = const std::string&;
  using const_reference = const std::string&;

  class const_iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::string;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::string*;
    using reference = const std::string&;
    const_iterator() = default;
    const_iterator(const StringVector* v, size_t i) : v_(v), i_(i) {}
    const std::string& operator*() const { return (*v_)[i_]; }
    const std::string* operator->() const { return &(*v_)[i_]; }
    const std::string& operator[](difference_type n) const {
      return (*v_)[static_cast<size_t>(static_cast<difference_type>(i_) + n)];
    }
    const_iterator& operator++() { ++i_; return *this; }
    const_iterator operator++(int) { auto t = *this; ++i_; return t; }
    const_iterator& operator--() { --i_; return *this; }
    const_iterator operator--(int) { auto t = *this; --i_; return t; }
    const_iterator& operator+=(difference_type n) { i_ = static_cast<size_t>(static_cast<difference_type>(i_) + n); return *this; }
    const_iterator& operator-=(difference_type n) { return *this += -n; }
    friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
    friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
    friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
    friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const const_iterator& a, const const_iterator& b) { return a.i_ <=> b.i_; }

   private:
    const StringVector* v_ = nullptr;
    size_t i_ = 0;
  };
  using iterator = const_iterator;

  StringVector() = default;
  StringVector(std::initializer_list<std::string_view> values) {
    reserve(values.size());
    for (auto v : values) push_back(v);
  }
  template <class It>
  StringVector(It first, It last) {
    for (; first != last; ++first) push_back(std::string_view(*first));
  }

  size_t size() const { return ids_.size(); }
  bool empty() const { return ids_.empty(); }
  size_t capacity() const { return ids_.capacity(); }
  // Distinct strings stored (the dictionary), in the order they were first pushed.
  const std::vector<std::string>& dictionary() const { return dict_; }
  // Dictionary index of row i.
  size_t id(size_t i) const { return static_cast<size_t>(ids_[i]); }

  const std::string& operator[](size_t i) const { return dict_[static_cast<size_t>(ids_[i])]; }
  const std::string& at(size_t i) const {
    if (i >= size()) throw std::out_of_range("StringVector::at: row " + std::to_string(i) + " of " + std::to_string(size()));
    return (*this)[i];
  }
  const std::string& front() const { return (*this)[0]; }
  const std::string& back() const { return (*this)[size() - 1]; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size()}; }

  void push_back(std::string_view s) { ids_.push_back(static_cast<int64_t>(intern(s))); }
  template <class... Args>
  void emplace_back(Args&&... args) {
    const std::string s(std::forward<Args>(args)...);
    push_back(std::string_view(s));
  }
  void reserve(size_t rows) { ids_.reserve(rows); }
  void clear() {
    ids_.clear();
    dict_.clear();
    slots_.clear();
  }

  friend bool operator==(const StringVector& a, const StringVector& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  friend bool operator==(const StringVector& a, const std::vector<std::string>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  static size_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
  // The dictionary id of s, adding it when new. slots_ holds id + 1 (0: empty), at most half full.
  uint32_t intern(std::string_view s) {
    if (slots_.empty()) slots_.assign(8, 0);
    const size_t mask = slots_.size() - 1;
    for (size_t k = hash(s) & mask;; k = (k + 1) & mask) {
      const uint32_t slot = slots_[k];
      if (slot == 0) break;
      if (dict_[slot - 1] == s) return slot - 1;
    }
    if (dict_.size() >= UINT32_MAX - 1) throw std::length_error("StringVector: more than 2^32 - 2 distinct strings");
    const auto id = static_cast<uint32_t>(dict_.size());
    dict_.emplace_back(s);
    if (2 * dict_.size() > slots_.size()) {
      slots_.assign(2 * slots_.size(), 0);
      for (uint32_t j = 0; j < dict_.size(); ++j) place(j);
    } else {
      place(id);
    }
    return id;
  }
  void place(uint32_t id) {
    const size_t mask = slots_.size() - 1;
    size_t k = hash(dict_[id]) & mask;
    while (slots_[k] != 0) k = (k + 1) & mask;
    slots_[k] = id + 1;
  }

  IntVector ids_;
  std::vector<std::string> dict_;
  std::vector<uint32_t> slots_;
};

}  // namespace sextant
