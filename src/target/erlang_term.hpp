#pragma once
// Erlang's external term format, the payload of every Phoenix token (session cookie,
// data-phx-session, data-phx-static, flash, upload entries): enough of it to write the terms
// Phoenix writes and read them back. The target signs what it writes, so the reader only
// ever sees terms it wrote itself; it is still strict (and bounded in depth) about the rest.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stampede::target::etf {

// Appends one term, piece by piece: start with version(), then exactly one term (a tuple or
// map announces how many terms follow it).
class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}

  void version();                                     // 131
  void tuple(std::uint8_t arity);                     // SMALL_TUPLE_EXT
  void map(std::uint32_t pairs);                      // MAP_EXT: 2 * pairs terms follow, key then value
  void atom(std::string_view name);                   // ATOM_EXT (OTP 25 still writes Latin-1 atoms this way)
  void binary(std::string_view bytes);                // BINARY_EXT: an Elixir string
  void integer(std::int64_t value);                   // SMALL_INTEGER_EXT, INTEGER_EXT or SMALL_BIG_EXT
  void pid(std::string_view node, std::uint32_t id);  // NEW_PID_EXT, serial and creation 0
  void empty_list();                                  // NIL_EXT: []

 private:
  std::string& out_;
};

struct Term {
  enum class Kind : std::uint8_t { Integer, Atom, Binary, Tuple, Map, List, Pid };
  Kind kind = Kind::Atom;
  std::int64_t integer = 0;  // Integer; the id of a Pid
  std::string text;          // Atom name, Binary bytes, the node of a Pid
  std::vector<Term> items;   // Tuple and List elements; Map keys and values, alternating

  bool is_atom(std::string_view name) const { return kind == Kind::Atom && text == name; }
  // A map's value under an atom or binary key named `key`; nullptr when absent.
  const Term* find(std::string_view key) const;
};

// Decodes a whole term (version byte included); nullopt when it is malformed, has bytes
// after it, nests too deep, or uses a type the target never writes.
std::optional<Term> decode(std::string_view bytes);

}  // namespace stampede::target::etf
