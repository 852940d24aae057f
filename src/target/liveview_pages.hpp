#pragma once
// mount/3 of each page of the demo app, one file each: liveview_counter.cpp,
// liveview_posts_new.cpp, liveview_posts.cpp, liveview_components.cpp, liveview_upload.cpp,
// liveview_dashboard.cpp, liveview_refusing.cpp (/stale and /crash).
#include <memory>

#include "target/liveview.hpp"

namespace stampede::target {

std::unique_ptr<LiveView> mount_counter(const MountContext& context);
std::unique_ptr<LiveView> mount_posts_new(const MountContext& context);
std::unique_ptr<LiveView> mount_posts(const MountContext& context);
std::unique_ptr<LiveView> mount_components(const MountContext& context);
std::unique_ptr<LiveView> mount_upload(const MountContext& context);
MountResult mount_dashboard(const MountContext& context);
MountResult mount_refusing(LiveViewPage page, const MountContext& context);

}  // namespace stampede::target
