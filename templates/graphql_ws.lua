-- {{name}}: a Stampede scenario for GraphQL over WebSocket (made by `stampede new --graphql-ws`).
--
-- Speaks graphql-transport-ws (npm graphql-ws, absinthe_graphql_ws); for the legacy
-- subscriptions-transport-ws give `subprotocol = "graphql-ws"`. It subscribes to new posts,
-- adds one with a mutation over the same socket and times how long the post takes to come
-- back through the subscription. The documents are examples: change them to your schema's.
-- (For Absinthe over Phoenix channels, use `channels.absinthe` in a --channels scenario.)
--
--   stampede run {{path}}
--   BASE_URL=http://127.0.0.1:4000 stampede run {{path}} --vus 200 --duration 2m
--
-- Every function and option: {{docs}}/reference/lua.md
local stampede = require "stampede"
local gql = require "stampede.graphql_ws"

local BASE = stampede.env("BASE_URL", "{{url}}")
local PATH = "/graphql"
local SUBSCRIPTION = "subscription { postAdded { id title } }"
local MUTATION = "mutation ($title: String!) { addPost(title: $title) { id } }"

-- (a local with its type, so editors complete the options and `vu`)
---@type stampede.Scenario
local scenario = {
  name = "{{name}}",
  options = {
    vus = 10,
    duration = "30s",
    thresholds = {
      { "ws.connect", p95 = 500 },
      { "post.roundtrip", p95 = 250 },     -- our own timing, below
      { "graphql.errors", count = 0 },
      { "iteration.errors", count = 0 },
    },
  },

  run = function(vu)
    -- http:// becomes ws://, https:// becomes wss://.
    local client = gql.connect((BASE:gsub("^http", "ws")) .. PATH, { payload = { user = "vu-" .. vu.id } })
    local id = client:subscribe(SUBSCRIPTION)
    for i = 1, 3 do
      local title = ("post %d from vu %d"):format(i, vu.id)
      stampede.measure("post.roundtrip", function()
        client:query(MUTATION, { variables = { title = title } })
        local result = client:await(id, {
          match = function(r) return r.data and r.data.postAdded.title == title end,
          timeout = "5s",
        })
        stampede.check("post seen", result.data.postAdded.title == title)
      end)
      stampede.sleep("200ms")
    end
    client:unsubscribe(id)
    client:close()
  end,
}

return scenario
