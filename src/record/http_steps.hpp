#pragma once
// The HTTP side of a recording as stampede.http calls (http_steps.cpp), and the values that
// link them (correlation.cpp): CSRF tokens read from the page at run time, ids that one
// response gave and a later request sent.
#include <string>
#include <vector>

#include "record/recording.hpp"
#include "record/recording_scope.hpp"
#include "record/scenario_model.hpp"

namespace stampede::record {

// One request the app's page made (redirect hops the client follows by itself already folded
// in: `final_response` is the last hop's). Headers a browser sends by itself, cookies (the VU's
// jar has its own) and credentials are left out.
Step http_step(const Exchange& request, const Exchange& final_response, const UrlParts& url, Summary& summary);

// Replaces recorded CSRF tokens and correlated ids in the HTTP steps by the expressions that
// compute them at run time, naming the responses they come from. Needs the steps in order.
void correlate(std::vector<Step>& steps, Scenario& scenario);

}  // namespace stampede::record
