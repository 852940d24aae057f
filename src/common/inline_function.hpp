#pragma once
// A move-only callable whose captures live inside it, never on the heap: for the callbacks
// made once per request on the hot path (a batched send's completion and its liveness check),
// where std::function allocated three times per request (libstdc++ keeps only trivially
// copyable captures of up to 16 bytes inline, and a shared_ptr is not trivially copyable).
// A callable bigger than `Capacity` does not compile, so a capture added later cannot
// silently bring the allocation back: give it more room or capture less
// (docs/design/031-warm-requests-allocate-once.md).
#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace stampede {

template <typename Signature, std::size_t Capacity>
class InlineFunction;

template <typename R, typename... Args, std::size_t Capacity>
class InlineFunction<R(Args...), Capacity> {
 public:
  InlineFunction() noexcept {}
  InlineFunction(std::nullptr_t) noexcept {}  // NOLINT: like std::function

  template <typename F, typename Fn = std::decay_t<F>,
            typename = std::enable_if_t<!std::is_same_v<Fn, InlineFunction> && std::is_invocable_r_v<R, Fn&, Args...>>>
  InlineFunction(F&& f) {  // NOLINT: implicit, like std::function
    static_assert(sizeof(Fn) <= Capacity, "the callable's captures do not fit: capture less or raise Capacity");
    static_assert(alignof(Fn) <= alignof(std::max_align_t), "over-aligned captures");
    static_assert(std::is_nothrow_move_constructible_v<Fn>, "moving the callable must not throw");
    ::new (static_cast<void*>(storage_)) Fn(std::forward<F>(f));
    ops_ = &kOps<Fn>;
  }

  InlineFunction(InlineFunction&& other) noexcept { take(other); }
  InlineFunction& operator=(InlineFunction&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  InlineFunction(const InlineFunction&) = delete;
  InlineFunction& operator=(const InlineFunction&) = delete;
  ~InlineFunction() { reset(); }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  // Calling an empty one throws bad_function_call, as std::function does. Const like
  // std::function's: the callable itself may change its captures (a mutable lambda).
  R operator()(Args... args) const {
    if (ops_ == nullptr) throw std::bad_function_call();
    return ops_->call(storage_, std::forward<Args>(args)...);
  }

 private:
  struct Ops {
    R (*call)(void* self, Args&&... args);
    void (*move_to)(void* from, void* to) noexcept;  // move-constructs at `to`, destroys `from`
    void (*destroy)(void* self) noexcept;
  };

  template <typename Fn>
  static constexpr Ops kOps{
      [](void* self, Args&&... args) -> R { return std::invoke(*static_cast<Fn*>(self), std::forward<Args>(args)...); },
      [](void* from, void* to) noexcept {
        ::new (to) Fn(std::move(*static_cast<Fn*>(from)));
        static_cast<Fn*>(from)->~Fn();
      },
      [](void* self) noexcept { static_cast<Fn*>(self)->~Fn(); },
  };

  void take(InlineFunction& other) noexcept {
    if (other.ops_ == nullptr) return;
    other.ops_->move_to(other.storage_, storage_);
    ops_ = std::exchange(other.ops_, nullptr);
  }

  void reset() noexcept {
    if (ops_ != nullptr) std::exchange(ops_, nullptr)->destroy(storage_);
  }

  alignas(std::max_align_t) mutable unsigned char storage_[Capacity];
  const Ops* ops_ = nullptr;
};

}  // namespace stampede
