#include "engine/generator_setup.hpp"

#include <gtest/gtest.h>

namespace stampede::engine {
namespace {

MachineView machine(unsigned cores, TargetPlace target, std::string name = "127.0.0.1:4000") {
  return {cores, target, std::move(name)};
}

TEST(GeneratorSetup, WhatTheCommandLineAsksWins) {
  const auto s = choose_generator_setup(3, CpuPolicy::batch, machine(2, TargetPlace::this_machine));
  EXPECT_EQ(s.threads, 3);
  EXPECT_EQ(s.policy, CpuPolicy::batch);
  EXPECT_EQ(s.why, "as asked");
  // A policy alone keeps that policy's own default count; threads alone sleep.
  EXPECT_EQ(choose_generator_setup(0, CpuPolicy::poll, machine(4, TargetPlace::elsewhere)).threads, 3);
  const auto t = choose_generator_setup(2, std::nullopt, machine(2, TargetPlace::this_machine));
  EXPECT_EQ(t.threads, 2);
  EXPECT_EQ(t.policy, CpuPolicy::normal);
}

TEST(GeneratorSetup, TwoCoresRunOneAdaptiveWorkerWhereverTheTargetIs) {
  for (TargetPlace place : {TargetPlace::this_machine, TargetPlace::elsewhere, TargetPlace::unknown}) {
    const auto s = choose_generator_setup(0, std::nullopt, machine(2, place));
    EXPECT_EQ(s.threads, 1);
    EXPECT_EQ(s.policy, CpuPolicy::adaptive) << "sleeping, polling only while busy (design 054)";
  }
  EXPECT_EQ(choose_generator_setup(0, std::nullopt, machine(2, TargetPlace::this_machine)).why,
            "2 cores, the target 127.0.0.1:4000 on this machine: the other core is left to it");
}

TEST(GeneratorSetup, OneCoreOnlySleeps) {
  for (TargetPlace place : {TargetPlace::this_machine, TargetPlace::elsewhere}) {
    const auto s = choose_generator_setup(0, std::nullopt, machine(1, place));
    EXPECT_EQ(s.threads, 1);
    EXPECT_EQ(s.policy, CpuPolicy::normal) << "a polling worker would hold the only core";
  }
}

TEST(GeneratorSetup, ManyCoresLeaveHalfToALocalTarget) {
  EXPECT_EQ(choose_generator_setup(0, std::nullopt, machine(8, TargetPlace::this_machine)).threads, 4);
  EXPECT_EQ(choose_generator_setup(0, std::nullopt, machine(8, TargetPlace::unknown)).threads, 4);
  const auto far = choose_generator_setup(0, std::nullopt, machine(8, TargetPlace::elsewhere, "10.0.0.5:4000"));
  EXPECT_EQ(far.threads, 8);
  EXPECT_EQ(far.policy, CpuPolicy::adaptive);
  EXPECT_EQ(far.why, "8 cores, the target 10.0.0.5:4000 elsewhere: one worker per core");
}

TEST(GeneratorSetup, UrlHostsFindsEachHostOnceWithItsPort) {
  const std::string lua = R"(
    local base = "http://127.0.0.1:4000"
    http.get("http://127.0.0.1:4000/x")
    channels.connect('ws://localhost/socket/websocket')
    http.get("https://[::1]:4443/a?b=c")
    -- wss://Example.COM:443/live
  )";
  EXPECT_EQ(url_hosts(lua), (std::vector<std::string>{"127.0.0.1:4000", "localhost", "[::1]:4443", "Example.COM:443"}));
  EXPECT_TRUE(url_hosts("no urls here, ftp://x.y").empty());
}

TEST(GeneratorSetup, GetenvNamesAreTheVariablesTheScenarioReads) {
  EXPECT_EQ(getenv_names(R"(local u = os.getenv("TARGET") or "x"; os.getenv 'PORT'; os.getenv("TARGET"))"),
            (std::vector<std::string>{"TARGET", "PORT"}));
}

}  // namespace
}  // namespace stampede::engine
