#include "target/posts_api.hpp"

#include <boost/json.hpp>
#include <charconv>
#include <string>
#include <vector>

namespace stampede::target {
namespace {

namespace json = boost::json;

// The fixed posts, serialized once: GET answers point at these strings.
struct PostsCatalog {
  std::string list_json;
  std::vector<std::string> post_json;  // index = id - 1
};

const PostsCatalog& catalog() {
  static const PostsCatalog instance = [] {
    const struct {
      const char* title;
      const char* body;
      const char* author;
    } posts[] = {
        {"Hello, Phoenix", "A first post, served by the Stampede target.", "ada"},
        {"Channels at scale", "Thousands of sockets, one topic each.", "grace"},
        {"LiveView diffs", "Only what changed goes over the wire.", "barbara"},
    };
    PostsCatalog built;
    json::array list;
    std::int64_t id = 0;
    for (const auto& p : posts) {
      json::object post{{"id", ++id}, {"title", p.title}, {"body", p.body}, {"author", p.author}};
      built.post_json.push_back(json::serialize(post));
      list.push_back(std::move(post));
    }
    built.list_json = json::serialize(list);
    return built;
  }();
  return instance;
}

constexpr std::string_view kPostNotFound = R"({"error":"post not found"})";

void list_posts(const RouteRequest&, Response& response) {
  response.set_static(200, kJson, catalog().list_json);
}

void show_post(const RouteRequest& req, Response& response) {
  const auto id_text = req.path.substr(std::string_view("/api/posts/").size());
  std::size_t id = 0;
  const auto* end = id_text.data() + id_text.size();
  const auto [ptr, ec] = std::from_chars(id_text.data(), end, id);
  const auto& posts = catalog().post_json;
  if (ec != std::errc() || ptr != end || id == 0 || id > posts.size()) {
    response.set_static(404, kJson, kPostNotFound);
    return;
  }
  response.set_static(200, kJson, posts[id - 1]);
}

void create_post(const RouteRequest& req, Response& response) {
  boost::system::error_code ec;
  auto parsed = json::parse(req.request.body, ec);
  if (ec || !parsed.is_object()) {
    const auto why = ec ? "invalid JSON: " + ec.message() : std::string("expected a JSON object");
    response.set_owned(400, kJson, json::serialize(json::object{{"error", why}}));
    return;
  }
  const auto id = req.state.next_post_id;
  req.state.next_post_id += req.state.post_id_step;
  auto& post = parsed.as_object();
  post["id"] = id;
  response.set_owned(201, kJson, json::serialize(post));
  response.headers = "Location: /api/posts/" + std::to_string(id) + "\r\n";
}

}  // namespace

void add_posts_routes(RouteTable& routes) {
  routes.add({"GET", "/api/posts", false, list_posts});
  routes.add({"POST", "/api/posts", false, create_post});
  routes.add({"GET", "/api/posts/", true, show_post});
}

}  // namespace stampede::target
