// The HTML report's entry point: the results file is embedded in the page; draw it.
'use strict';
(function (S) {
  const app = document.getElementById('app');
  const run = JSON.parse(document.getElementById('stampede-results').textContent);
  document.getElementById('topbar-note').textContent = 'load test report';
  S.renderResults(app, run);
})(window.Stampede);
