#pragma once
// The "generator" and "find_limit" objects of a scenario in the results file (see
// schema/results.schema.json), and reading them back.
#include <boost/json/object.hpp>

#include "report/find_limit_result.hpp"

namespace stampede::report {

boost::json::object generator_json(const GeneratorFigures& figures);
boost::json::object find_limit_json(const FindLimitResult& result);

// Throw std::runtime_error (via boost::json) on a malformed object.
GeneratorFigures read_generator_json(const boost::json::object& o);
FindLimitResult read_find_limit_json(const boost::json::object& o);

}  // namespace stampede::report
