// jsonld.js FILE [OPTIONS_JSON]: expand a JSON-LD file with jsonld.js and
// print the expanded document as JSON, for extread.JSONLDExpand. Run as
// `node jsonld.js` with NODE_PATH naming the folder that holds jsonld.
//
// No document is ever loaded: a remote @context (or @import) fails the
// expansion, so a document passes only if its context is inline, as it must
// be for readers offline. OPTIONS_JSON may set "safe" (jsonld's safe mode:
// fail on anything expansion would drop, such as a term with no IRI or a
// relative @id) and "base" (the base IRI relative ids are resolved against).
'use strict';
const fs = require('fs');
const jsonld = require('jsonld');

const [file, opts = '{}'] = process.argv.slice(2);

async function refuse(url) {
  throw new Error(`refused to load ${url}: the @context must be inline (no document is fetched)`);
}

// messages follows jsonld's error and the causes it wraps, so that a refused
// remote context is reported with our reason as well as jsonld's code.
function messages(e) {
  const out = [];
  for (let c = e, n = 0; c && n < 8; c = c.details && c.details.cause || c.cause, n++) {
    let m = c.name && c.name !== 'Error' ? `${c.name}: ${c.message}` : String(c.message || c);
    if (c.details && c.details.code) m += ` [${c.details.code}]`;
    if (c.details && c.details.event) m += ` ${JSON.stringify(c.details.event.details || {})} (${c.details.event.code})`;
    out.push(m);
  }
  return out.join(': ');
}

(async () => {
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  const o = JSON.parse(opts);
  const options = { documentLoader: refuse, safe: !!o.safe };
  if (o.base) options.base = o.base;
  const expanded = await jsonld.expand(doc, options);
  process.stdout.write(JSON.stringify(expanded) + '\n');
})().catch((e) => {
  process.stderr.write(messages(e) + '\n');
  process.exit(1);
});
