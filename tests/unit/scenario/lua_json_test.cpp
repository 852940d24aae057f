#include "scenario/lua_json.hpp"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <lua.hpp>

namespace stampede::scenario {
namespace {

class LuaJson : public ::testing::Test {
 protected:
  void SetUp() override {
    L = luaL_newstate();
    luaL_openlibs(L);
  }
  void TearDown() override { lua_close(L); }
  // Evaluates `expr` and converts the result.
  std::string encode(const char* expr) {
    const std::string chunk = std::string("return ") + expr;
    EXPECT_EQ(luaL_dostring(L, chunk.c_str()), 0) << lua_tostring(L, -1);
    std::string out = boost::json::serialize(lua_to_json(L, -1));
    lua_pop(L, 1);
    return out;
  }
  lua_State* L = nullptr;
};

TEST_F(LuaJson, ScalarsArraysAndObjects) {
  EXPECT_EQ(encode("1"), "1");
  EXPECT_EQ(encode("1.5"), "1.5E0");
  EXPECT_EQ(encode("'a\\nb'"), "\"a\\nb\"");
  EXPECT_EQ(encode("true"), "true");
  EXPECT_EQ(encode("{1, 2, 3}"), "[1,2,3]");
  EXPECT_EQ(encode("{}"), "{}");  // Phoenix payloads want objects
  EXPECT_EQ(encode("{a = {b = {1, 'x'}}}"), "{\"a\":{\"b\":[1,\"x\"]}}");
  // Holes: not an array. (Key order is not part of JSON: compare values.)
  EXPECT_EQ(boost::json::parse(encode("{[1] = 'a', [3] = 'c'}")), boost::json::parse(R"({"1":"a","3":"c"})"));
}

TEST_F(LuaJson, UnencodableValuesNameTheirPath) {
  ASSERT_EQ(luaL_dostring(L, "return { a = { f = print } }"), 0);
  try {
    lua_to_json(L, -1);
    FAIL() << "expected an error";
  } catch (const JsonConversionError& e) {
    EXPECT_NE(std::string(e.what()).find("value.a.f"), std::string::npos) << e.what();
  }
}

TEST_F(LuaJson, CyclesAreRejected) {
  ASSERT_EQ(luaL_dostring(L, "local t = {} t.self = t return t"), 0);
  EXPECT_THROW(lua_to_json(L, -1), JsonConversionError);
}

TEST_F(LuaJson, ACycleIsNamedOnceWhereItCloses) {
  // It used to be found 200 levels down, "value.self.self.self..." hundreds of times over.
  ASSERT_EQ(luaL_dostring(L, "local t = { a = { b = {} } } t.a.b.up = t.a return t"), 0);
  try {
    lua_to_json(L, -1);
    FAIL() << "expected an error";
  } catch (const JsonConversionError& e) {
    EXPECT_STREQ(e.what(), "cannot encode a cycle: value.a.b.up is value.a");
  }
}

TEST_F(LuaJson, TheSameTableTwiceIsNoCycle) {
  ASSERT_EQ(luaL_dostring(L, "local shared = {1} return { x = shared, y = shared }"), 0);
  EXPECT_EQ(lua_to_json(L, -1), boost::json::parse(R"({"x":[1],"y":[1]})"));
}

TEST_F(LuaJson, RoundTripKeepsNullsInArrays) {
  push_json(L, boost::json::parse(R"({"list":[1,null,3],"s":"x","n":2.5,"b":false})"));
  const auto back = lua_to_json(L, -1);
  EXPECT_EQ(back, boost::json::parse(R"({"list":[1,null,3],"s":"x","n":2.5,"b":false})"));
}

}  // namespace
}  // namespace stampede::scenario
