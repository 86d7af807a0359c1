// --args: syntax, errors that name the parameter, binding to a kernel's parameters.
#include "helion/Tune/ArgSpec.h"

#include <catch2/catch.hpp>

using namespace helion;
using namespace helion::tune;

namespace {

ArgSpec parseOk(const std::vector<std::string> &texts) {
  auto p = parseArgSpec(texts);
  INFO((p.errors.empty() ? "" : p.errors.front()));
  REQUIRE(p.ok());
  return *p.value;
}

std::vector<std::string> parseErrors(const std::string &text) {
  auto p = parseArgSpec({text});
  CHECK_FALSE(p.ok());
  return p.errors;
}

ir::Param tensor(std::string name, int rank) {
  ir::Param p;
  p.name = std::move(name);
  p.rank = rank;
  return p;
}

ir::Param scalar(std::string name, ir::ScalarType type) {
  ir::Param p;
  p.kind = ir::Param::Kind::Scalar;
  p.name = std::move(name);
  p.scalarType = type;
  return p;
}

/// rms_norm(x, weight, eps, n, flag) with a captured output tensor `out`.
ir::Kernel kernel() {
  ir::Kernel k;
  k.name = "rms_norm";
  ir::Param out = tensor("out", 2);
  out.captured = true;
  k.params = {tensor("x", 2),
              tensor("weight", -1),
              out,
              scalar("eps", ir::ScalarType::F64),
              scalar("n", ir::ScalarType::I32),
              scalar("flag", ir::ScalarType::B8)};
  return k;
}

std::vector<std::string> bindErrors(const std::string &text) {
  auto b = bindArgs(parseOk({text}), kernel());
  CHECK_FALSE(b.ok());
  return b.errors;
}

} // namespace

TEST_CASE("tensors and scalars parse", "[argspec]") {
  ArgSpec s = parseOk({"x=bf16[8192,8192] eps=1e-5 n=128 flag=true"});
  REQUIRE(s.args.size() == 4);
  CHECK(s.args[0].name == "x");
  CHECK(s.args[0].tensor() == TensorArg{ir::ScalarType::BF16, {8192, 8192}});
  CHECK(std::get<double>(s.args[1].scalar()) == 1e-5);
  CHECK(std::get<int64_t>(s.args[2].scalar()) == 128);
  CHECK(std::get<bool>(s.args[3].scalar()) == true);
  CHECK(s.label() == "x=bf16[8192,8192] eps=1e-05 n=128 flag=true");
  CHECK(s.shapeKey() == nlohmann::json::parse(R"({"x": [8192, 8192]})"));
  CHECK(s.shapes() == config::Shapes{{"x", {8192, 8192}}});
}

TEST_CASE("one token per --args, spaces inside brackets, 0-d and empty tensors", "[argspec]") {
  ArgSpec s = parseOk({"x=f32[ 4, 0 ]", "s=i64[]", "  y=b8[7]  z=f16[1,2,3]", "k=-3", "m=+2.5"});
  REQUIRE(s.args.size() == 6);
  CHECK(s.args[0].tensor().sizes == std::vector<int64_t>{4, 0});
  CHECK(s.args[1].tensor().sizes.empty());
  CHECK(s.args[1].valueText() == "i64[]");
  CHECK(s.args[3].tensor().dtype == ir::ScalarType::F16);
  CHECK(std::get<int64_t>(s.args[4].scalar()) == -3);
  CHECK(std::get<double>(s.args[5].scalar()) == 2.5);
  CHECK(parseOk({"x=bf16[8192, 8192]"}).args[0].tensor().sizes.size() == 2);
}

TEST_CASE("malformed specs name the parameter", "[argspec]") {
  CHECK(parseErrors("x=bf16[8192,") ==
        std::vector<std::string>{
            "--args: 'x': expected a dtype and sizes like bf16[8192,8192], got 'bf16[8192,'"});
  CHECK(parseErrors("x=bf16[8192,,4]")[0] ==
        "--args: 'x': expected a dtype and sizes like bf16[8192,8192], got 'bf16[8192,,4]'");
  CHECK(parseErrors("x=bf16")[0] ==
        "--args: 'x': expected a dtype and sizes like bf16[8192,8192], got 'bf16'");
  CHECK(parseErrors("x=bf17[4]")[0] == "--args: 'x': unknown dtype 'bf17' in 'bf17[4]' (expected "
                                       "f16, bf16, f32, f64, i8, i32, i64, b8, u8, f8e4m3 or "
                                       "f8e5m2)");
  CHECK(parseErrors("x=f32[4,-1]")[0] == "--args: 'x': expected sizes >= 0, got -1 in 'f32[4,-1]'");
  CHECK(parseErrors("x=f32[99999999999999999999]")[0] ==
        "--args: 'x': size 99999999999999999999 of 'f32[99999999999999999999]' does not fit in "
        "64 bits");
  CHECK(parseErrors("x=f32[4294967296,4294967296]")[0] ==
        "--args: 'x': 'f32[4294967296,4294967296]' has more than 2^63 - 1 elements");
  CHECK(parseErrors("x=f32[2.5]")[0] ==
        "--args: 'x': expected a dtype and sizes like bf16[8192,8192], got 'f32[2.5]'");
  CHECK(parseErrors("eps=fast")[0] ==
        "--args: 'eps': expected a dtype and sizes like "
        "bf16[8192,8192] or a scalar like 1e-5, 128 or true, got 'fast'");
  CHECK(parseErrors("eps=inf")[0].find("got 'inf'") != std::string::npos);
  CHECK(parseErrors("x")[0] == "--args: expected NAME=VALUE, got 'x'");
  CHECK(parseErrors("=3")[0] == "--args: expected NAME=VALUE, got '=3'");
  CHECK(parseErrors("1x=3")[0] == "--args: '1x' is not a parameter name (in '1x=3')");
  CHECK(parseErrors("x=f32[1] x=f32[2]") == std::vector<std::string>{"--args: 'x': given twice"});
  CHECK(parseErrors("  ")[0] ==
        "--args: expected NAME=VALUE for every kernel parameter, got nothing");
  // Every problem, in order.
  CHECK(parseErrors("a=f32[4] b c").size() == 2);
  // An unclosed bracket takes the rest of the text: one error, naming it.
  CHECK(parseErrors("a=f32[4 b=2").size() == 1);
}

TEST_CASE("an offsets fill: a 1-D integer tensor rising to a total", "[argspec]") {
  ArgSpec s = parseOk({"x=f32[65536,64] offsets=i64[1025]:offsets(65536)"});
  REQUIRE(s.args.size() == 2);
  CHECK(s.args[1].tensor() == TensorArg{ir::ScalarType::I64, {1025}, 65536});
  CHECK(s.args[0].tensor().offsetsTotal == std::nullopt);
  CHECK(s.label() == "x=f32[65536,64] offsets=i64[1025]:offsets(65536)");
  CHECK(s.shapes() == config::Shapes{{"x", {65536, 64}}, {"offsets", {1025}}});
  CHECK(parseOk({"o=i32[2]:offsets(0)"}).args[0].tensor().offsetsTotal == 0);
  CHECK(parseErrors("o=i64[9]:ofsets(8)")[0] ==
        "--args: 'o': expected a fill like :offsets(65536) (a total >= 0) after the sizes, got "
        "':ofsets(8)'");
  CHECK(parseErrors("o=i64[9]:offsets(-1)")[0].find("a total >= 0") != std::string::npos);
  CHECK(parseErrors("o=f32[9]:offsets(8)")[0] ==
        "--args: 'o': :offsets fills a 1-D i32 or i64 tensor of at least one entry, got "
        "'f32[9]:offsets(8)'");
  CHECK(parseErrors("o=i64[3,3]:offsets(8)")[0].find("1-D i32 or i64") != std::string::npos);
  CHECK(parseErrors("o=i64[0]:offsets(8)")[0].find("at least one entry") != std::string::npos);
  CHECK(parseErrors("o=i32[9]:offsets(4294967296)")[0] ==
        "--args: 'o': offsets up to 4294967296 do not fit in i32");
  CHECK(parseErrors("o=i64[9:offsets(8)").size() == 1);
}

TEST_CASE("binding puts arguments in parameter order and converts scalars", "[argspec]") {
  auto b = bindArgs(parseOk({"flag=false n=7 eps=1 weight=f32[] x=bf16[2,3]"}), kernel());
  INFO((b.errors.empty() ? "" : b.errors.front()));
  REQUIRE(b.ok());
  CHECK(b.value->label() == "x=bf16[2,3] weight=f32[] eps=1 n=7 flag=false");
  CHECK(std::holds_alternative<double>(b.value->args[2].scalar())); // f64 parameter
  CHECK(b.value->shapeKey() == nlohmann::json::parse(R"({"x": [2, 3], "weight": []})"));
  CHECK(b.value->dtypeKey() == nlohmann::json::parse(R"({"x": "bf16", "weight": "f32"})"));
}

TEST_CASE("binding errors name the parameter", "[argspec]") {
  const std::string ok = " weight=f32[4] eps=1e-5 n=1 flag=true";
  CHECK(bindErrors("x=bf16[2,3] weight=f32[4] eps=1e-5 n=1") ==
        std::vector<std::string>{
            "--args: 'flag': missing (kernel 'rms_norm' takes x, weight, eps, n, flag)"});
  CHECK(bindErrors("xx=bf16[2,3]" + ok)[0] ==
        "--args: 'xx': not a parameter of kernel 'rms_norm'; did you mean 'x'?");
  CHECK(bindErrors("x=bf16[2,3] zzzzzz=1" + ok)[0] ==
        "--args: 'zzzzzz': not a parameter of kernel 'rms_norm'");
  CHECK(bindErrors("x=bf16[2,3] out=bf16[2,3]" + ok)[0] ==
        "--args: 'out': not a parameter of kernel 'rms_norm' (a host variable the kernel reads; "
        "the host code computes it)");
  CHECK(bindErrors("x=bf16[2,3,4]" + ok)[0] ==
        "--args: 'x': expected 2 sizes (the kernel uses a rank-2 tensor), got 3 in 'bf16[2,3,4]'");
  CHECK(bindErrors("x=3" + ok)[0] ==
        "--args: 'x': expected a dtype and sizes like bf16[8192,8192] (a tensor), got '3'");
  CHECK(bindErrors("x=bf16[2,3] weight=f32[4] eps=f32[1] n=1 flag=true")[0] ==
        "--args: 'eps': expected a scalar (the parameter is f64), got the tensor 'f32[1]'");
  CHECK(bindErrors("x=bf16[2,3] weight=f32[4] eps=1e-5 n=1.5 flag=true")[0] ==
        "--args: 'n': expected an integer (the parameter is i32), got '1.5'");
  CHECK(bindErrors("x=bf16[2,3] weight=f32[4] eps=1e-5 n=4294967296 flag=true")[0] ==
        "--args: 'n': 4294967296 is out of range for i32 [-2147483648, 2147483647]");
  CHECK(bindErrors("x=bf16[2,3] weight=f32[4] eps=true n=1 flag=true")[0] ==
        "--args: 'eps': expected a number (the parameter is f64), got 'true'");
  CHECK(bindErrors("x=bf16[2,3] weight=f32[4] eps=1 n=1 flag=1")[0] ==
        "--args: 'flag': expected true or false (the parameter is b8), got '1'");
}

TEST_CASE("nearest names", "[argspec]") {
  CHECK(nearestName("wieght", {"x", "weight"}) == "weight");
  CHECK_FALSE(nearestName("completely_else", {"x", "weight"}));
}
