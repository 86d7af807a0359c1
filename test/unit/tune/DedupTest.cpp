// Candidates whose generated CUDA is identical are measured once.
#include "helion/Tune/Dedup.h"

#include <catch2/catch.hpp>

using namespace helion::tune;

TEST_CASE("the first candidate with a text represents the later ones", "[dedup]") {
  CandidateDedup d;
  CHECK(d.add("__global__ void k() { a(); }") == 0);
  CHECK(d.add("__global__ void k() { b(); }") == 1);
  CHECK(d.add("__global__ void k() { a(); }") == 2);
  CHECK(d.add("__global__ void k() { b(); }") == 3);
  CHECK(d.add("") == 4);
  CHECK(d.add("") == 5);
  CHECK(d.size() == 6);
  CHECK(d.distinct() == 3);
  CHECK(d.representative(0) == 0);
  CHECK(d.representative(1) == 1);
  CHECK(d.representative(2) == 0);
  CHECK(d.representative(3) == 1);
  CHECK(d.representative(5) == 4);
  CHECK(d.isRepresentative(4));
  CHECK_FALSE(d.isRepresentative(2));
}

TEST_CASE("texts differing in one byte are distinct", "[dedup]") {
  CandidateDedup d;
  std::string text(20000, 'x');
  d.add(text);
  for (size_t i = 0; i < text.size(); i += 997) {
    std::string other = text;
    other[i] = 'y';
    size_t id = d.add(other);
    CHECK(d.isRepresentative(id));
  }
  CHECK(d.distinct() == d.size());
}

TEST_CASE("digests are stable and length-prefixed", "[dedup]") {
  // Pinned: cache file names depend on these bytes never changing.
  CHECK(hashText("").hex().size() == 32);
  CHECK(hashText("softmax") == hashText("softmax"));
  CHECK_FALSE(hashText("softmax") == hashText("softmay"));
  CHECK_FALSE(Hasher().add("ab").add("c").digest() == Hasher().add("a").add("bc").digest());
  CHECK(hashText("helionc").hex() == Hasher().add("helionc").digest().hex());
}
