#include "target/delay_spec.hpp"

#include <gtest/gtest.h>

namespace stampede::target {
namespace {

TEST(DelaySpec, ParsesEveryForm) {
  const auto fixed = parse_delay_spec("fixed:10");
  ASSERT_TRUE(fixed);
  EXPECT_DOUBLE_EQ(std::get<FixedDelay>(*fixed).ms, 10);

  const auto uniform = parse_delay_spec("uniform:5:15");
  ASSERT_TRUE(uniform);
  EXPECT_DOUBLE_EQ(std::get<UniformDelay>(*uniform).lo_ms, 5);
  EXPECT_DOUBLE_EQ(std::get<UniformDelay>(*uniform).hi_ms, 15);

  const auto lognormal = parse_delay_spec("lognormal:20:0.6");
  ASSERT_TRUE(lognormal);
  EXPECT_DOUBLE_EQ(std::get<LognormalDelay>(*lognormal).median_ms, 20);
  EXPECT_DOUBLE_EQ(std::get<LognormalDelay>(*lognormal).sigma, 0.6);

  const auto bimodal = parse_delay_spec("bimodal:5:300:0.015");
  ASSERT_TRUE(bimodal);
  EXPECT_DOUBLE_EQ(std::get<BimodalDelay>(*bimodal).fast_ms, 5);
  EXPECT_DOUBLE_EQ(std::get<BimodalDelay>(*bimodal).slow_ms, 300);
  EXPECT_DOUBLE_EQ(std::get<BimodalDelay>(*bimodal).p_slow, 0.015);
}

TEST(DelaySpec, AcceptsZeroAndFractions) {
  EXPECT_TRUE(parse_delay_spec("fixed:0"));
  EXPECT_TRUE(parse_delay_spec("fixed:0.25"));
  EXPECT_TRUE(parse_delay_spec("uniform:3:3"));
  EXPECT_TRUE(parse_delay_spec("lognormal:1:0"));
  EXPECT_TRUE(parse_delay_spec("bimodal:0:1:1"));
}

TEST(DelaySpec, FormatsBackToTheCanonicalText) {
  for (const auto* text : {"fixed:0", "fixed:10", "uniform:5:15", "lognormal:20:0.6", "bimodal:5:300:0.015"}) {
    EXPECT_EQ(format_delay_spec(*parse_delay_spec(text)), text);
  }
}

TEST(DelaySpec, ErrorsNameTheSpecAndTheAcceptedForms) {
  const auto rejects = [](std::string_view text, std::string_view why) {
    std::string error;
    EXPECT_FALSE(parse_delay_spec(text, &error)) << text;
    EXPECT_NE(error.find("\"" + std::string(text) + "\""), std::string::npos) << error;
    EXPECT_NE(error.find(kDelaySpecForms), std::string::npos) << error;
    EXPECT_NE(error.find(why), std::string::npos) << error;
  };
  rejects("", "unknown distribution");
  rejects("gaussian:1:2", "unknown distribution \"gaussian\"");
  rejects("fixed", "fixed takes 1 number, got 0");
  rejects("fixed:1:2", "fixed takes 1 number, got 2");
  rejects("uniform:5", "uniform takes 2 numbers, got 1");
  rejects("bimodal:5:300", "bimodal takes 3 numbers, got 2");
  rejects("fixed:ten", "\"ten\" is not a number");
  rejects("fixed:", "\"\" is not a number");
  rejects("fixed:10ms", "\"10ms\" is not a number");
  rejects("fixed:nan", "not a number");
  rejects("fixed:inf", "not a number");
  rejects("fixed:-1", "negative");
  rejects("uniform:15:5", "LO is greater than HI");
  rejects("lognormal:0:0.5", "median must be greater than 0");
  rejects("lognormal:20:11", "SIGMA");
  rejects("bimodal:5:300:1.5", "P_SLOW");
  rejects("fixed:4000000", "one hour");
  rejects("Fixed:10", "unknown distribution");
}

}  // namespace
}  // namespace stampede::target
