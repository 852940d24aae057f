-- GraphQL subscriptions with Absinthe (docs/guides/graphql-subscriptions-with-absinthe.md):
-- subscribe over the socket, wait for pushed results, measure how long each took to come.
local stampede = require "stampede"
local channels = require "stampede.channels"

local BASE = stampede.env("BASE_URL", "http://localhost:4000")

local SUBSCRIPTION = [[
subscription CommentAdded($postId: ID!) {
  commentAdded(postId: $postId) { id body }
}
]]

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "AbsintheSubscriptions",
  options = {
    vus = 50,
    duration = "1m",
    thresholds = {
      { "subscription.start", p95 = 250 },
      { "subscription.next", p95 = 2000 },
      { "iteration.errors", count = 0 },
    },
  },
  run = function(vu)
    local socket = channels.connect(BASE .. "/socket")
    local absinthe = channels.absinthe(socket)   -- joins __absinthe__:control
    -- interval_ms is understood by `stampede target` only (how often it pushes); your
    -- schema ignores variables it does not declare.
    local id = stampede.measure("subscription.start", absinthe.subscribe, absinthe, SUBSCRIPTION,
      { postId = tostring(vu.id % 10), interval_ms = 200 })
    for _ = 1, 3 do
      local result = stampede.measure("subscription.next", absinthe.await, absinthe, id, { timeout = "5s" })
      stampede.check("data pushed", result ~= nil and result.data ~= nil)
    end
    absinthe:unsubscribe(id)
  end,
}

return scenario
