add_library(stampede_warnings INTERFACE)
target_compile_options(stampede_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wnon-virtual-dtor -Wcast-align -Wno-missing-field-initializers
  # GCC can limit shadowing warnings to locals; clang has no such option.
  $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>)
if(STAMPEDE_WERROR)
  target_compile_options(stampede_warnings INTERFACE -Werror)
endif()
if(STAMPEDE_UNITY_BUILD)
  # GCC warns when a class with external linkage has a base or member of a type from an
  # anonymous namespace declared in another file than the one compiled: meant for headers,
  # where every includer gets a different type. A unity batch #includes the .cpp files
  # themselves, so each file's own `class Foo::Impl : Session` (Session file-local) would
  # warn there and nowhere else: each file is still compiled exactly once.
  target_compile_options(stampede_warnings INTERFACE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
endif()
if(STAMPEDE_SANITIZE OR STAMPEDE_FUZZ)
  # No vptr check: it probes memory through a pipe, so in the tests that exhaust file
  # descriptors on purpose it reports false "invalid vptr" errors on Boost's error categories.
  # UB is not recoverable: a test or a fuzz input that hits it fails.
  add_compile_options(-fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
# With STAMPEDE_FUZZ, libFuzzer's coverage instrumentation is added per layer, only to the
# layers the fuzz targets link (src/CMakeLists.txt, STAMPEDE_FUZZED_LAYERS).
