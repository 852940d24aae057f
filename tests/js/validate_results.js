// Validates Stampede output against schema/results.schema.json with Ajv (JSON Schema
// draft 2020-12), an implementation independent of the C++ writer.
//
//   node validate_results.js SCHEMA FILE            a results file (--out)
//   node validate_results.js SCHEMA FILE --stream   an NDJSON stream (--out-stream), line by line
//
// Exit 0 when valid; 1 with the errors on stderr otherwise.
"use strict";
const fs = require("fs");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats").default;

const [schemaPath, filePath, mode] = process.argv.slice(2);
if (!schemaPath || !filePath) {
  console.error("usage: node validate_results.js SCHEMA FILE [--stream]");
  process.exit(2);
}

const schema = JSON.parse(fs.readFileSync(schemaPath, "utf8"));
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
ajv.addSchema(schema);

const validate = ajv.getSchema(mode === "--stream" ? schema.$id + "#/$defs/stream_line" : schema.$id);
const text = fs.readFileSync(filePath, "utf8");
const documents = mode === "--stream" ? text.split("\n").filter((line) => line.length > 0) : [text];

let failed = false;
documents.forEach((doc, i) => {
  let value;
  try {
    value = JSON.parse(doc);
  } catch (e) {
    console.error(`${filePath}${mode === "--stream" ? ` line ${i + 1}` : ""}: not JSON: ${e.message}`);
    failed = true;
    return;
  }
  if (!validate(value)) {
    failed = true;
    for (const err of validate.errors) {
      console.error(`${filePath}${mode === "--stream" ? ` line ${i + 1}` : ""}: ${err.instancePath || "/"} ${err.message} ${JSON.stringify(err.params)}`);
    }
  }
});
if (!failed) console.log(`valid: ${documents.length} document(s)`);
process.exit(failed ? 1 : 0);
